/* process.c - see process.h. */
#define _GNU_SOURCE /* pipe2, environ */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int sb_process_find(const char *prog, char *out, size_t size)
{
    if (strchr(prog, '/')) {
        if (!executable(prog) || (size_t)snprintf(out, size, "%s", prog) >= size)
            return SB_ERR;
        return SB_OK;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char cand[4096];
        /* An empty PATH entry is the current directory. */
        int len = n ? snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, prog) : snprintf(cand, sizeof cand, "./%s", prog);
        if (len > 0 && (size_t)len < sizeof cand && executable(cand)) {
            if ((size_t)snprintf(out, size, "%s", cand) >= size)
                return SB_ERR;
            return SB_OK;
        }
        if (!colon)
            return SB_ERR;
        p = colon + 1;
    }
}

void sb_process_opts_init(sb_process_opts *o)
{
    memset(o, 0, sizeof *o);
    o->in_fd = o->out_fd = o->err_fd = SB_PROCESS_INHERIT;
}

int sb_process_status_code(int ws)
{
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 255;
}

/* What the child reports through the status pipe when it cannot exec. */
enum { STEP_CWD = 1, STEP_STREAMS = 2, STEP_EXEC = 3 };

int sb_process_start(const char *const argv[], const sb_process_opts *o, pid_t *pid_out, sb_error *err)
{
    char path[4096];
    if (sb_process_find(argv[0], path, sizeof path) != SB_OK)
        return sb_error_set(err, argv[0], NULL, "program not found or not executable");
    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0)
        return sb_error_set(err, path, NULL, "cannot start: pipe: %s", strerror(errno));
    long max_fd = sysconf(_SC_OPEN_MAX);
    if (max_fd < 0 || max_fd > 65536)
        max_fd = 65536;
    /* Buffered output must not be written twice (once by the child). */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(status_pipe[0]);
        close(status_pipe[1]);
        return sb_error_set(err, path, NULL, "cannot start: fork: %s", strerror(e));
    }
    if (pid == 0) {
        /* Child: async-signal-safe calls only (and before_exec's). */
        int step = 0;
        if (o->own_group)
            setpgid(0, 0);
        if (o->cwd && chdir(o->cwd) != 0)
            step = STEP_CWD;
        const int fds[3] = {o->in_fd, o->out_fd, o->err_fd};
        for (int i = 0; !step && i < 3; i++)
            if (fds[i] != SB_PROCESS_INHERIT && dup2(fds[i], i) < 0)
                step = STEP_STREAMS;
        if (!step) {
            if (o->close_other_fds)
                for (long fd = 3; fd < max_fd; fd++)
                    if (fd != status_pipe[1])
                        close((int)fd);
            if (o->before_exec)
                o->before_exec(o->ctx);
            signal(SIGPIPE, SIG_DFL);
            /* execve's char *const[] predates const in C; it writes
             * neither the pointers nor the strings, so the casts drop
             * nothing that is relied on. */
            execve(path, (char *const *)argv, o->env ? (char *const *)o->env : environ);
            step = STEP_EXEC;
        }
        int msg[2] = {step, errno};
        ssize_t w = write(status_pipe[1], msg, sizeof msg);
        (void)w;
        _exit(127);
    }
    if (o->own_group)
        setpgid(pid, pid); /* from the parent too, so kill(-pid) works at once */
    close(status_pipe[1]);
    int msg[2] = {0, 0};
    ssize_t got;
    do
        got = read(status_pipe[0], msg, sizeof msg);
    while (got < 0 && errno == EINTR);
    close(status_pipe[0]);
    if (got == (ssize_t)sizeof msg) {
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        if (msg[0] == STEP_CWD)
            return sb_error_set(err, path, NULL, "cannot enter the working folder %s: %s", o->cwd,
                                strerror(msg[1]));
        if (msg[0] == STEP_STREAMS)
            return sb_error_set(err, path, NULL, "cannot redirect the standard streams: %s", strerror(msg[1]));
        return sb_error_set(err, path, NULL, "cannot run: %s", strerror(msg[1]));
    }
    *pid_out = pid;
    return SB_OK;
}

int sb_process_capture(const char *const argv[], const char *const *env, int with_stderr, char *out,
                       size_t size, size_t *total, int *status, sb_error *err)
{
    *total = 0;
    *status = -1;
    if (size)
        out[0] = '\0';
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return sb_error_set(err, argv[0], NULL, "cannot start: pipe: %s", strerror(errno));
    int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int null_out = with_stderr ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_in < 0 || (!with_stderr && null_out < 0)) {
        int e = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        if (null_in >= 0)
            close(null_in);
        return sb_error_set(err, "/dev/null", NULL, "cannot open: %s", strerror(e));
    }
    sb_process_opts o;
    sb_process_opts_init(&o);
    o.in_fd = null_in;
    o.out_fd = pipefd[1];
    o.err_fd = with_stderr ? pipefd[1] : null_out;
    o.env = env;
    pid_t pid;
    int rc = sb_process_start(argv, &o, &pid, err);
    close(pipefd[1]);
    close(null_in);
    if (null_out >= 0)
        close(null_out);
    if (rc != SB_OK) {
        close(pipefd[0]);
        return SB_ERR;
    }
    size_t len = 0;
    for (;;) {
        char buf[4096];
        ssize_t n = read(pipefd[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (size && len < size - 1) {
            size_t keep = (size_t)n < size - 1 - len ? (size_t)n : size - 1 - len;
            memcpy(out + len, buf, keep);
            len += keep;
        }
        *total += (size_t)n;
    }
    close(pipefd[0]);
    if (size)
        out[len] = '\0';
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return sb_error_set(err, argv[0], NULL, "waiting for it: %s", strerror(errno));
    *status = sb_process_status_code(ws);
    return SB_OK;
}
