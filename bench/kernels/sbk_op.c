/* sbk_op.c - shared pieces of the bench/kernels/ ops (see sbk_op.h). */
#include "sbk_op.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "host_parallel.h"
#include "random_fill.h"

const sb_provider sbk_providers[] = {
    {"reference", SB_BACKEND_CUDA,
     "Hugging Face eager code as PyTorch eager runs it: one kernel per elementary op, fp32 intermediates"},
    {"fused", SB_BACKEND_CUDA,
     "solbook fused kernels: a block per row, 16-byte vectors, fp32 math, warp-shuffle reductions"},
    {"cpu", SB_BACKEND_CPU, "host C, fp32 math, the fused provider's semantics"},
    {NULL, 0, NULL},
};

sbk_dtype sbk_from_sb(sb_dtype d)
{
    return d == SB_DTYPE_FP16 ? SBK_F16 : d == SB_DTYPE_BF16 ? SBK_BF16 : SBK_F32;
}

static int alloc_sets(sb_ctx *ctx, sbk_tensor *t, int sets, sb_dtype dt, size_t n, sb_error *err)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->n = n;
    t->sets = sets < 1 ? 1 : sets;
    t->dev = calloc((size_t)t->sets, sizeof *t->dev);
    if (!t->dev)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    for (int i = 0; i < t->sets; i++)
        if (sb_ctx_alloc(ctx, &t->dev[i], n * sb_dtype_size(dt), err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

/* Every set made on the device; -1 when the dtype is not made there. */
static int random_on_device(sb_ctx *ctx, sbk_tensor *t, sb_error *err)
{
    for (int i = 0; i < t->sets; i++) {
        int e = sb_fill_random_device(t->dev[i], t->n, t->dtype, t->lo, t->hi, t->seed,
                                      t->stream + 1000u * (uint64_t)i, ctx->stream);
        if (e < 0)
            return -1;
        if (e != 0)
            return sbk_cuda_error(err, "random input on the device", (cudaError_t)e);
    }
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)ctx->stream);
    if (e != cudaSuccess)
        return sbk_cuda_error(err, "random input on the device", e);
    t->generated = 1;
    return SB_OK;
}

int sbk_tensor_random(sb_ctx *ctx, sbk_tensor *t, int sets, sb_dtype dt, size_t n, double lo,
                      double hi, uint64_t seed, uint64_t stream, sb_error *err)
{
    if (alloc_sets(ctx, t, sets, dt, n, err) != SB_OK)
        return SB_ERR;
    t->lo = lo;
    t->hi = hi;
    t->seed = seed;
    t->stream = stream;
    if (!ctx->device_is_cpu) {
        int rc = random_on_device(ctx, t, err);
        if (rc != -1)
            return rc;
    }
    size_t bytes = n * sb_dtype_size(dt);
    t->host = malloc(bytes ? bytes : 1);
    void *tmp = t->sets > 1 ? malloc(bytes ? bytes : 1) : NULL;
    if (!t->host || (t->sets > 1 && !tmp)) {
        free(tmp);
        return sb_error_set(err, NULL, NULL, "out of host memory for a %zu-byte input", bytes);
    }
    for (int i = 0; i < t->sets; i++) {
        void *h = i == 0 ? t->host : tmp;
        sb_fill_random(h, n, dt, lo, hi, seed, stream + 1000u * (uint64_t)i);
        if (sb_ctx_upload(ctx, t->dev[i], h, bytes, err) != SB_OK) {
            free(tmp);
            return SB_ERR;
        }
    }
    free(tmp);
    return SB_OK;
}

