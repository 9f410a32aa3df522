/* spawn.c - a program with the manifest on a pipe, or its output captured
 * (started through core/process.h). */
#define _GNU_SOURCE /* pipe2 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process.h"

/* Starts argv with a pipe on its stdin (to_child) or its stdout (else,
 * stdin then from /dev/null); *fd is our end of the pipe. */
static int start_child(const char *const argv[], int to_child, pid_t *pid, int *fd, sb_error *err)
{
    char path[4096];
    if (sb_process_find(argv[0], path, sizeof path) != SB_OK)
        return sb_error_set(err, NULL, NULL, "%s is not installed (not found on PATH)", argv[0]);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return sb_error_set(err, NULL, NULL, "cannot create a pipe to %s: %s", argv[0], strerror(errno));
    int null_fd = -1;
    sb_process_opts o;
    sb_process_opts_init(&o);
    if (to_child) {
        o.in_fd = fds[0];
    } else {
        if ((null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
            int e = errno;
            close(fds[0]);
            close(fds[1]);
            return sb_error_set(err, "/dev/null", NULL, "cannot open: %s", strerror(e));
        }
        o.in_fd = null_fd;
        o.out_fd = fds[1];
    }
    int rc = sb_process_start(argv, &o, pid, err);
    if (null_fd >= 0)
        close(null_fd);
    close(to_child ? fds[0] : fds[1]);
    if (rc != SB_OK) {
        close(to_child ? fds[1] : fds[0]);
        return SB_ERR;
    }
    *fd = to_child ? fds[1] : fds[0];
    return SB_OK;
}

/* Waits for the child (our end of its pipe already closed). */
static int finish_child(pid_t pid, const char *name, int *status, sb_error *err)
{
    int ws;
    pid_t got;
    do
        got = waitpid(pid, &ws, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return sb_error_set(err, NULL, NULL, "waiting for %s: %s", name, strerror(errno));
    *status = sb_process_status_code(ws);
    return SB_OK;
}

int sb_spawn_pipe(const char *const argv[], const char *input, size_t len, int *status, sb_error *err)
{
    pid_t pid;
    int fd;
    *status = -1;
    if (start_child(argv, 1, &pid, &fd, err) != SB_OK)
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
        ssize_t w = write(fd, input + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            write_errno = errno;
            break;
        }
        done += (size_t)w;
    }
    close(fd);
    sigaction(SIGPIPE, &old, NULL);
    if (finish_child(pid, argv[0], status, err) != SB_OK)
        return SB_ERR;
    if (write_errno && *status == 0)
        return sb_error_set(err, NULL, NULL, "%s did not read the whole manifest: %s", argv[0],
                            strerror(write_errno));
    return SB_OK;
}

int sb_spawn_capture(const char *const argv[], char **out, int *status, sb_error *err)
{
    pid_t pid;
    int fd;
    *out = NULL;
    *status = -1;
    if (start_child(argv, 0, &pid, &fd, err) != SB_OK)
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
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0)
                read_errno = errno;
            break;
        }
        len += (size_t)r;
    }
    close(fd); /* a child still writing gets SIGPIPE and ends */
    int rc = finish_child(pid, argv[0], status, err);
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
