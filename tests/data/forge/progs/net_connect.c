/* Sandbox test program: connects to 127.0.0.1:PORT (argv[1]); prints
 * "connected" and exits 0, or "connect failed: REASON" and exits 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
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
