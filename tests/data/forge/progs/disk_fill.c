/* Sandbox test program: tries to take 4 x 1000 MiB of disk in its working
 * folder at once with fallocate (argv[1] "keep": FALLOC_FL_KEEP_SIZE,
 * which RLIMIT_FSIZE does not see), then with plain writes where
 * fallocate fails. Prints "allocated N" (bytes the files hold on disk)
 * and exits 0 only if all 4000 MiB were taken. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_BYTES (1000LL << 20)

int main(int argc, char **argv)
{
    int mode = argc > 1 && strcmp(argv[1], "keep") == 0 ? FALLOC_FL_KEEP_SIZE : 0;
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    long long allocated = 0;
    int all = 1;
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "fill%d.bin", i);
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            all = 0;
            continue;
        }
        if (fallocate(fd, mode, 0, FILE_BYTES) != 0) {
            all = 0;
            for (long long done = 0; done < FILE_BYTES; done += (long long)sizeof chunk)
                if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
                    break;
        }
        struct stat st;
        if (fstat(fd, &st) == 0)
            allocated += (long long)st.st_blocks * 512;
        close(fd);
    }
    printf("allocated %lld\n", allocated);
    return all ? 0 : 1;
}
