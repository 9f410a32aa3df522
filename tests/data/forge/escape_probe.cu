// escape_probe.cu - what a candidate could try from machine code the scan
// never sees: built by a stand-in nvcc in place of the candidate (hostile.sh
// escape), it runs as the test under the sandbox. The GPU must work; every
// line but the executable mapping and the fork must be refused, and no file
// may appear outside (the setsid grandchild writes 4 s later, after the
// verdict, unless the sandbox kills it).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
extern char **environ;
static void r(const char *what, long rc) { printf("PROBE %-30s %s\n", what, rc >= 0 ? "ALLOWED" : strerror(errno)); fflush(stdout); }
__global__ void fill(float *p) { p[threadIdx.x] = threadIdx.x; }
int main(void) {
    float *d = NULL, h[32];
    cudaError_t ce = cudaMalloc(&d, sizeof h);
    if (ce == cudaSuccess) { fill<<<1, 32>>>(d); ce = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost); }
    printf("GPU %s %s\n", ce == cudaSuccess && h[31] == 31.0f ? "works" : "FAILS", cudaGetErrorString(ce)); fflush(stdout);
    char buf[64];
    signal(SIGPIPE, SIG_IGN); /* a refused socket must not end the probe early */
    long fd = syscall(SYS_openat, AT_FDCWD, "/etc/shadow", O_RDONLY);
    r("read /etc/shadow", fd >= 0 ? read((int)fd, buf, 8) : -1);
    r("open /root", syscall(SYS_openat, AT_FDCWD, "/root", O_RDONLY | O_DIRECTORY));
    r("write /tmp/sbprobe-esc1", syscall(SYS_openat, AT_FDCWD, "/tmp/sbprobe-esc1", O_WRONLY | O_CREAT, 0644));
    for (int i = 0; i < 12; i++) (void)!chdir("..");
    r("write after chdir tmp/sbprobe-esc2", syscall(SYS_openat, AT_FDCWD, "tmp/sbprobe-esc2", O_WRONLY | O_CREAT, 0644));
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a; memset(&a, 0, sizeof a); a.sin_family = AF_INET; a.sin_port = htons(47471);
    a.sin_addr.s_addr = htonl(0x7f000001);
    long c = s >= 0 ? connect(s, (struct sockaddr *)&a, sizeof a) : -1;
    r("connect 127.0.0.1:47471", c);
    if (c == 0) (void)!write(s, "ESCAPED", 7);
    r("socket netlink", socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE));
    r("socket inet6 udp", socket(AF_INET6, SOCK_DGRAM, 0));
    r("unshare user", unshare(CLONE_NEWUSER));
    r("mount tmpfs", mount("none", "/mnt", "tmpfs", 0, NULL));
    r("io_uring_setup", syscall(425, 4, buf));
    r("ptrace attach 1", syscall(SYS_ptrace, 16, 1, 0, 0));
    r("open /proc/1/environ", syscall(SYS_openat, AT_FDCWD, "/proc/1/environ", O_RDONLY));
    r("symlink to /etc/shadow", symlink("/etc/shadow", "/tmp/sbprobe-esc3"));
    unsigned char code[] = {0x48,0xc7,0xc0,0x01,0,0,0, 0x48,0xc7,0xc7,0x01,0,0,0, 0x48,0x8d,0x35,0x0a,0,0,0, 0x48,0xc7,0xc2,0x09,0,0,0, 0x0f,0x05, 0xc3, 'J','I','T','-','R','A','N','!','\n'};
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    r("mmap rwx", m == MAP_FAILED ? -1 : 0);
    if (m != MAP_FAILED) { memcpy(m, code, sizeof code); ((void (*)(void))m)(); }
    pid_t p = fork();
    if (p == 0) { setsid(); if (fork() == 0) { sleep(4); int f = open("/tmp/sbprobe-late", O_WRONLY | O_CREAT, 0644); (void)!write(f, "late", 4); _exit(0);} _exit(0); }
    r("fork+setsid grandchild", p);
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)"touch /tmp/sbprobe-esc4", NULL};
    r("execve /bin/sh", execve("/bin/sh", argv, environ));
    return 0;
}
