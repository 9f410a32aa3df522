/* sandbox.c - see sandbox.h. */
#define _GNU_SOURCE /* pipe2 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GIB ((rlim_t)1 << 30)

void sb_sandbox_limits_cuda(sb_sandbox_limits *l, double wall_s)
{
    memset(l, 0, sizeof *l);
    l->wall_s = wall_s;
    l->cpu_s = (rlim_t)wall_s + 10;
    l->data_bytes = 16 * GIB;
    /* SOLBOOK_FORGE_DATA_LIMIT_MB overrides (0: no limit), for drivers that
     * map more private writable memory at initialisation than usual. */
    const char *env = getenv("SOLBOOK_FORGE_DATA_LIMIT_MB");
    if (env && *env) {
        char *end;
        unsigned long long mb = strtoull(env, &end, 10);
        if (!*end && mb < (1ull << 40))
            l->data_bytes = (rlim_t)mb << 20;
    }
    l->as_bytes = 0;
    l->fsize_bytes = 1 * GIB;
    l->nofile = 256;
}

void sb_sandbox_limits_compiler(sb_sandbox_limits *l, double wall_s)
{
    memset(l, 0, sizeof *l);
    l->wall_s = wall_s;
    l->cpu_s = (rlim_t)wall_s + 10;
    l->data_bytes = 8 * GIB;
    l->as_bytes = 0;
    l->fsize_bytes = 1 * GIB;
    l->nofile = 1024;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The child's environment: enough for nvcc and the CUDA runtime to work,
 * nothing else from the caller's. */
static char **make_env(const char *workdir)
{
    static const char *keep[] = {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                                 "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES"};
    size_t nkeep = sizeof keep / sizeof keep[0];
    char **env = calloc(nkeep + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < nkeep; i++) {
        const char *v = getenv(keep[i]);
        if (!v)
            continue;
        size_t len = strlen(keep[i]) + strlen(v) + 2;
        if (!(env[n] = malloc(len)))
            goto oom;
        snprintf(env[n++], len, "%s=%s", keep[i], v);
    }
    const char *fixed[] = {"HOME=", "TMPDIR=", "LC_ALL=C"};
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(fixed[i]) + (i < 2 ? strlen(workdir) : 0) + 1;
        if (!(env[n] = malloc(len)))
            goto oom;
        snprintf(env[n++], len, "%s%s", fixed[i], i < 2 ? workdir : "");
    }
    return env;
oom:
    for (size_t i = 0; i < n; i++)
        free(env[i]);
    free(env);
    return NULL;
}

static void free_env(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

/* Resolves a bare name through PATH before fork (execve needs a path). */
static int resolve_program(const char *name, char *out, size_t size)
{
    if (strchr(name, '/')) {
        if ((size_t)snprintf(out, size, "%s", name) >= size)
            return -1;
        return access(out, X_OK);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len && (size_t)snprintf(out, size, "%.*s/%s", (int)len, path, name) < size &&
            access(out, X_OK) == 0)
            return 0;
        path += len;
        if (*path == ':')
            path++;
    }
    return -1;
}

static void set_limit(int resource, rlim_t value)
{
    if (value == 0)
        return;
    struct rlimit rl = {value, value};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < value)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;
    setrlimit(resource, &rl);
}

