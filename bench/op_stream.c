/* op_stream.c - the STREAM-like bandwidth op used by `solbench roofline`
 * (and runnable alone: `solbench stream --N ... --kernel triad`): fp32
 * arrays of N elements, c = a (copy), s*a (scale), a+b (add), a+s*b
 * (triad), s = 3, and read: c[r] = the sum of row r of 1024 elements of a,
 * the read-only stream whose rate is the ceiling of read-dominated ops. Providers: the project's 16-byte kernels in four access
 * patterns (bench/stream_kernels.h), cudaMemcpyAsync device-to-device
 * (copy only), and host loops.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "stream_kernels.h"

enum { P_KERNEL, P_MEMCPY, P_CPU, P_TILED, P_FLAT1, P_FLAT4 };

static const sb_provider stream_providers[] = {
    {"solbook-stream", SB_BACKEND_CUDA, "float4 grid-stride kernel, 4 loads in flight per thread, 4 blocks of 512 threads per SM"},
    {"cuda-memcpy", SB_BACKEND_CUDA, "cudaMemcpyAsync device to device (copy only)"},
    {"cpu", SB_BACKEND_CPU, "host loop"},
    {"solbook-stream-tiled", SB_BACKEND_CUDA, "float4 kernel over contiguous 32 KiB tiles per block, streaming (evict-first) loads and stores"},
    {"solbook-stream-flat1", SB_BACKEND_CUDA, "float4 kernel without a loop: one 256-thread block per 4 KiB"},
    {"solbook-stream-flat4", SB_BACKEND_CUDA, "float4 kernel without a loop: one 256-thread block per 16 KiB, 4 loads in flight per thread"},
    {NULL, 0, NULL},
};

static const char *const stream_modes[] = {"fwd", NULL};
static const char *const stream_shape_names[] = {"N", NULL};
static const int64_t stream_shape_defaults[] = {(int64_t)1 << 28};
static const int64_t stream_cpu_shape_defaults[] = {(int64_t)1 << 22};
static const sb_param_spec stream_params[] = {
    {"kernel", SB_PARAM_STRING, "copy", "copy|scale|add|triad|read", "which STREAM kernel"},
    {NULL, 0, NULL, NULL, NULL},
};

#define STREAM_COLS 1024
#define STREAM_SCALAR 3.0f

typedef struct stream_state {
    sb_ctx *ctx;
    int64_t n;
    int kind;
    int sets;
    float **a, **b;
    float *c;
    float *ha, *hb; /* host copies of set 0 */
} stream_state;

static int stream_kind(const sb_op_config *cfg)
{
    const char *k = sb_params_get(&cfg->params, "kernel");
    static const char *const names[] = {"copy", "scale", "add", "triad", "read"};
    for (int i = 0; i < 5; i++)
        if (k && strcmp(k, names[i]) == 0)
            return i;
    return -1;
}

static int stream_validate(const sb_op_config *cfg, sb_error *err)
{
    int64_t n = sb_shape_get(&cfg->shape, "N", 0);
    if (n < STREAM_COLS || n % STREAM_COLS)
        return sb_error_set(err, NULL, NULL, "stream: N must be a positive multiple of %d, got %lld", STREAM_COLS,
                            (long long)n);
    if (stream_kind(cfg) < 0)
        return sb_error_set(err, NULL, NULL, "stream: --kernel must be copy, scale, add, triad or read");
    if (cfg->dtype != SB_DTYPE_FP32)
        return sb_error_set(err, NULL, NULL, "stream: dtype must be fp32");
    return SB_OK;
}

static int reads(int kind)
{
    return kind == SB_STREAM_ADD || kind == SB_STREAM_TRIAD ? 2 : 1;
}

/* Floats written: one per element, or one per row for the read kernel. */
static int64_t written(int kind, int64_t n)
{
    return kind == SB_STREAM_READ ? n / SB_STREAM_READ_ROW : n;
}

static double stream_input_set_bytes(const sb_op_config *cfg)
{
    return (double)reads(stream_kind(cfg)) * 4.0 * (double)sb_shape_get(&cfg->shape, "N", 0);
}

static double stream_flops(const sb_op_config *cfg)
{
    int k = stream_kind(cfg);
    double n = (double)sb_shape_get(&cfg->shape, "N", 0);
    return k == SB_STREAM_COPY ? 0.0 : k == SB_STREAM_TRIAD ? 2.0 * n : n; /* read: one add an element */
}

