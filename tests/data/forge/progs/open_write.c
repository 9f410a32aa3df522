/* Sandbox test program: opens the file argv[1] for writing and closes it
 * without writing a byte. Prints "opened for writing" and exits 0, or
 * "cannot open: REASON" and exits 1. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int fd = open(argv[1], O_WRONLY);
    if (fd < 0) {
        printf("cannot open: %s\n", strerror(errno));
        return 1;
    }
    close(fd);
    printf("opened for writing\n");
    return 0;
}
