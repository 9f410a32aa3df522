/* spawn.h - running kubectl or sbatch with a manifest on stdin, or squeue
 * and kubectl get with their output captured, through
 * fork/exec and a pipe (no shell is involved, so nothing is re-parsed).
 */
#ifndef SOLBOOK_FLEET_SPAWN_H
#define SOLBOOK_FLEET_SPAWN_H

#include <stddef.h>

#include "error.h"

/* Finds an executable prog on $PATH (or prog itself when it holds a '/').
 * SB_OK with the path in out; SB_ERR when there is none. */
int sb_spawn_find(const char *prog, char *out, size_t size);

/* Runs argv (argv[0] looked up with sb_spawn_find) with input written to
 * its standard input, stdout and stderr shared with the caller, and waits.
 * *status is its exit status (128 + N when killed by signal N). SB_ERR
 * when it could not be started (err says why: not installed, fork or exec
 * failed). */
int sb_spawn_pipe(char *const argv[], const char *input, size_t len, int *status, sb_error *err);

/* Runs argv with standard input from /dev/null and captures its standard
 * output (stderr is shared with the caller), for squeue and kubectl get.
 * *out is the output, NUL-terminated and malloc'd; *status as above. SB_ERR
 * when it could not be started or read. */
int sb_spawn_capture(char *const argv[], char **out, int *status, sb_error *err);

#endif
