/* Sandbox test program: makes its system calls from machine code copied
 * into an executable mapping, so no call of the C library (and no name a
 * scanner could spot) appears in its source:
 *   connect PORT   socket + connect to 127.0.0.1:PORT + send "leak"
 *   write PATH     create PATH and write a line to it
 *   exec FILE      execve /bin/sh -c 'echo ran > FILE'
 *   userns -       unshare(CLONE_NEWUSER): a nested user namespace
 * Prints "done" and exits 0 when the calls succeed, "refused: ERRNO" and
 * exits 1 when one fails, 77 on a machine it has no machine code for. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/sched.h> /* CLONE_NEWUSER, without _GNU_SOURCE */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

typedef long (*raw_fn)(long nr, long a, long b, long c, long d, long e);

#if defined(__x86_64__)
/* mov rax,rdi; mov rdi,rsi; mov rsi,rdx; mov rdx,rcx; mov r10,r8; mov r8,r9; syscall; ret */
static const unsigned char CODE[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6, 0x48, 0x89, 0xca,
                                     0x4d, 0x89, 0xc2, 0x4d, 0x89, 0xc8, 0x0f, 0x05, 0xc3};
#elif defined(__aarch64__)
/* mov x8,x0; mov x0,x1; mov x1,x2; mov x2,x3; mov x3,x4; mov x4,x5; svc #0; ret */
static const unsigned char CODE[] = {0xe8, 0x03, 0x00, 0xaa, 0xe0, 0x03, 0x01, 0xaa, 0xe1, 0x03, 0x02, 0xaa,
                                     0xe2, 0x03, 0x03, 0xaa, 0xe3, 0x03, 0x04, 0xaa, 0xe4, 0x03, 0x05, 0xaa,
                                     0x01, 0x00, 0x00, 0xd4, 0xc0, 0x03, 0x5f, 0xd6};
#else
#define NO_CODE 1
static const unsigned char CODE[] = {0};
#endif

static int refused(long r)
{
    printf("refused: %ld\n", -r);
    return 1;
}

int main(int argc, char **argv)
{
#ifdef NO_CODE
    (void)argc, (void)argv;
    return 77;
#else
    if (argc != 3)
        return 2;
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return 2;
    memcpy(page, CODE, sizeof CODE);
    if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
        return 2;
    raw_fn sys;
    memcpy(&sys, &page, sizeof sys);
    long r;
    if (strcmp(argv[1], "connect") == 0) {
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons((unsigned short)atoi(argv[2]));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        long fd = sys(SYS_socket, AF_INET, SOCK_STREAM, 0, 0, 0);
        if (fd < 0)
            return refused(fd);
        if ((r = sys(SYS_connect, fd, (long)&a, sizeof a, 0, 0)) < 0)
            return refused(r);
        if ((r = sys(SYS_write, fd, (long)"leak", 4, 0, 0)) < 0)
            return refused(r);
    } else if (strcmp(argv[1], "write") == 0) {
        long fd = sys(SYS_openat, AT_FDCWD, (long)argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644, 0);
        if (fd < 0)
            return refused(fd);
        if ((r = sys(SYS_write, fd, (long)"escaped\n", 8, 0, 0)) < 0)
            return refused(r);
    } else if (strcmp(argv[1], "exec") == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "echo ran > %s", argv[2]);
        const char *sargv[] = {"sh", "-c", cmd, NULL};
        char *senv[] = {NULL};
        r = sys(SYS_execve, (long)"/bin/sh", (long)sargv, (long)senv, 0, 0);
        return refused(r);
    } else if (strcmp(argv[1], "userns") == 0) {
        if ((r = sys(SYS_unshare, CLONE_NEWUSER, 0, 0, 0, 0)) < 0)
            return refused(r);
    } else {
        return 2;
    }
    printf("done\n");
    return 0;
#endif
}