int sb_sandbox_run(char *const argv[], const char *workdir, const char *stdout_path,
                   const char *stderr_path, const sb_sandbox_limits *lim,
                   sb_sandbox_result *res, sb_error *err)
{
    memset(res, 0, sizeof *res);
    char prog[4096];
    if (resolve_program(argv[0], prog, sizeof prog) != 0)
        return sb_error_set(err, argv[0], NULL, "program not found or not executable");
    int out_fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0)
        return sb_error_set(err, stdout_path, NULL, "cannot create: %s", strerror(errno));
    int err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err_fd < 0) {
        int e = errno;
        close(out_fd);
        return sb_error_set(err, stderr_path, NULL, "cannot create: %s", strerror(e));
    }
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    char **env = make_env(workdir);
    if (null_fd < 0 || !env) {
        int e = errno;
        close(out_fd);
        close(err_fd);
        if (null_fd >= 0)
            close(null_fd);
        free_env(env);
        return sb_error_set(err, "/dev/null", NULL, "cannot prepare the child: %s", strerror(e));
    }
    /* A pipe closed on exec tells the parent whether execve failed. */
    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0) {
        int e = errno;
        close(out_fd);
        close(err_fd);
        close(null_fd);
        free_env(env);
        return sb_error_set(err, NULL, NULL, "pipe: %s", strerror(e));
    }
    long max_fd = sysconf(_SC_OPEN_MAX);
    if (max_fd < 0 || max_fd > 65536)
        max_fd = 65536;

    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out_fd);
        close(err_fd);
        close(null_fd);
        close(status_pipe[0]);
        close(status_pipe[1]);
        free_env(env);
        return sb_error_set(err, NULL, NULL, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        /* Child: async-signal-safe calls only. */
        setpgid(0, 0);
        int code = 0;
        if (chdir(workdir) != 0) code = 1;
        if (!code && (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)) code = 2;
        if (!code) {
            for (long fd = 3; fd < max_fd; fd++)
                if (fd != status_pipe[1])
                    close((int)fd);
            struct rlimit core0 = {0, 0};
            setrlimit(RLIMIT_CORE, &core0);
            set_limit(RLIMIT_CPU, lim->cpu_s);
            set_limit(RLIMIT_DATA, lim->data_bytes);
            set_limit(RLIMIT_AS, lim->as_bytes);
            set_limit(RLIMIT_FSIZE, lim->fsize_bytes);
            set_limit(RLIMIT_NOFILE, lim->nofile);
            signal(SIGPIPE, SIG_DFL);
            execve(prog, argv, env);
            code = 3;
        }
        int e = errno;
        int msg[2] = {code, e};
        ssize_t w = write(status_pipe[1], msg, sizeof msg);
        (void)w;
        _exit(127);
    }
    setpgid(pid, pid); /* also from the parent, so kill(-pid) works at once */
    close(status_pipe[1]);
    close(out_fd);
    close(err_fd);
    close(null_fd);
    free_env(env);
    int msg[2] = {0, 0};
    ssize_t got;
    do {
        got = read(status_pipe[0], msg, sizeof msg);
    } while (got < 0 && errno == EINTR);
    close(status_pipe[0]);

    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            int e = errno;
            kill(-pid, SIGKILL);
            return sb_error_set(err, prog, NULL, "waitpid: %s", strerror(e));
        }
        if (now_s() - start > lim->wall_s) {
            res->timed_out = 1;
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL); /* whatever the child left behind in its group */
    res->wall_s = now_s() - start;
    if (got == (ssize_t)sizeof msg) {
        static const char *what[] = {"", "cannot enter the working directory",
                                     "cannot redirect standard streams", "execve failed"};
        return sb_error_set(err, prog, NULL, "%s: %s", what[msg[0] >= 1 && msg[0] <= 3 ? msg[0] : 3],
                            strerror(msg[1]));
    }
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->term_signal = WTERMSIG(status);
    }
    return SB_OK;
}

void sb_sandbox_describe(const sb_sandbox_result *res, const sb_sandbox_limits *lim,
                         char *buf, size_t size)
{
    if (res->timed_out) {
        snprintf(buf, size, "timed out after %.0f s, process group killed", lim->wall_s);
    } else if (res->exited) {
        snprintf(buf, size, "exit %d", res->exit_code);
    } else if (res->signaled) {
        const char *why = "";
        switch (res->term_signal) {
        case SIGXFSZ: why = " (file size limit)"; break;
        case SIGXCPU: why = " (CPU time limit)"; break;
        case SIGSEGV: why = " (segmentation fault)"; break;
        case SIGKILL: why = " (killed)"; break;
        case SIGABRT: why = " (aborted)"; break;
        default: break;
        }
        snprintf(buf, size, "killed by %s%s", strsignal(res->term_signal), why);
    } else {
        snprintf(buf, size, "ended in an unknown way");
    }
}
