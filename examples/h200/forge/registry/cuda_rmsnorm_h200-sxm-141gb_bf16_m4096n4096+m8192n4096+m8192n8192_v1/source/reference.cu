/* reference.cu - RMSNorm forward, bf16 in and out, fp32 weight-free math:
 *     y[m, n] = bf16( x[m, n] * rsqrt(mean_n(x[m, :]^2) + eps) * w[n] )
 *
 * The op definition for forge (forge/harness/forge_abi.h): inputs from a
 * seed, the baseline, and the float64 host check.
 *
 * The baseline is the way an eager framework runs it: three kernels with
 * fp32 intermediates in device memory (x.float().pow(2) written out, a
 * row mean with rsqrt, then normalise * weight and cast), so it moves
 * about 2 (read x) + 4 + 4 (fp32 square written, read) + 2 (read x again)
 * + 2 (write y) bytes per element instead of the 6 a fused kernel needs.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forge_abi.h"

#define RMS_EPS 1e-6f

typedef struct host_state {
    long long m, n;
    uint16_t *x, *w;        /* host copies of the inputs (bf16 bits) */
} host_state;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static float uniform(uint64_t *s)
{
    return (float)((splitmix64(s) >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

static uint16_t float_to_bf16_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0;
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static double bf16_bits_to_double(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}

extern "C" int forge_problem_create(const forge_shape *shape, unsigned long long seed,
                                    forge_problem *p, char *msg, size_t msg_size)
{
    long long m = forge_dim(shape, "M"), n = forge_dim(shape, "N");
    if (m < 1 || n < 1 || shape->count != 2) {
        snprintf(msg, msg_size, "rmsnorm needs exactly the dimensions M and N");
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->shape = *shape;
    host_state *h = (host_state *)calloc(1, sizeof *h);
    if (!h) {
        snprintf(msg, msg_size, "out of host memory");
        return -1;
    }
    h->m = m;
    h->n = n;
    size_t elems = (size_t)m * (size_t)n;
    h->x = (uint16_t *)malloc(elems * 2);
    h->w = (uint16_t *)malloc((size_t)n * 2);
    if (!h->x || !h->w) {
        free(h->x);
        free(h->w);
        free(h);
        snprintf(msg, msg_size, "out of host memory for %zu elements", elems);
        return -1;
    }
    uint64_t s = seed;
    for (size_t i = 0; i < elems; i++)
        h->x[i] = float_to_bf16_bits(2.0f * uniform(&s));
    for (long long i = 0; i < n; i++)
        h->w[i] = float_to_bf16_bits(1.0f + 0.25f * uniform(&s));
    p->host_state = h;

    p->input_count = 2;
    p->input_bytes[0] = elems * 2;
    p->input_bytes[1] = (size_t)n * 2;
    p->output_count = 1;
    p->output_bytes[0] = elems * 2;
    p->workspace_bytes = elems * 4 + (size_t)m * 4; /* baseline: fp32 squares and rstd */
    cudaError_t e = cudaMalloc(&p->inputs[0], p->input_bytes[0]);
    if (e == cudaSuccess) e = cudaMalloc(&p->inputs[1], p->input_bytes[1]);
    if (e == cudaSuccess) e = cudaMalloc(&p->outputs[0], p->output_bytes[0]);
    if (e == cudaSuccess) e = cudaMalloc(&p->workspace, p->workspace_bytes);
    if (e == cudaSuccess) e = cudaMemcpy(p->inputs[0], h->x, p->input_bytes[0], cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(p->inputs[1], h->w, p->input_bytes[1], cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        snprintf(msg, msg_size, "device allocation or copy failed: %s", cudaGetErrorString(e));
        forge_problem_destroy(p);
        return -1;
    }
    /* Fewest bytes: read x and w, write y. */
    p->bytes_model = (double)elems * 4.0 + (double)n * 2.0;
    /* square, sum, scale, weight: 4 flops per element. */
    p->flops_model = (double)elems * 4.0;
    return 0;
}

extern "C" void forge_problem_destroy(forge_problem *p)
{
    for (int i = 0; i < p->input_count; i++)
        cudaFree(p->inputs[i]);
    for (int i = 0; i < p->output_count; i++)
        cudaFree(p->outputs[i]);
    cudaFree(p->workspace);
    host_state *h = (host_state *)p->host_state;
    if (h) {
        free(h->x);
        free(h->w);
        free(h);
    }
    memset(p, 0, sizeof *p);
}

__global__ void eager_square(const __nv_bfloat16 *x, float *sq, size_t elems)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < elems; i += (size_t)gridDim.x * blockDim.x) {
        float v = __bfloat162float(x[i]);
        sq[i] = v * v;
    }
}

__global__ void eager_row_rstd(const float *sq, float *rstd, long long n)
{
    __shared__ float part[32];
    const float *row = sq + (size_t)blockIdx.x * (size_t)n;
    float acc = 0.0f;
    for (long long j = threadIdx.x; j < n; j += blockDim.x)
        acc += row[j];
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0)
            rstd[blockIdx.x] = rsqrtf(acc / (float)n + RMS_EPS);
    }
}

__global__ void eager_scale(const __nv_bfloat16 *x, const __nv_bfloat16 *w, const float *rstd,
                            __nv_bfloat16 *y, long long n, size_t elems)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < elems; i += (size_t)gridDim.x * blockDim.x) {
        size_t row = i / (size_t)n, col = i % (size_t)n;
        y[i] = __float2bfloat16(__bfloat162float(x[i]) * rstd[row] * __bfloat162float(w[col]));
    }
}

