/* Sandbox test program: makes up to argv[1] empty files in its working
 * folder (a tmpfs's bytes bound does not count them) and prints "made N",
 * the number it could make. Exits 0 either way, so that what it made is
 * copied back to the host. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long want = argc > 1 ? atol(argv[1]) : 0, made = 0;
    for (; made < want; made++) {
        char name[32];
        snprintf(name, sizeof name, "e%ld", made);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0)
            break;
        close(fd);
    }
    printf("made %ld\n", made);
    return 0;
}