static double stream_bytes(const sb_op_config *cfg)
{
    return stream_input_set_bytes(cfg) + 4.0 * (double)written(stream_kind(cfg), sb_shape_get(&cfg->shape, "N", 0));
}

static void stream_destroy(void *p)
{
    stream_state *s = p;
    if (!s)
        return;
    for (int i = 0; i < s->sets; i++) {
        if (s->a)
            sb_ctx_free(s->ctx, s->a[i]);
        if (s->b)
            sb_ctx_free(s->ctx, s->b[i]);
    }
    sb_ctx_free(s->ctx, s->c);
    free(s->a);
    free(s->b);
    free(s->ha);
    free(s->hb);
    free(s);
}

static int stream_create(const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    stream_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    s->ctx = ctx;
    s->n = sb_shape_get(&cfg->shape, "N", 0);
    s->kind = stream_kind(cfg);
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    size_t bytes = (size_t)s->n * sizeof(float);
    s->a = calloc((size_t)s->sets, sizeof *s->a);
    s->b = calloc((size_t)s->sets, sizeof *s->b);
    s->ha = malloc(bytes);
    s->hb = reads(s->kind) == 2 ? malloc(bytes) : NULL;
    float *tmp = s->sets > 1 ? malloc(bytes) : NULL;
    if (!s->a || !s->b || !s->ha || (reads(s->kind) == 2 && !s->hb) || (s->sets > 1 && !tmp)) {
        free(tmp);
        stream_destroy(s);
        return sb_error_set(err, NULL, NULL, "out of host memory for %zu-byte buffers", bytes);
    }
    for (int i = 0; i < s->sets; i++) {
        float *ha = i == 0 ? s->ha : tmp;
        sb_fill_random(ha, (size_t)s->n, SB_DTYPE_FP32, -1.0, 1.0, cfg->seed, 2 * (uint64_t)i);
        if (sb_ctx_alloc(ctx, (void **)&s->a[i], bytes, err) != SB_OK ||
            sb_ctx_upload(ctx, s->a[i], ha, bytes, err) != SB_OK)
            goto fail;
        if (reads(s->kind) == 2) {
            float *hb = i == 0 ? s->hb : tmp;
            sb_fill_random(hb, (size_t)s->n, SB_DTYPE_FP32, -1.0, 1.0, cfg->seed, 2 * (uint64_t)i + 1);
            if (sb_ctx_alloc(ctx, (void **)&s->b[i], bytes, err) != SB_OK ||
                sb_ctx_upload(ctx, s->b[i], hb, bytes, err) != SB_OK)
                goto fail;
        }
    }
    if (sb_ctx_alloc(ctx, (void **)&s->c, bytes, err) != SB_OK)
        goto fail;
    free(tmp);
    *out = s;
    return SB_OK;
fail:
    free(tmp);
    stream_destroy(s);
    return SB_ERR;
}

static int stream_outputs(void *p, sb_output *outs)
{
    stream_state *s = p;
    if (s->kind == SB_STREAM_READ)
        outs[0] = (sb_output){"c", s->c, SB_DTYPE_FP32, written(s->kind, s->n), 1, 1};
    else
        outs[0] = (sb_output){"c", s->c, SB_DTYPE_FP32, s->n / STREAM_COLS, STREAM_COLS, STREAM_COLS};
    return 1;
}

static int stream_reference_row(void *p, int out, int64_t row, double *ref, double *scale, sb_error *err)
{
    stream_state *s = p;
    (void)out;
    (void)err;
    if (s->kind == SB_STREAM_READ) { /* one sum; its scale is the sum of |terms| */
        double sum = 0.0, mag = 0.0;
        for (int64_t j = 0; j < SB_STREAM_READ_ROW; j++) {
            sum += s->ha[row * SB_STREAM_READ_ROW + j];
            mag += fabs(s->ha[row * SB_STREAM_READ_ROW + j]);
        }
        ref[0] = sum;
        scale[0] = mag;
        return SB_OK;
    }
    for (int64_t j = 0; j < STREAM_COLS; j++) {
        size_t i = (size_t)(row * STREAM_COLS + j);
        double a = s->ha[i], b = s->hb ? s->hb[i] : 0.0;
        switch (s->kind) {
        case SB_STREAM_COPY: ref[j] = a; break;
        case SB_STREAM_SCALE: ref[j] = STREAM_SCALAR * a; break;
        case SB_STREAM_ADD: ref[j] = a + b; break;
        default: ref[j] = a + STREAM_SCALAR * b; break;
        }
        if (s->kind == SB_STREAM_ADD)
            scale[j] = fabs(a) + fabs(b);
        else if (s->kind == SB_STREAM_TRIAD)
            scale[j] = fabs(a) + STREAM_SCALAR * fabs(b);
    }
    return SB_OK;
}

