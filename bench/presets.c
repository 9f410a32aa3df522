/* presets.c - the preset table of `solbench suite` (see presets.h). */
#include "presets.h"

#include <string.h>

#define SQ(n) {"gemm", "fwd", "fp16", "M=" #n ",N=" #n ",K=" #n, "transa=n,transb=n"}
/* Llama-3-8B projections, y = x W^T (W stored [out, in]: transb = t):
 * hidden 4096, MLP 14336, 32 query heads and 8 KV heads of 128. */
#define LLAMA(m, n, k) {"gemm", "fwd", "bf16", "M=" #m ",N=" #n ",K=" #k, "transa=n,transb=t"}

static const sb_preset_case gemm_sweep[] = {
    SQ(256), SQ(512), SQ(1024), SQ(2048), SQ(4096), SQ(8192), SQ(16384),
    LLAMA(4096, 6144, 4096),  /* fused q, k, v projection */
    LLAMA(4096, 4096, 4096),  /* o projection */
    LLAMA(4096, 28672, 4096), /* fused gate and up projection */
    LLAMA(4096, 4096, 14336), /* down projection */
    LLAMA(8192, 6144, 4096),
    LLAMA(8192, 4096, 4096),
    LLAMA(8192, 28672, 4096),
    LLAMA(8192, 4096, 14336),
};

static const sb_preset_case gemm_spec[] = {
    {"gemm", "fwd", "fp16", "M=4096,N=4096,K=4096", "transa=n,transb=n"},
};

/* Small cases for the CPU path and CI. */
static const sb_preset_case smoke[] = {
    {"gemm", "fwd", "fp16", "M=64,N=48,K=32", "transa=n,transb=n"},
    {"gemm", "fwd", "bf16", "M=32,N=64,K=48", "transa=t,transb=t"},
    {"gemm", "fwd", "fp32", "M=33,N=17,K=29", "transa=n,transb=t"},
    {"stream", "fwd", "fp32", "N=65536", "kernel=triad"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#ifdef SOLBENCH_HAVE_KERNELS
#include "kernels/sbk_presets.h"
#endif

const sb_preset sb_preset_table[] = {
    {"gemm-spec", "the frozen GEMM reference: 4096^3 fp16, every provider", gemm_spec, COUNT(gemm_spec)},
    {"gemm-sweep", "square fp16 GEMMs 256..16384 and Llama-3-8B bf16 projections at 4096 and 8192 tokens",
     gemm_sweep, COUNT(gemm_sweep)},
    {"smoke", "a few small cases of gemm and stream, for the CPU path and CI", smoke, COUNT(smoke)},
#ifdef SOLBENCH_HAVE_KERNELS
    SBK_PRESET_ROWS
#endif
    {NULL, NULL, NULL, 0},
};

const sb_preset *sb_preset_find(const char *name)
{
    for (size_t i = 0; sb_preset_table[i].name; i++)
        if (strcmp(sb_preset_table[i].name, name) == 0)
            return &sb_preset_table[i];
    return NULL;
}
