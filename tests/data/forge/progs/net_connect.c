/* Sandbox test program: connects to 127.0.0.1:PORT (argv[1]); prints
 * "connected" and exits 0, or "connect failed: REASON" and exits 1.
 * With a path for argv[1] it tries the Unix socket files there instead:
 * connects a stream socket to PATH and writes to it, then sends a
 * datagram to PATH.dgram with sendto and one with sendmsg; it prints a
 * line for each ("stream: sent", "sendto: failed: REASON", ...) and exits
 * 0 when any reached its socket, else 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int unix_path(const char *path)
{
    int any = 0;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && write(fd, "stream", 6) == 6) {
        printf("stream: sent\n");
        any = 1;
    } else {
        printf("stream: failed: %s\n", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    snprintf(a.sun_path, sizeof a.sun_path, "%s.dgram", path);
    fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (fd >= 0 && sendto(fd, "sendto", 6, 0, (struct sockaddr *)&a, sizeof a) == 6) {
        printf("sendto: sent\n");
        any = 1;
    } else {
        printf("sendto: failed: %s\n", strerror(errno));
    }
    struct iovec iov = {"sendmsg", 7};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_name = &a;
    m.msg_namelen = sizeof a;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (fd >= 0 && sendmsg(fd, &m, 0) == 7) {
        printf("sendmsg: sent\n");
        any = 1;
    } else {
        printf("sendmsg: failed: %s\n", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    return any ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (argv[1][0] == '/')
        return unix_path(argv[1]);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        printf("connect failed: socket: %s\n", strerror(errno));
        return 1;
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)atoi(argv[1]));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        printf("connect failed: %s\n", strerror(errno));
        return 1;
    }
    printf("connected\n");
    close(fd);
    return 0;
}