static int64_t stream_check_rows(void *p, int out)
{
    (void)p;
    (void)out;
    return 256;
}

static int stream_supports(void *p, int provider, char *why, size_t n)
{
    stream_state *s = p;
    if (provider == P_MEMCPY && s->kind != SB_STREAM_COPY) {
        snprintf(why, n, "cuda-memcpy: copies only (kernel=copy)");
        return 1;
    }
    return 0;
}

static int stream_run(void *p, int provider, int set, sb_error *err)
{
    stream_state *s = p;
    const float *a = s->a[set], *b = s->b[set] ? s->b[set] : a;
    if (provider == P_CPU) {
        float *c = s->c, k = STREAM_SCALAR;
        int64_t n = s->n;
        switch (s->kind) {
        case SB_STREAM_COPY: memcpy(c, a, (size_t)n * sizeof *c); break;
        case SB_STREAM_SCALE:
            for (int64_t i = 0; i < n; i++)
                c[i] = k * a[i];
            break;
        case SB_STREAM_ADD:
            for (int64_t i = 0; i < n; i++)
                c[i] = a[i] + b[i];
            break;
        case SB_STREAM_READ:
            for (int64_t r = 0; r < n / SB_STREAM_READ_ROW; r++) {
                float sum = 0.0f;
                for (int64_t j = 0; j < SB_STREAM_READ_ROW; j++)
                    sum += a[r * SB_STREAM_READ_ROW + j];
                c[r] = sum;
            }
            break;
        default:
            for (int64_t i = 0; i < n; i++)
                c[i] = a[i] + k * b[i];
            break;
        }
        return SB_OK;
    }
    if (provider == P_MEMCPY) {
        cudaError_t e = cudaMemcpyAsync(s->c, a, (size_t)s->n * sizeof(float), cudaMemcpyDeviceToDevice,
                                        (cudaStream_t)s->ctx->stream);
        if (e != cudaSuccess)
            return sb_error_set(err, NULL, NULL, "cudaMemcpyAsync: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return SB_OK;
    }
    sb_stream_pattern pattern = provider == P_TILED   ? SB_STREAM_TILED
                                : provider == P_FLAT1 ? SB_STREAM_FLAT1
                                : provider == P_FLAT4 ? SB_STREAM_FLAT4
                                                      : SB_STREAM_GRID;
    if (sb_stream_launch((sb_stream_kind)s->kind, pattern, a, b, s->c, s->n, STREAM_SCALAR, s->ctx->sm_count,
                         s->ctx->stream) != 0)
        return sb_error_set(err, NULL, NULL, "stream kernel refused N=%lld", (long long)s->n);
    return sb_ctx_check_launch(s->ctx, "stream kernel launch", err);
}

const sb_op sb_op_stream = {
    .name = "stream",
    .summary = "STREAM-like bandwidth kernels (copy, scale, add, triad, read) over fp32 arrays",
    .modes = stream_modes,
    .providers = stream_providers,
    .shape_names = stream_shape_names,
    .shape_defaults = stream_shape_defaults,
    .params = stream_params,
    .dtypes = SB_DTYPE_BIT(SB_DTYPE_FP32),
    .validate = stream_validate,
    .input_set_bytes = stream_input_set_bytes,
    .model_flops = stream_flops,
    .model_bytes = stream_bytes,
    .create = stream_create,
    .destroy = stream_destroy,
    .outputs = stream_outputs,
    .reference_row = stream_reference_row,
    .check_rows = stream_check_rows,
    .supports = stream_supports,
    .prepare = NULL,
    .run = stream_run,
    .batch_invariance = NULL,
    .provider_params = NULL,
    .cpu_shape_defaults = stream_cpu_shape_defaults,
};
