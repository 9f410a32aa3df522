/* Sandbox test program: writes one line to the file argv[1]; exits 0 when
 * it was written, 1 (printing why) when it was refused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs("written by the candidate\n", f) < 0 || fclose(f) != 0) {
        printf("cannot write %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    return 0;
}
