/* Sandbox test program: prints what the sandbox gave it, one fact a line:
 * working folder, whether stdin is at EOF, the highest open descriptor,
 * whether SOLBOOK_SECRET is visible, its soft RLIMIT_NOFILE and
 * RLIMIT_CORE, and whether /proc/self is this process (the NVIDIA driver
 * fails every CUDA call in a pid namespace whose /proc is the host's). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <string.h>
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
    return 0;
}
