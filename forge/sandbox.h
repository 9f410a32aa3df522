/* sandbox.h - running an untrusted program in a child process with limits.
 *
 * The child gets its own process group, the working directory given,
 * stdin from /dev/null, stdout and stderr into files, a small fixed
 * environment, no inherited descriptors beyond 0-2, and resource limits
 * (RLIMIT_CPU, RLIMIT_DATA, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE,
 * RLIMIT_CORE = 0). The parent waits up to a wall-clock timeout and then
 * kills the whole group; the group is killed after a normal exit too, so
 * nothing the child started outlives it. The program is run with execve
 * (no shell). Its disk use and task count are bounded in its own pid and
 * mount namespaces: the working folder is a tmpfs of disk_bytes (its files
 * copied in, and back after a successful run) and the pid namespace's
 * pid_max is max_tasks + 1; RLIMIT_NPROC stands in where the namespaces
 * cannot be made and the run is not confined.
 *
 * The program is confined as well, by the first of these this machine has:
 *
 *   confined    seccomp (no sockets, no ptrace, no mounts, no new
 *               namespaces, no io_uring, bpf, perf or kernel keyring),
 *               Landlock (writes only beneath the working folder; reads
 *               only the working folder, the system's programs and
 *               libraries, the tool folder, /dev's null, zero, random and
 *               nvidia nodes, /proc and /sys; execution of nothing but the
 *               program itself and its ELF loader unless it runs tools),
 *               no capabilities, and a fresh pid and network namespace
 *               whose first process is the program: when it ends, or is
 *               killed, every process it started ends with it.
 *   bubblewrap  bwrap's namespaces (no network, own pid namespace) with
 *               only the system's program and library folders, the tool
 *               folder and the working folder bound, a fresh /dev holding
 *               only the NVIDIA nodes, and a fresh /proc; nested user
 *               namespaces refused (--disable-userns) where this bwrap
 *               can refuse them (0.8.0 or later, not setuid).
 *
 * Where neither is available forge refuses to run a candidate; the limits
 * alone (SB_SANDBOX_RLIMITS) are for a developer's own code and must be
 * asked for (sb_sandbox_choose's allow_unsafe). docs/FORGE.md, "Sandbox",
 * says what each does not isolate.
 */
#ifndef SOLBOOK_FORGE_SANDBOX_H
#define SOLBOOK_FORGE_SANDBOX_H

#include <sys/resource.h>

#include "error.h"

typedef enum sb_sandbox_isolation {
    SB_SANDBOX_AUTO = 0,   /* confined, else bubblewrap, else an error (sb_sandbox_choose) */
    SB_SANDBOX_RLIMITS,    /* process group, limits, environment: no confinement */
    SB_SANDBOX_BUBBLEWRAP, /* the same inside bubblewrap's namespaces */
    SB_SANDBOX_CONFINED,   /* the same under seccomp, Landlock and fresh pid/net namespaces */
    SB_SANDBOX_BUBBLEWRAP_USERNS /* BUBBLEWRAP where bwrap cannot refuse nested user
                                    namespaces: the program may still make them */
} sb_sandbox_isolation;

typedef struct sb_sandbox_limits {
    sb_sandbox_isolation isolation;
    double wall_s;          /* kill the group after this many seconds */
    rlim_t cpu_s;           /* RLIMIT_CPU; 0 = leave as inherited */
    rlim_t data_bytes;      /* RLIMIT_DATA; 0 = leave */
    rlim_t as_bytes;        /* RLIMIT_AS; 0 = leave (CUDA programs need it unset) */
    rlim_t fsize_bytes;     /* RLIMIT_FSIZE; 0 = leave */
    rlim_t nofile;          /* RLIMIT_NOFILE; 0 = leave */
    int runs_tools;         /* 1: it may run the system's programs (a compiler driver);
                               0: it may execute nothing but itself */
    const char *tool_dir;   /* NULL, or a folder it may also read and run programs
                               from (the CUDA toolkit nvcc belongs to) */
    rlim_t disk_bytes;      /* the working folder is a tmpfs of this size in the
                               run's mount namespace, its files copied in before
                               and back after a successful run; 0 = the host's disk */
    unsigned max_tasks;     /* processes and threads at once: the pid_max of the
                               run's pid namespace (RLIMIT_NPROC where no such
                               namespace can be made); 0 = leave */
} sb_sandbox_limits;

