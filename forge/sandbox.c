/* sandbox.c - see sandbox.h. */
#define _GNU_SOURCE /* pipe2 */
#include "sandbox.h"

#include <dirent.h>
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

#include "process.h"

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

/* In the child before exec: the limits (bubblewrap and the program under
 * it inherit them). */
static void apply_limits(void *ctx)
{
    const sb_sandbox_limits *lim = ctx;
    struct rlimit core0 = {0, 0};
    setrlimit(RLIMIT_CORE, &core0);
    set_limit(RLIMIT_CPU, lim->cpu_s);
    set_limit(RLIMIT_DATA, lim->data_bytes);
    set_limit(RLIMIT_AS, lim->as_bytes);
    set_limit(RLIMIT_FSIZE, lim->fsize_bytes);
    set_limit(RLIMIT_NOFILE, lim->nofile);
}

/* ---- bubblewrap ---- */

/* The namespaces and mounts every bubblewrap run gets: no network (and no
 * other namespace shared), the whole file system read-only, a fresh /dev
 * and /proc, and the sandbox dies with forge. */
static const char *const BWRAP_BASE[] = {"--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
                                         "--dev", "/dev", "--proc", "/proc"};
#define BWRAP_BASE_N (sizeof BWRAP_BASE / sizeof BWRAP_BASE[0])
#define BWRAP_MAX_GPU_NODES 64

typedef struct bwrap_argv {
    char **argv;  /* NULL-terminated; the strings it owns are in owned */
    char **owned;
    size_t n, cap, n_owned;
} bwrap_argv;

static int bw_push(bwrap_argv *a, const char *s, int copy)
{
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        char **v = realloc(a->argv, cap * sizeof *v);
        if (!v)
            return -1;
        a->argv = v;
        char **o = realloc(a->owned, cap * sizeof *o);
        if (!o)
            return -1;
        a->owned = o;
        a->cap = cap;
    }
    char *str = (char *)s;
    if (copy) {
        if (!(str = strdup(s)))
            return -1;
        a->owned[a->n_owned++] = str;
    }
    a->argv[a->n++] = str;
    a->argv[a->n] = NULL;
    return 0;
}

static void bw_free(bwrap_argv *a)
{
    for (size_t i = 0; i < a->n_owned; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->argv);
}

/* bwrap BASE [--bind DIR DIR --chdir DIR] [--dev-bind /dev/nvidia* ...] -- argv...
 * Every /dev/nvidia* node (and /dev/nvidia-caps) is bound where present, so
 * the CUDA driver finds the card; nothing else of the host's /dev is. */
static int bw_build(bwrap_argv *a, const char *bwrap, const char *workdir, char *const argv[])
{
    memset(a, 0, sizeof *a);
    if (bw_push(a, bwrap, 0) != 0)
        return -1;
    for (size_t i = 0; i < BWRAP_BASE_N; i++)
        if (bw_push(a, BWRAP_BASE[i], 0) != 0)
            return -1;
    if (workdir && (bw_push(a, "--bind", 0) || bw_push(a, workdir, 0) || bw_push(a, workdir, 0) ||
                    bw_push(a, "--chdir", 0) || bw_push(a, workdir, 0)))
        return -1;
    DIR *d = opendir("/dev");
    if (d) {
        struct dirent *de;
        size_t nodes = 0;
        while ((de = readdir(d)) != NULL && nodes < BWRAP_MAX_GPU_NODES) {
            if (strncmp(de->d_name, "nvidia", 6) != 0)
                continue;
            char node[300];
            snprintf(node, sizeof node, "/dev/%s", de->d_name);
            if (bw_push(a, "--dev-bind", 0) || bw_push(a, node, 1) || bw_push(a, node, 1)) {
                closedir(d);
                return -1;
            }
            nodes++;
        }
        closedir(d);
    }
    if (bw_push(a, "--", 0) != 0)
        return -1;
    for (size_t i = 0; argv[i]; i++)
        if (bw_push(a, argv[i], 0) != 0)
            return -1;
    return 0;
}

/* Runs bubblewrap around /bin/true (as forge would run a program) and
 * says why it cannot, in why. 0 when it works. */
static int bw_probe(const char *bwrap, char *why, size_t size)
{
    char truth[4096];
    if (sb_process_find("true", truth, sizeof truth) != SB_OK) {
        snprintf(why, size, "no 'true' program on PATH to try bubblewrap with");
        return -1;
    }
    char *targv[] = {truth, NULL};
    bwrap_argv a;
    if (bw_build(&a, bwrap, NULL, targv) != 0) {
        bw_free(&a);
        snprintf(why, size, "out of memory");
        return -1;
    }
    char text[512];
    size_t total;
    int status;
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_process_capture(a.argv, NULL, 1, text, sizeof text, &total, &status, &err);
    bw_free(&a);
    if (rc != SB_OK) {
        snprintf(why, size, "%.500s", err.msg);
        return -1;
    }
    for (char *c = text; *c; c++)
        if (*c == '\n')
            *c = *(c + 1) ? ' ' : '\0';
    if (status != 0) {
        snprintf(why, size, "%s", text[0] ? text : "bwrap failed without a message");
        return -1;
    }
    return 0;
}

