/* spawn.c - fork/exec with the manifest on a pipe, or the output captured. */
#include "spawn.h"

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

int sb_spawn_find(const char *prog, char *out, size_t size)
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

/* A started child: its pid, our end of its pipe, and the close-on-exec
 * pipe through which it reports an exec failure. */
typedef struct child {
    pid_t pid;
    int fd;      /* its stdin (we write) or its stdout (we read) */
    int exec_fd;
    char path[4096];
} child;

/* Starts argv with a pipe on its stdin (to_child) or its stdout (else,
 * stdin then from /dev/null). */
static int start_child(char *const argv[], int to_child, child *c, sb_error *err)
{
    if (sb_spawn_find(argv[0], c->path, sizeof c->path) != SB_OK)
        return sb_error_set(err, NULL, NULL, "%s is not installed (not found on PATH)", argv[0]);
    int fds[2], efds[2];
    if (pipe(fds) != 0)
        return sb_error_set(err, NULL, NULL, "cannot create a pipe to %s: %s", argv[0], strerror(errno));
    if (pipe(efds) != 0 || fcntl(efds[1], F_SETFD, FD_CLOEXEC) != 0) {
        close(fds[0]);
        close(fds[1]);
        return sb_error_set(err, NULL, NULL, "cannot create a pipe to %s: %s", argv[0], strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    c->pid = fork();
    if (c->pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        close(efds[0]);
        close(efds[1]);
        return sb_error_set(err, NULL, NULL, "cannot start %s: fork: %s", argv[0], strerror(e));
    }
    if (c->pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        close(efds[0]);
        int ok;
        if (to_child) {
            close(fds[1]);
            ok = dup2(fds[0], STDIN_FILENO) >= 0;
            close(fds[0]);
        } else {
            close(fds[0]);
            int null = open("/dev/null", O_RDONLY);
            ok = null >= 0 && dup2(null, STDIN_FILENO) >= 0 && dup2(fds[1], STDOUT_FILENO) >= 0;
            close(fds[1]);
        }
        if (!ok)
            _exit(127);
        execv(c->path, argv);
        int e = errno;
        ssize_t w = write(efds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(to_child ? fds[0] : fds[1]);
    close(efds[1]);
    c->fd = to_child ? fds[1] : fds[0];
    c->exec_fd = efds[0];
    return SB_OK;
}

/* Waits for the child (our end of its pipe already closed): its exit
 * status (128 + N when killed by signal N), or SB_ERR when exec failed. */
static int finish_child(child *c, const char *name, int *status, sb_error *err)
{
    int exec_errno = 0;
    ssize_t r;
    do
        r = read(c->exec_fd, &exec_errno, sizeof exec_errno);
    while (r < 0 && errno == EINTR);
    close(c->exec_fd);
    int ws;
    pid_t got;
    do
        got = waitpid(c->pid, &ws, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return sb_error_set(err, NULL, NULL, "waiting for %s: %s", name, strerror(errno));
    if (r == (ssize_t)sizeof exec_errno)
        return sb_error_set(err, NULL, NULL, "cannot run %s: %s", c->path, strerror(exec_errno));
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
    return SB_OK;
}

int sb_spawn_pipe(char *const argv[], const char *input, size_t len, int *status, sb_error *err)
{
    child c;
    *status = -1;
    if (start_child(argv, 1, &c, err) != SB_OK)
        return SB_ERR;
    /* A child that exits early must not kill us with SIGPIPE. */
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    size_t done = 0;
    int write_errno = 0;
    while (done < len) {
        ssize_t w = write(c.fd, input + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            write_errno = errno;
            break;
        }
        done += (size_t)w;
    }
    close(c.fd);
    sigaction(SIGPIPE, &old, NULL);
    if (finish_child(&c, argv[0], status, err) != SB_OK)
        return SB_ERR;
    if (write_errno && *status == 0)
        return sb_error_set(err, NULL, NULL, "%s did not read the whole manifest: %s", argv[0],
                            strerror(write_errno));
    return SB_OK;
}

int sb_spawn_capture(char *const argv[], char **out, int *status, sb_error *err)
{
    child c;
    *out = NULL;
    *status = -1;
    if (start_child(argv, 0, &c, err) != SB_OK)
        return SB_ERR;
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    int read_errno = buf ? 0 : ENOMEM;
    while (buf) {
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                read_errno = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(c.fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0)
                read_errno = errno;
            break;
        }
        len += (size_t)r;
    }
    close(c.fd); /* a child still writing gets SIGPIPE and ends */
    int rc = finish_child(&c, argv[0], status, err);
    if (rc == SB_OK && read_errno)
        rc = sb_error_set(err, NULL, NULL, "reading the output of %s: %s", argv[0], strerror(read_errno));
    if (rc != SB_OK) {
        free(buf);
        return SB_ERR;
    }
    buf[len] = '\0';
    *out = buf;
    return SB_OK;
}
