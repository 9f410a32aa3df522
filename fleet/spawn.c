/* spawn.c - fork/exec with the manifest on a pipe. */
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

int sb_spawn_pipe(char *const argv[], const char *input, size_t len, int *status, sb_error *err)
{
    char path[4096];
    *status = -1;
    if (sb_spawn_find(argv[0], path, sizeof path) != SB_OK)
        return sb_error_set(err, NULL, NULL, "%s is not installed (not found on PATH)", argv[0]);
    int fds[2];
    if (pipe(fds) != 0)
        return sb_error_set(err, NULL, NULL, "cannot create a pipe to %s: %s", argv[0], strerror(errno));
    /* Report an exec failure through a close-on-exec pipe. */
    int efds[2];
    if (pipe(efds) != 0 || fcntl(efds[1], F_SETFD, FD_CLOEXEC) != 0) {
        close(fds[0]);
        close(fds[1]);
        return sb_error_set(err, NULL, NULL, "cannot create a pipe to %s: %s", argv[0], strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        close(efds[0]);
        close(efds[1]);
        return sb_error_set(err, NULL, NULL, "cannot start %s: fork: %s", argv[0], strerror(e));
    }
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        close(fds[1]);
        close(efds[0]);
        if (dup2(fds[0], STDIN_FILENO) < 0)
            _exit(127);
        close(fds[0]);
        execv(path, argv);
        int e = errno;
        ssize_t w = write(efds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(fds[0]);
    close(efds[1]);
    /* A child that exits early must not kill us with SIGPIPE. */
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    size_t done = 0;
    int write_errno = 0;
    while (done < len) {
        ssize_t w = write(fds[1], input + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            write_errno = errno;
            break;
        }
        done += (size_t)w;
    }
    close(fds[1]);
    sigaction(SIGPIPE, &old, NULL);
    int exec_errno = 0;
    ssize_t r;
    do
        r = read(efds[0], &exec_errno, sizeof exec_errno);
    while (r < 0 && errno == EINTR);
    close(efds[0]);
    int ws;
    pid_t got;
    do
        got = waitpid(pid, &ws, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return sb_error_set(err, NULL, NULL, "waiting for %s: %s", argv[0], strerror(errno));
    if (r == (ssize_t)sizeof exec_errno)
        return sb_error_set(err, NULL, NULL, "cannot run %s: %s", path, strerror(exec_errno));
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
    if (write_errno && *status == 0)
        return sb_error_set(err, NULL, NULL, "%s did not read the whole manifest: %s", argv[0],
                            strerror(write_errno));
    return SB_OK;
}