int sb_sandbox_choose(sb_sandbox_isolation *chosen, char *why, size_t size, sb_error *err)
{
    const char *want = getenv("SOLBOOK_FORGE_SANDBOX");
    if (want && *want && strcmp(want, "auto") != 0 && strcmp(want, "bubblewrap") != 0 &&
        strcmp(want, "rlimits") != 0)
        return sb_error_set(err, NULL, NULL, "SOLBOOK_FORGE_SANDBOX is '%s': expected auto, bubblewrap or rlimits",
                            want);
    if (want && strcmp(want, "rlimits") == 0) {
        *chosen = SB_SANDBOX_RLIMITS;
        snprintf(why, size, "rlimits and a process group (SOLBOOK_FORGE_SANDBOX=rlimits)");
        return SB_OK;
    }
    char bwrap[4096], reason[600];
    if (sb_process_find("bwrap", bwrap, sizeof bwrap) != SB_OK)
        snprintf(reason, sizeof reason, "bwrap not found on PATH (Debian package bubblewrap)");
    else if (bw_probe(bwrap, reason, sizeof reason) == 0) {
        *chosen = SB_SANDBOX_BUBBLEWRAP;
        snprintf(why, size, "bubblewrap (%s): no network, read-only file system but the working folder, "
                            "GPU device nodes bound; rlimits and a process group", bwrap);
        return SB_OK;
    }
    if (want && strcmp(want, "bubblewrap") == 0)
        return sb_error_set(err, NULL, NULL, "SOLBOOK_FORGE_SANDBOX=bubblewrap, but bubblewrap cannot run here: %s",
                            reason);
    *chosen = SB_SANDBOX_RLIMITS;
    snprintf(why, size, "rlimits and a process group only: %s", reason);
    return SB_OK;
}

const char *sb_sandbox_isolation_name(sb_sandbox_isolation iso)
{
    return iso == SB_SANDBOX_BUBBLEWRAP ? "bubblewrap" : iso == SB_SANDBOX_RLIMITS ? "rlimits" : "auto";
}

int sb_sandbox_run(char *const argv[], const char *workdir, const char *stdout_path,
                   const char *stderr_path, const sb_sandbox_limits *lim,
                   sb_sandbox_result *res, sb_error *err)
{
    memset(res, 0, sizeof *res);
    char prog[4096];
    if (sb_process_find(argv[0], prog, sizeof prog) != SB_OK)
        return sb_error_set(err, argv[0], NULL, "program not found or not executable");
    sb_sandbox_isolation iso = lim->isolation;
    if (iso == SB_SANDBOX_AUTO) {
        char why[800];
        if (sb_sandbox_choose(&iso, why, sizeof why, err) != SB_OK)
            return SB_ERR;
    }
    res->isolation = iso;
    /* bubblewrap binds the working folder by its real path. */
    char real_workdir[4096], bwrap[4096];
    if (iso == SB_SANDBOX_BUBBLEWRAP) {
        if (!realpath(workdir, real_workdir))
            return sb_error_set(err, workdir, NULL, "cannot resolve the working folder: %s", strerror(errno));
        if (sb_process_find("bwrap", bwrap, sizeof bwrap) != SB_OK)
            return sb_error_set(err, "bwrap", NULL, "program not found or not executable");
    }
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
    bwrap_argv bw = {0};
    char **prog_argv = NULL;
    char *const *run_argv = argv;
    int rc = SB_OK;
    if (null_fd < 0 || !env) {
        rc = sb_error_set(err, "/dev/null", NULL, "cannot prepare the child: %s", strerror(errno));
        goto done;
    }
    /* execve needs the path PATH gave; under bubblewrap too, since the
     * look-up happened out here. */
    size_t argc = 0;
    while (argv[argc])
        argc++;
    if (!(prog_argv = calloc(argc + 1, sizeof *prog_argv))) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    memcpy(prog_argv, argv, argc * sizeof *prog_argv);
    prog_argv[0] = prog;
    run_argv = prog_argv;
    if (iso == SB_SANDBOX_BUBBLEWRAP) {
        if (bw_build(&bw, bwrap, real_workdir, prog_argv) != 0) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        run_argv = bw.argv;
    }

    sb_process_opts o;
    sb_process_opts_init(&o);
    o.in_fd = null_fd;
    o.out_fd = out_fd;
    o.err_fd = err_fd;
    o.cwd = workdir;
    o.env = env;
    o.own_group = 1;
    o.close_other_fds = 1;
    o.before_exec = apply_limits;
    o.ctx = (void *)lim;
    double start = now_s();
    pid_t pid;
    rc = sb_process_start(run_argv, &o, &pid, err);
    if (rc != SB_OK)
        goto done;
    close(out_fd);
    close(err_fd);
    close(null_fd);
    out_fd = err_fd = null_fd = -1;

    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            int e = errno;
            kill(-pid, SIGKILL);
            rc = sb_error_set(err, prog, NULL, "waitpid: %s", strerror(e));
            goto done;
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
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(status);
        /* bubblewrap exits 128 + N when the program is killed by signal N. */
        if (iso == SB_SANDBOX_BUBBLEWRAP && res->exit_code > 128 && res->exit_code < 128 + 65) {
            res->exited = 0;
            res->signaled = 1;
            res->term_signal = res->exit_code - 128;
            res->exit_code = 0;
        }
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->term_signal = WTERMSIG(status);
    }
done:
    if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    if (null_fd >= 0)
        close(null_fd);
    free_env(env);
    free(prog_argv);
    bw_free(&bw);
    return rc;
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
