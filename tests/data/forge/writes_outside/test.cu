/* Hostile: a test that also drops files outside its folder. */
#include <stdio.h>
#include <string.h>

#include "forge_abi.h"

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream);

int main(void)
{
    FILE *f = fopen("/tmp/solbook-forge-escape.txt", "w");
    if (f) {
        fputs("escaped\n", f);
        fclose(f);
    }
    FILE *g = fopen("../../escape.txt", "a");
    if (g)
        fclose(g);
    const char *home = "HOME";
    char path[256];
    snprintf(path, sizeof path, "%s/.bashrc", home);
    FILE *h = fopen(path, "a");
    if (h)
        fclose(h);
    return 0;
}