extern "C" cudaError_t forge_baseline_launch(const forge_problem *p, cudaStream_t stream)
{
    long long m = forge_dim(&p->shape, "M"), n = forge_dim(&p->shape, "N");
    size_t elems = (size_t)m * (size_t)n;
    float *sq = (float *)p->workspace;
    float *rstd = sq + elems;
    unsigned blocks = (unsigned)((elems + 255) / 256 < 65535 * 16 ? (elems + 255) / 256 : 65535 * 16);
    eager_square<<<blocks, 256, 0, stream>>>((const __nv_bfloat16 *)p->inputs[0], sq, elems);
    eager_row_rstd<<<(unsigned)m, 256, 0, stream>>>(sq, rstd, n);
    eager_scale<<<blocks, 256, 0, stream>>>((const __nv_bfloat16 *)p->inputs[0],
                                            (const __nv_bfloat16 *)p->inputs[1], rstd,
                                            (__nv_bfloat16 *)p->outputs[0], n, elems);
    return cudaGetLastError();
}

extern "C" int forge_problem_check(const forge_problem *p, forge_check *out, char *msg,
                                   size_t msg_size)
{
    const host_state *h = (const host_state *)p->host_state;
    size_t elems = (size_t)h->m * (size_t)h->n;
    uint16_t *y = (uint16_t *)malloc(elems * 2);
    if (!y) {
        snprintf(msg, msg_size, "out of host memory");
        return -1;
    }
    cudaError_t e = cudaMemcpy(y, p->outputs[0], elems * 2, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(y);
        snprintf(msg, msg_size, "copy of the output failed: %s", cudaGetErrorString(e));
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->reference, sizeof out->reference, "float64-host");
    /* bf16 output: one rounding of a value near 1 is 2^-9 relative; allow
     * 4 ulp of relative error plus a small absolute floor. */
    out->atol = 1e-2;
    out->rtol = 1.6e-2;
    out->finite = 1;
    double err2 = 0, ref2 = 0;
    for (long long r = 0; r < h->m; r++) {
        const uint16_t *x = h->x + (size_t)r * h->n;
        double ss = 0;
        for (long long j = 0; j < h->n; j++) {
            double v = bf16_bits_to_double(x[j]);
            ss += v * v;
        }
        double rstd = 1.0 / sqrt(ss / (double)h->n + (double)RMS_EPS);
        for (long long j = 0; j < h->n; j++) {
            size_t i = (size_t)r * h->n + j;
            double ref = bf16_bits_to_double(x[j]) * rstd * bf16_bits_to_double(h->w[j]);
            if (y[i] == 0xFFFF) {
                out->unwritten++;
                out->finite = 0;
                continue;
            }
            double got = bf16_bits_to_double(y[i]);
            if (!isfinite(got)) {
                out->finite = 0;
                continue;
            }
            double ad = fabs(got - ref);
            double rd = ad / (fabs(ref) + out->atol);
            if (ad > out->max_abs_err) out->max_abs_err = ad;
            if (rd > out->max_rel_err) out->max_rel_err = rd;
            err2 += ad * ad;
            ref2 += ref * ref;
        }
    }
    out->checked = (long long)elems;
    out->rel_l2_err = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    out->passed = out->finite && out->unwritten == 0 && out->max_rel_err <= out->rtol;
    free(y);
    return 0;
}
