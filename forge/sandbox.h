/* sandbox.h - running an untrusted program in a child process with limits.
 *
 * The child gets its own process group, the working directory given,
 * stdin from /dev/null, stdout and stderr into files, a small fixed
 * environment, no inherited descriptors beyond 0-2, and resource limits
 * (RLIMIT_CPU, RLIMIT_DATA, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE,
 * RLIMIT_CORE = 0). The parent waits up to a wall-clock timeout and then
 * kills the whole group; the group is killed after a normal exit too, so
 * nothing the child started outlives it. The program is run with execve
 * (no shell).
 *
 * Where bubblewrap (bwrap) can create namespaces, the program also runs
 * inside it: no network, its own pid namespace, the whole file system
 * read-only except the working folder, a fresh /dev holding only the
 * NVIDIA device nodes of the host. Elsewhere the limits above are all
 * there is. docs/FORGE.md, "Sandbox", says what each does not isolate.
 */
#ifndef SOLBOOK_FORGE_SANDBOX_H
#define SOLBOOK_FORGE_SANDBOX_H

#include <sys/resource.h>

#include "error.h"

typedef enum sb_sandbox_isolation {
    SB_SANDBOX_AUTO = 0,   /* bubblewrap where it works here, else rlimits (sb_sandbox_choose) */
    SB_SANDBOX_RLIMITS,    /* process group, limits, environment */
    SB_SANDBOX_BUBBLEWRAP  /* the same inside bubblewrap's namespaces */
} sb_sandbox_isolation;

typedef struct sb_sandbox_limits {
    sb_sandbox_isolation isolation;
    double wall_s;          /* kill the group after this many seconds */
    rlim_t cpu_s;           /* RLIMIT_CPU; 0 = leave as inherited */
    rlim_t data_bytes;      /* RLIMIT_DATA; 0 = leave */
    rlim_t as_bytes;        /* RLIMIT_AS; 0 = leave (CUDA programs need it unset) */
    rlim_t fsize_bytes;     /* RLIMIT_FSIZE; 0 = leave */
    rlim_t nofile;          /* RLIMIT_NOFILE; 0 = leave */
} sb_sandbox_limits;

/* Limits for a CUDA test or bench program: RLIMIT_AS left alone (the CUDA
 * driver reserves a virtual address range about the size of all GPU and
 * host memory), RLIMIT_DATA 16 GiB (SOLBOOK_FORGE_DATA_LIMIT_MB overrides;
 * 0 removes it), 1 GiB files, 256 descriptors, CPU time = wall time + 10 s. */
void sb_sandbox_limits_cuda(sb_sandbox_limits *l, double wall_s);

/* Limits for a compiler (nvcc and the host compiler it runs). */
void sb_sandbox_limits_compiler(sb_sandbox_limits *l, double wall_s);

typedef struct sb_sandbox_result {
    int exited;        /* 1: exit status in exit_code */
    int exit_code;
    int signaled;      /* 1: killed by signal term_signal */
    int term_signal;
    int timed_out;     /* 1: the wall timeout killed it */
    double wall_s;     /* seconds it ran */
    sb_sandbox_isolation isolation; /* how it ran: RLIMITS or BUBBLEWRAP */
} sb_sandbox_result;

/* How this machine isolates: SOLBOOK_FORGE_SANDBOX=rlimits forces the
 * limits alone, =bubblewrap requires bubblewrap (SB_ERR when it cannot
 * run), unset or auto takes bubblewrap when bwrap is on PATH and runs a
 * program here (user namespaces allowed), else the limits. why gets one
 * line saying which and, for the limits, why not bubblewrap. */
int sb_sandbox_choose(sb_sandbox_isolation *chosen, char *why, size_t size, sb_error *err);

/* "bubblewrap", "rlimits" or "auto". */
const char *sb_sandbox_isolation_name(sb_sandbox_isolation iso);

/* Runs argv[0] (a path, or a name looked up in PATH) with argv in workdir,
 * isolated as lim->isolation says (AUTO: chosen now). stdout_path and
 * stderr_path receive the output (created, truncated). SB_ERR only when
 * the child could not be started; the program failing is reported in res.
 * Under bubblewrap a program's exit status above 128 reads as the signal
 * 128 below it, as bubblewrap reports a killed program. */
int sb_sandbox_run(char *const argv[], const char *workdir, const char *stdout_path,
                   const char *stderr_path, const sb_sandbox_limits *lim,
                   sb_sandbox_result *res, sb_error *err);

/* One line saying how it ended: "exit 0", "exit 1", "killed by SIGXFSZ
 * (file size limit)", "timed out after 120 s, process group killed". */
void sb_sandbox_describe(const sb_sandbox_result *res, const sb_sandbox_limits *lim,
                         char *buf, size_t size);

#endif
