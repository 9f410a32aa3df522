/* Sandbox test program: tries to write a 64 MiB file in its working
 * folder; exits 0 only if every byte was written. */
#include <stdio.h>
#include <string.h>

int main(void)
{
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    FILE *f = fopen("huge.bin", "wb");
    if (!f)
        return 2;
    for (int i = 0; i < 64; i++)
        if (fwrite(chunk, 1, sizeof chunk, f) != sizeof chunk || fflush(f) != 0)
            return 3;
    return fclose(f) == 0 ? 0 : 4;
}
