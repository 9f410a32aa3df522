/* Sandbox test program: prints what the sandbox gave it, one fact a line:
 * working folder, whether stdin is at EOF, the highest open descriptor,
 * whether SOLBOOK_SECRET is visible, and its soft RLIMIT_NOFILE and
 * RLIMIT_CORE. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <fcntl.h>
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
    return 0;
}