/* Defaults of the two bounds above (docs/FORGE.md, "Sandbox"): an example
 * candidate's build folder holds a few MiB and its compiler or test a few
 * dozen tasks. max_tasks is at least SB_SANDBOX_MIN_TASKS, the kernel's
 * smallest pid_max less one. */
#define SB_SANDBOX_DISK_MB 1024
/* Files and folders the working folder's tmpfs holds at most (its
 * nr_inodes): its bytes bound counts none of an empty file, and what a
 * run that succeeds leaves there is copied to the host's disk. */
#define SB_SANDBOX_MAX_FILES 16384
#define SB_SANDBOX_MAX_TASKS 512
#define SB_SANDBOX_MIN_TASKS 300

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
    sb_sandbox_isolation isolation; /* how it ran: RLIMITS, BUBBLEWRAP(_USERNS) or CONFINED */
    int jailed;        /* 1: it ran in its own pid and mount namespaces, so the
                          tmpfs and pid_max bounds held; 0: RLIMIT_FSIZE and
                          RLIMIT_NPROC alone */
    int disk_full;     /* 1: the working folder's tmpfs filled up */
    int tasks_full;    /* 1: the pid namespace reached max_tasks */
    unsigned peak_tasks;            /* most tasks seen at once in the namespace */
    unsigned long long peak_disk;   /* most bytes seen in use on the tmpfs */
} sb_sandbox_result;

/* How this machine isolates. SOLBOOK_FORGE_SANDBOX chooses: unset or
 * auto takes the first of confined and bubblewrap that works here (each is
 * tried; bubblewrap first with --disable-userns, which gives BUBBLEWRAP,
 * then without, which gives BUBBLEWRAP_USERNS), confined or bubblewrap
 * requires that one, rlimits the limits
 * alone. Without a sandbox (rlimits asked for, or none available under
 * auto) the answer is SB_ERR unless allow_unsafe is set, when it is
 * SB_SANDBOX_RLIMITS. why gets one line saying which and why. */
int sb_sandbox_choose(sb_sandbox_isolation *chosen, int allow_unsafe, char *why, size_t size, sb_error *err);

/* "confined", "bubblewrap" (both bubblewrap kinds), "rlimits" or "auto". */
const char *sb_sandbox_isolation_name(sb_sandbox_isolation iso);

/* What confines a program under iso, as recorded with a verdict:
 * "seccomp+landlock+pidns+netns", "bubblewrap:pidns+netns+mountns+nouserns",
 * "bubblewrap:pidns+netns+mountns", "none (rlimits only)". */
const char *sb_sandbox_confinement(sb_sandbox_isolation iso);

/* Whether a program under iso is refused new (nested) user namespaces, as
 * recorded with a verdict: "refused (seccomp)", "refused (bwrap
 * --disable-userns)", or "not refused" (bubblewrap that cannot refuse
 * them, and the limits alone, leave that to the host's kernel). */
const char *sb_sandbox_nested_userns(sb_sandbox_isolation iso);

/* Runs argv[0] (a path, or a name looked up in PATH) with argv in workdir,
 * isolated as lim->isolation says (AUTO: chosen now). stdout_path and
 * stderr_path receive the output (created, truncated). SB_ERR only when
 * the child could not be started; the program failing is reported in res.
 * Under bubblewrap a program's exit status above 128 reads as the signal
 * 128 below it, as bubblewrap reports a killed program. */
int sb_sandbox_run(const char *const argv[], const char *workdir, const char *stdout_path,
                   const char *stderr_path, const sb_sandbox_limits *lim,
                   sb_sandbox_result *res, sb_error *err);

/* One line saying how it ended: "exit 0", "exit 1", "killed by SIGXFSZ
 * (file size limit)", "timed out after 120 s, process group killed",
 * followed by "; stopped by the disk bound (...)" or "; stopped by the
 * process bound (...)" when one was reached. */
void sb_sandbox_describe(const sb_sandbox_result *res, const sb_sandbox_limits *lim,
                         char *buf, size_t size);

/* One line saying what bounded its disk use and process count:
 * "disk: tmpfs of 1024 MiB; tasks: pid_max 512 of its pid namespace", or
 * the rlimits that stood in where no namespace could be made (and that
 * RLIMIT_NPROC does not bind root or CAP_SYS_RESOURCE). */
void sb_sandbox_bounds(const sb_sandbox_result *res, const sb_sandbox_limits *lim, char *buf, size_t size);

#endif
