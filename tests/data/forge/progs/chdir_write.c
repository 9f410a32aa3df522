/* Sandbox test program: changes to the folder argv[1] (relative to where
 * it starts, e.g. "..") and writes argv[2] there through a relative path.
 * Exits 0 when written, 1 (printing why) when refused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    if (chdir(argv[1]) != 0) {
        printf("cannot chdir %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    FILE *f = fopen(argv[2], "w");
    if (!f || fputs("written after chdir\n", f) < 0 || fclose(f) != 0) {
        printf("cannot write %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    printf("written\n");
    return 0;
}
