/* Sandbox test program: prints what the sandbox gave it, one fact a line:
 * working folder, whether stdin is at EOF, the highest open descriptor,
 * whether SOLBOOK_SECRET is visible, its soft RLIMIT_NOFILE and
 * RLIMIT_CORE, and what the CUDA driver needs of it: /proc/self being this
 * process (every CUDA call fails in a pid namespace whose /proc is the
 * host's), a Unix socket, a writable /proc/self/task/TID/comm (it names
 * its threads); then the device of /run (the confined sandbox mounts an
 * empty one over the host's). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fcntl_probe(int fd)
{
    return fcntl(fd, F_GETFD) != -1;
}

int main(void)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return 2;
    int c = getchar();
    int highest = 2;
    for (int fd = 3; fd < 1024; fd++)
        if (fcntl_probe(fd))
            highest = fd;
    struct rlimit nofile, core;
    getrlimit(RLIMIT_NOFILE, &nofile);
    getrlimit(RLIMIT_CORE, &core);
    printf("cwd=%s\nstdin_eof=%d\nhighest_fd=%d\nsecret=%s\nnofile=%llu\ncore=%llu\n", cwd, c == EOF, highest,
           getenv("SOLBOOK_SECRET") ? "visible" : "hidden", (unsigned long long)nofile.rlim_cur,
           (unsigned long long)core.rlim_cur);
    char self[64] = "", pid[32];
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    printf("proc_self_is_me=%d\n", strcmp(self, pid) == 0);
    int us = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    printf("unix_socket=%d\n", us >= 0);
    if (us >= 0)
        close(us);
    char comm[96];
    snprintf(comm, sizeof comm, "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
    FILE *cf = fopen(comm, "w");
    int named = cf && fputs("env_probe", cf) >= 0;
    if (cf && fclose(cf) != 0)
        named = 0;
    printf("comm_writable=%d\n", named);
    struct stat run;
    printf("run_dev=%lu\n", stat("/run", &run) == 0 ? (unsigned long)run.st_dev : 0UL);
    return 0;
}
