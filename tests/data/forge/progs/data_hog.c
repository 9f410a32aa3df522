/* Sandbox test program: allocates and touches 512 MiB; exits 3 when the
 * allocation is refused (RLIMIT_DATA), 0 when it succeeded. */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    size_t n = (size_t)512 << 20;
    /* volatile: clang drops a malloc whose memory is only set and freed,
     * and the program would exit 0 under any limit. */
    char *volatile p = malloc(n);
    if (!p)
        return 3;
    memset(p, 1, n);
    free(p);
    return 0;
}