int sbk_tensor_from_host(sb_ctx *ctx, sbk_tensor *t, int sets, sb_dtype dt, size_t n, void *host,
                         sb_error *err)
{
    if (alloc_sets(ctx, t, sets, dt, n, err) != SB_OK) {
        free(host);
        return SB_ERR;
    }
    t->host = host;
    for (int i = 0; i < t->sets; i++)
        if (sb_ctx_upload(ctx, t->dev[i], host, n * sb_dtype_size(dt), err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

int sbk_tensor_output(sb_ctx *ctx, sbk_tensor *t, sb_dtype dt, size_t n, sb_error *err)
{
    return alloc_sets(ctx, t, 1, dt, n, err);
}

void sbk_tensor_free(sb_ctx *ctx, sbk_tensor *t)
{
    if (t->dev)
        for (int i = 0; i < t->sets; i++)
            if (t->dev[i])
                sb_ctx_free(ctx, t->dev[i]);
    free(t->dev);
    free(t->host);
    memset(t, 0, sizeof *t);
}

double sbk_h(const sbk_tensor *t, size_t i)
{
    if (t->host)
        return sb_load_elem(t->host, i, t->dtype);
    return sb_random_value(i, t->dtype, t->lo, t->hi, t->seed, t->stream);
}

void *sbk_dev(const sbk_tensor *t, int set)
{
    return t->dev ? t->dev[set < 0 ? 0 : set % t->sets] : NULL;
}

uint64_t sbk_mix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sbk_parallel(int parts, void (*fn)(void *arg, int part), void *arg)
{
    sb_host_parallel(parts, 16, fn, arg);
}

void sbk_part_rows(int64_t M, int parts, int p, int64_t *r0, int64_t *r1)
{
    *r0 = M * p / parts;
    *r1 = M * (p + 1) / parts;
}

int sbk_targets(sb_ctx *ctx, sbk_tensor *t, int sets, int64_t M, int64_t V, double ignore_frac,
                uint64_t seed, sb_error *err)
{
    int64_t *h = malloc((size_t)M * sizeof *h);
    if (!h)
        return sb_error_set(err, NULL, NULL, "out of host memory for %lld targets", (long long)M);
    uint64_t st = seed ^ 0x7461726765747321ull;
    for (int64_t r = 0; r < M; r++) {
        uint64_t a = sbk_mix(&st), b = sbk_mix(&st);
        double u = (double)(a >> 11) * 0x1.0p-53;
        h[r] = (r > 0 && u < ignore_frac) ? SBK_IGNORE_INDEX : (int64_t)(b % (uint64_t)V);
    }
    /* int64 has no sb_dtype: carried as fp64-sized elements */
    if (alloc_sets(ctx, t, sets, SB_DTYPE_FP64, (size_t)M, err) != SB_OK) {
        free(h);
        return SB_ERR;
    }
    t->host = h;
    for (int i = 0; i < t->sets; i++)
        if (sb_ctx_upload(ctx, t->dev[i], h, (size_t)M * sizeof *h, err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

int64_t sbk_target(const sbk_tensor *t, int64_t r)
{
    return ((const int64_t *)t->host)[r];
}

int sbk_scratch_get(sb_ctx *ctx, sbk_scratch *s, int provider, size_t bytes, sb_error *err)
{
    if (s->ptr && s->provider == provider && s->bytes >= bytes)
        return SB_OK;
    if (s->ptr)
        sb_ctx_free(ctx, s->ptr);
    s->ptr = NULL;
    s->bytes = 0;
    s->provider = -1;
    if (sb_ctx_alloc(ctx, &s->ptr, bytes, err) != SB_OK)
        return SB_ERR;
    s->bytes = bytes;
    s->provider = provider;
    return SB_OK;
}

void sbk_scratch_drop(sb_ctx *ctx, sbk_scratch *s, int provider)
{
    if (s->ptr && s->provider != provider) {
        sb_ctx_free(ctx, s->ptr);
        s->ptr = NULL;
        s->bytes = 0;
        s->provider = -1;
    }
}

int sbk_weight_dtype(const sb_op_config *cfg, const char *op, sb_dtype *out, sb_error *err)
{
    const char *w = sb_params_get(&cfg->params, "weight_dtype");
    if (!w || strcmp(w, "same") == 0) {
        *out = cfg->dtype;
        return SB_OK;
    }
    if (strcmp(w, "fp32") == 0) {
        *out = SB_DTYPE_FP32;
        return SB_OK;
    }
    return sb_error_set(err, NULL, NULL, "%s: --weight_dtype must be same or fp32, got %s", op, w);
}

int sbk_cuda_error(sb_error *err, const char *what, cudaError_t e)
{
    return sb_error_set(err, NULL, NULL, "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

int sbk_cublas_error(sb_error *err, const char *what, cublasStatus_t st)
{
    return sb_error_set(err, NULL, NULL, "%s: cuBLAS status %d", what, (int)st);
}

int64_t sbk_free_device_bytes(const sb_ctx *ctx)
{
    if (ctx->device_is_cpu)
        return -1;
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return (int64_t)fr;
}

int sbk_check_dims(const sb_op_config *cfg, const char *op, const char *const *names, sb_error *err)
{
    for (int i = 0; names[i]; i++) {
        int64_t v = sb_shape_get(&cfg->shape, names[i], 0);
        if (v <= 0 || v >= ((int64_t)1 << 31))
            return sb_error_set(err, NULL, NULL, "%s: --%s must be in 1..2147483647, got %lld", op,
                                names[i], (long long)v);
    }
    return SB_OK;
}

static double atol_of(sb_dtype dt)
{
    double atol = 0, rtol = 0;
    sb_tolerance(dt, &atol, &rtol);
    return atol > 0 ? atol : 1e-12;
}

double sbk_flip_scale(sb_dtype dt, double g)
{
    /* an ulp of g: at most 2u|g| where g is normal in dt, the subnormal
     * step below (fp16's 2^-24 matters: a gradient of 1e-6 is subnormal) */
    const double u = dt == SB_DTYPE_BF16 ? 0x1.0p-8 : dt == SB_DTYPE_FP16 ? 0x1.0p-11 : 0x1.0p-24;
    const double sub = dt == SB_DTYPE_FP16 ? 0x1.0p-24 : dt == SB_DTYPE_BF16 ? 0x1.0p-133 : 0x1.0p-149;
    const double step = 2.0 * u * fabs(g);
    return (step > sub ? step : sub) / atol_of(dt);
}

void sbk_scale_floor(double *scale, int64_t n, sb_dtype out_dt)
{
    double step = out_dt == SB_DTYPE_FP16 ? 0x1.0p-24 : out_dt == SB_DTYPE_BF16 ? 0x1.0p-133 : 0x1.0p-149;
    double f = step / atol_of(out_dt);
    for (int64_t i = 0; i < n; i++)
        scale[i] += f;
}
