/* Sandbox test program: reads the file or lists the folder argv[1].
 * Prints "read N bytes" / "listed N entries" and exits 0, or "cannot read:
 * REASON" and exits 1. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    struct stat st;
    if (stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(argv[1]);
        if (!d) {
            printf("cannot read: %s\n", strerror(errno));
            return 1;
        }
        int n = 0;
        while (readdir(d))
            n++;
        closedir(d);
        printf("listed %d entries\n", n);
        return 0;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        printf("cannot read: %s\n", strerror(errno));
        return 1;
    }
    char buf[4096];
    size_t total = 0, n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        total += n;
    fclose(f);
    printf("read %zu bytes\n", total);
    return 0;
}
