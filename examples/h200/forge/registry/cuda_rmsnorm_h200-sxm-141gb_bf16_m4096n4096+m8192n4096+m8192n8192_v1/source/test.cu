/* test.cu - correctness test of rmsnorm_fused_bf16 against the float64
 * host reference of reference.cu, on random inputs, over shapes chosen to
 * hit every path: one element, rows shorter than a warp, N not a multiple
 * of 8 (scalar path), N a multiple of 8 but not of the block's vector span,
 * and rows longer than one block pass. Exit 0 only when every case passes
 * with every output element written. */
#include <stdio.h>
#include <string.h>

#include "forge_abi.h"

extern "C" cudaError_t rmsnorm_fused_bf16(const forge_problem *p, cudaStream_t stream);

int main(void)
{
    static const long long cases[][2] = {
        {1, 1}, {3, 7}, {5, 33}, {2, 4095}, {17, 4104}, {64, 4096}, {3, 8192}, {2, 12288}, {9, 20000},
    };
    int failures = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        forge_shape s;
        memset(&s, 0, sizeof s);
        s.count = 2;
        strcpy(s.names[0], "M");
        strcpy(s.names[1], "N");
        s.values[0] = cases[c][0];
        s.values[1] = cases[c][1];
        forge_problem p;
        char msg[256] = "";
        if (forge_problem_create(&s, 42 + c, &p, msg, sizeof msg) != 0) {
            fprintf(stderr, "M=%lld N=%lld: setup failed: %s\n", cases[c][0], cases[c][1], msg);
            return 1;
        }
        cudaError_t e = forge_poison_outputs(&p, 0);
        if (e == cudaSuccess) e = rmsnorm_fused_bf16(&p, 0);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        forge_check chk;
        memset(&chk, 0, sizeof chk);
        if (e != cudaSuccess) {
            fprintf(stderr, "M=%lld N=%lld: launch failed: %s\n", cases[c][0], cases[c][1], cudaGetErrorString(e));
            failures++;
        } else if (forge_problem_check(&p, &chk, msg, sizeof msg) != 0) {
            fprintf(stderr, "M=%lld N=%lld: check failed to run: %s\n", cases[c][0], cases[c][1], msg);
            failures++;
        } else {
            printf("M=%lld N=%lld: %s max_abs_err=%.3g max_rel_err=%.3g unwritten=%lld\n", cases[c][0],
                   cases[c][1], chk.passed ? "ok" : "FAIL", chk.max_abs_err, chk.max_rel_err, chk.unwritten);
            failures += !chk.passed;
        }
        forge_problem_destroy(&p);
    }
    return failures ? 1 : 0;
}
