/* process.h - finding a program on PATH and starting it without a shell.
 *
 * sb_process_start forks and execs argv with the standard streams, working
 * folder, environment and process group the caller asks for; nothing is
 * parsed by a shell. An exec that fails (not executable, no such folder)
 * is an error of sb_process_start, not an exit status, reported through a
 * close-on-exec pipe. Waiting is the caller's: some wait at once, some
 * poll against a wall clock, some keep several children running.
 */
#ifndef SOLBOOK_CORE_PROCESS_H
#define SOLBOOK_CORE_PROCESS_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* The path of an executable regular file: prog itself when it holds a
 * '/', else the first match on $PATH (an empty entry is the current
 * folder; no PATH: /usr/local/bin:/usr/bin:/bin). SB_ERR when none. */
int sb_process_find(const char *prog, char *out, size_t size);

#define SB_PROCESS_INHERIT (-1)

typedef struct sb_process_opts {
    int in_fd, out_fd, err_fd;  /* become 0, 1, 2; SB_PROCESS_INHERIT keeps the caller's */
    const char *cwd;            /* NULL: the caller's */
    const char *const *env;     /* NULL: the caller's environment */
    int own_group;              /* 1: the child leads a new process group (pgid = pid) */
    int close_other_fds;        /* 1: descriptors above 2 are closed in the child */
    /* Runs in the child just before exec (async-signal-safe calls only):
     * resource limits, environment of a single-threaded caller. */
    void (*before_exec)(void *ctx);
    void *ctx;
} sb_process_opts;

/* Options that inherit everything. */
void sb_process_opts_init(sb_process_opts *o);

/* Starts argv (argv[0] found with sb_process_find) and stores its pid.
 * SB_ERR when it could not be started: not found, fork failed, or the
 * child could not enter cwd, set up its streams or exec (the child is
 * reaped then). */
int sb_process_start(const char *const argv[], const sb_process_opts *o, pid_t *pid, sb_error *err);

/* Runs argv (env NULL: the caller's environment) with stdin from
 * /dev/null, its stdout (and its stderr when with_stderr, else dropped)
 * into out (size bytes, NUL-terminated, the rest read and dropped), and
 * waits. *total is how many bytes it wrote, *status as
 * sb_process_status_code. SB_ERR when it could not be started. */
int sb_process_capture(const char *const argv[], const char *const *env, int with_stderr, char *out,
                       size_t size, size_t *total, int *status, sb_error *err);

/* A wait status as one number: the exit status, or 128 + N when killed by
 * signal N (as shells report it). */
int sb_process_status_code(int wait_status);

#endif
