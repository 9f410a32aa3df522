/* harness.c - execution context, correctness checks, determinism probes and
 * timed samples for one op case. Host code in C over the CUDA runtime API. */
#include "harness.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvml.h"
#include "output_scan.h"
#include "stream_hold.h"

/* ------------------------------------------------------------ tolerances */
/* The one tolerance table (docs/TOLERANCES.md explains each row). The check
 * is |out - ref| <= atol * scale + rtol * |ref|, scale being the magnitude
 * the op's reference gives (sum of |terms| for dot products, 1 otherwise). */
static const struct {
    sb_dtype dtype;
    double atol, rtol;
} tolerance_table[] = {
    {SB_DTYPE_FP64, 1e-12, 1e-12},
    {SB_DTYPE_FP32, 1e-5, 1e-5},
    {SB_DTYPE_TF32, 1e-4, 1e-3},
    {SB_DTYPE_FP16, 1e-4, 2e-3},
    {SB_DTYPE_BF16, 1e-4, 1.6e-2},
    {SB_DTYPE_FP8E4M3, 1e-4, 1.6e-2}, /* fp8 inputs are exact; the output is bf16 */
};

void sb_tolerance(sb_dtype d, double *atol, double *rtol)
{
    for (size_t i = 0; i < sizeof tolerance_table / sizeof tolerance_table[0]; i++)
        if (tolerance_table[i].dtype == d) {
            *atol = tolerance_table[i].atol;
            *rtol = tolerance_table[i].rtol;
            return;
        }
    *atol = 0;
    *rtol = 0;
}

/* ------------------------------------------------------------- context */
typedef struct ctx_impl {
    char name[256];
    char uuid[64];
    int64_t total_memory;
    void *flush_buf;           /* L2 flush buffer (not counted) */
    size_t flush_bytes;
    void *scan_buf;            /* output scan's 3 counters (not counted) */
    sb_stream_hold *hold;      /* holds the timed launches (made on first use) */
    /* allocation sizes, so free can subtract */
    void **ptrs;
    size_t *sizes;
    size_t count, cap;
} ctx_impl;

static int cuda_fail(sb_error *err, const char *what, cudaError_t e)
{
    return sb_error_set(err, NULL, NULL, "%s: %s: %s", what, cudaGetErrorName(e),
                        cudaGetErrorString(e));
}

static void cpu_model_name(char *buf, size_t size)
{
    snprintf(buf, size, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = 0;
                if (*c)
                    snprintf(buf, size, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

int sb_ctx_open(sb_ctx *ctx, int device_is_cpu, int device_index, sb_error *err)
{
    memset(ctx, 0, sizeof *ctx);
    ctx_impl *im = calloc(1, sizeof *im);
    if (!im)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    ctx->impl = im;
    ctx->device_is_cpu = device_is_cpu;
    ctx->device_index = device_is_cpu ? 0 : device_index;
    if (device_is_cpu) {
        cpu_model_name(im->name, sizeof im->name);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        ctx->sm_count = n > 0 ? (int)n : 1;
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        ctx->l2_bytes = l3 > 0 ? l3 : (l2 > 0 ? l2 : 32l << 20);
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        im->total_memory = pages > 0 && psize > 0 ? (int64_t)pages * psize : -1;
        return SB_OK;
    }
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        sb_ctx_close(ctx);
        return sb_error_set(err, NULL, NULL,
                            "no CUDA device found (cudaGetDeviceCount: %s); use "
                            "--device cpu for the CPU path",
                            e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    }
    if (device_index < 0 || device_index >= count) {
        sb_ctx_close(ctx);
        return sb_error_set(err, NULL, NULL, "--device %d: this host has %d CUDA device%s",
                            device_index, count, count == 1 ? "" : "s");
    }
    if ((e = cudaSetDevice(device_index)) != cudaSuccess) {
        sb_ctx_close(ctx);
        return cuda_fail(err, "cudaSetDevice", e);
    }
    struct cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, device_index)) != cudaSuccess) {
        sb_ctx_close(ctx);
        return cuda_fail(err, "cudaGetDeviceProperties", e);
    }
    snprintf(im->name, sizeof im->name, "%s", prop.name);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(im->uuid, sizeof im->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
             u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    im->total_memory = (int64_t)prop.totalGlobalMem;
    ctx->cc_major = prop.major;
    ctx->cc_minor = prop.minor;
    ctx->sm_count = prop.multiProcessorCount;
    ctx->l2_bytes = prop.l2CacheSize;
    cudaStream_t s;
    if ((e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) != cudaSuccess) {
        sb_ctx_close(ctx);
        return cuda_fail(err, "cudaStreamCreate", e);
    }
    ctx->stream = s;
    return SB_OK;
}

void sb_ctx_close(sb_ctx *ctx)
{
    ctx_impl *im = ctx->impl;
    if (!im)
        return;
    if (im->flush_buf) {
        if (ctx->device_is_cpu)
            free(im->flush_buf);
        else
            cudaFree(im->flush_buf);
    }
    if (im->scan_buf)
        cudaFree(im->scan_buf);
    sb_stream_hold_close(im->hold);
    for (size_t i = 0; i < im->count; i++) {
        if (!im->ptrs[i])
            continue;
        if (ctx->device_is_cpu)
            free(im->ptrs[i]);
        else
            cudaFree(im->ptrs[i]);
    }
    free(im->ptrs);
    free(im->sizes);
    if (!ctx->device_is_cpu && ctx->stream)
        cudaStreamDestroy(ctx->stream);
    free(im);
    ctx->impl = NULL;
}

void sb_ctx_device_name(const sb_ctx *ctx, char *buf, size_t size)
{
    const ctx_impl *im = ctx->impl;
    snprintf(buf, size, "%s", im ? im->name : "unknown");
}

void sb_ctx_device_uuid(const sb_ctx *ctx, char *buf, size_t size)
{
    const ctx_impl *im = ctx->impl;
    snprintf(buf, size, "%s", im && !ctx->device_is_cpu ? im->uuid : "");
}

int64_t sb_ctx_total_memory(const sb_ctx *ctx)
{
    const ctx_impl *im = ctx->impl;
    return im ? im->total_memory : -1;
}

void sb_cuda_runtime_version(char *buf, size_t size)
{
    int v = 0;
    if (cudaRuntimeGetVersion(&v) != cudaSuccess || v <= 0)
        snprintf(buf, size, "unknown");
    else
        snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

int sb_ctx_alloc(sb_ctx *ctx, void **ptr, size_t bytes, sb_error *err)
{
    ctx_impl *im = ctx->impl;
    *ptr = NULL;
    if (bytes == 0)
        bytes = 1;
    if (im->count == im->cap) {
        size_t cap = im->cap ? im->cap * 2 : 32;
        void **p = realloc(im->ptrs, cap * sizeof *p);
        if (!p)
            return sb_error_set(err, NULL, NULL, "out of host memory");
        im->ptrs = p;
        size_t *s = realloc(im->sizes, cap * sizeof *s);
        if (!s)
            return sb_error_set(err, NULL, NULL, "out of host memory");
        im->sizes = s;
        im->cap = cap;
    }
    if (ctx->device_is_cpu) {
        void *p = NULL;
        if (posix_memalign(&p, 256, bytes) != 0 || !p)
            return sb_error_set(err, NULL, NULL, "out of host memory allocating %zu bytes",
                                bytes);
        *ptr = p;
    } else {
        cudaError_t e = cudaMalloc(ptr, bytes);
        if (e != cudaSuccess) {
            *ptr = NULL;
            cudaGetLastError();
            if (e == cudaErrorMemoryAllocation)
                return sb_error_set(err, NULL, NULL,
                                    "out of device memory allocating %zu bytes (%.2f GB "
                                    "already allocated by this case)",
                                    bytes, (double)ctx->live_bytes / 1e9);
            return cuda_fail(err, "cudaMalloc", e);
        }
    }
    im->ptrs[im->count] = *ptr;
    im->sizes[im->count] = bytes;
    im->count++;
    ctx->live_bytes += (int64_t)bytes;
    if (ctx->live_bytes > ctx->peak_bytes)
        ctx->peak_bytes = ctx->live_bytes;
    return SB_OK;
}

void sb_ctx_free(sb_ctx *ctx, void *ptr)
{
    ctx_impl *im = ctx->impl;
    if (!ptr || !im)
        return;
    for (size_t i = 0; i < im->count; i++) {
        if (im->ptrs[i] == ptr) {
            ctx->live_bytes -= (int64_t)im->sizes[i];
            im->ptrs[i] = im->ptrs[im->count - 1];
            im->sizes[i] = im->sizes[im->count - 1];
            im->count--;
            if (ctx->device_is_cpu)
                free(ptr);
            else
                cudaFree(ptr);
            return;
        }
    }
}

int sb_ctx_upload(sb_ctx *ctx, void *dev, const void *host, size_t bytes, sb_error *err)
{
    if (ctx->device_is_cpu) {
        memcpy(dev, host, bytes);
        return SB_OK;
    }
    cudaError_t e = cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? SB_OK : cuda_fail(err, "cudaMemcpy to device", e);
}

int sb_ctx_download(sb_ctx *ctx, void *host, const void *dev, size_t bytes, sb_error *err)
{
    if (ctx->device_is_cpu) {
        memcpy(host, dev, bytes);
        return SB_OK;
    }
    cudaError_t e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess)
        return cuda_fail(err, "kernel execution", e);
    e = cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? SB_OK : cuda_fail(err, "cudaMemcpy to host", e);
}

int sb_ctx_check_launch(sb_ctx *ctx, const char *what, sb_error *err)
{
    if (ctx->device_is_cpu)
        return SB_OK;
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? SB_OK : cuda_fail(err, what, e);
}

static int ctx_sync(sb_ctx *ctx, sb_error *err)
{
    if (ctx->device_is_cpu)
        return SB_OK;
    cudaError_t e = cudaStreamSynchronize(ctx->stream);
    return e == cudaSuccess ? SB_OK : cuda_fail(err, "kernel execution", e);
}

static int ctx_memset(sb_ctx *ctx, void *p, int value, size_t bytes, sb_error *err)
{
    if (ctx->device_is_cpu) {
        memset(p, value, bytes);
        return SB_OK;
    }
    cudaError_t e = cudaMemsetAsync(p, value, bytes, ctx->stream);
    return e == cudaSuccess ? SB_OK : cuda_fail(err, "cudaMemsetAsync", e);
}

/* The L2 flush buffer: 2 x L2, written before every cold sample. Allocated
 * outside the tracking allocator (it is not part of the measured call). */
static int ctx_flush_l2(sb_ctx *ctx, int round, sb_error *err)
{
    ctx_impl *im = ctx->impl;
    if (!im->flush_buf) {
        size_t bytes = (size_t)(ctx->l2_bytes > 0 ? ctx->l2_bytes : (32 << 20)) * 2;
        if (ctx->device_is_cpu) {
            im->flush_buf = malloc(bytes);
            if (!im->flush_buf)
                return sb_error_set(err, NULL, NULL, "out of host memory (L2 flush buffer)");
        } else {
            cudaError_t e = cudaMalloc(&im->flush_buf, bytes);
            if (e != cudaSuccess) {
                im->flush_buf = NULL;
                cudaGetLastError();
                return cuda_fail(err, "cudaMalloc (L2 flush buffer)", e);
            }
        }
        im->flush_bytes = bytes;
    }
    return ctx_memset(ctx, im->flush_buf, round & 0xff, im->flush_bytes, err);
}

static double host_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A run under a profiler is timed with the profiler's replays and
 * serialisation in it: the result says so, and solbook keeps such runs out
 * of every timing comparison. */
static const char *profiler_from_env(void)
{
    const char *named = getenv("SOLBENCH_PROFILER");
    if (named && strcmp(named, "ncu") == 0)
        return "ncu";
    if (named && strcmp(named, "nsys") == 0)
        return "nsys";
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && (strstr(inj, "nsight-compute") || strstr(inj, "Nsight Compute")))
        return "ncu";
    if (inj && (strstr(inj, "nsight-systems") || strstr(inj, "Nsight Systems")))
        return "nsys";
    return NULL;
}

void sb_protocol_defaults(sb_protocol_opts *p)
{
    memset(p, 0, sizeof *p);
    p->profiler = profiler_from_env();
    p->warmup_iters = 10;
    p->warmup_ms = 0;
    p->iters = 50;
    p->repeats = 5;
    p->max_check_rows = 256;
}

void sb_measurement_free(sb_measurement *m)
{
    free(m->samples);
    json_decref(m->clocks_before);
    json_decref(m->clocks_after);
    json_decref(m->repeat_clocks);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- cases */
typedef struct case_output {
    sb_output desc;
    int64_t nrows;             /* sampled rows */
    int64_t *rows;
    double *ref;               /* nrows x cols */
    double *scale;             /* nrows x cols */
    unsigned char *sampled;    /* the sampled rows of the last checked run */
    sb_output_scan scan;       /* the whole output, last checked run */
    size_t bytes;
} case_output;

struct sb_case {
    const sb_op *op;
    sb_op_config cfg;
    sb_ctx *ctx;
    void *state;
    int nout;
    case_output out[SB_MAX_OUTPUTS];
    int64_t base_bytes;        /* one input set + outputs */
};

const sb_op_config *sb_case_config(const sb_case *c)
{
    return &c->cfg;
}

static int decide_input_sets(const sb_op *op, const sb_op_config *cfg, const sb_ctx *ctx,
                             const sb_protocol_opts *opts)
{
    if (opts->input_sets > 0)
        return opts->input_sets;
    if (opts->l2_cold || ctx->device_is_cpu || !op->input_set_bytes)
        return 1;
    double set = op->input_set_bytes(cfg);
    if (set <= 0 || set >= (double)ctx->l2_bytes)
        return 1;
    /* Enough sets that one pass over all of them is >= 4 x L2, so a set is
     * evicted before it comes round again; at most 64 sets and 4 GB. */
    double want = ceil(4.0 * (double)ctx->l2_bytes / set);
    if (want > 64)
        want = 64;
    if (want * set > 4e9)
        want = floor(4e9 / set);
    return want < 1 ? 1 : (int)want;
}

void sb_case_close(sb_case *c)
{
    if (!c)
        return;
    if (c->state)
        c->op->destroy(c->state);
    for (int i = 0; i < c->nout; i++) {
        free(c->out[i].rows);
        free(c->out[i].ref);
        free(c->out[i].scale);
        free(c->out[i].sampled);
    }
    free(c);
}

int sb_case_open(const sb_op *op, const sb_op_config *cfg, sb_ctx *ctx,
                 const sb_protocol_opts *opts, sb_case **out, sb_error *err)
{
    *out = NULL;
    sb_case *c = calloc(1, sizeof *c);
    if (!c)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    c->op = op;
    c->cfg = *cfg;
    c->ctx = ctx;
    c->cfg.input_sets = decide_input_sets(op, cfg, ctx, opts);
    int64_t before = ctx->live_bytes;
    if (op->create(&c->cfg, ctx, &c->state, err) != SB_OK) {
        c->state = NULL;
        sb_case_close(c);
        return SB_ERR;
    }
    double set_bytes = op->input_set_bytes ? op->input_set_bytes(&c->cfg) : 0;
    c->base_bytes = ctx->live_bytes - before -
                    (int64_t)((c->cfg.input_sets - 1) * set_bytes);
    sb_output descs[SB_MAX_OUTPUTS];
    c->nout = op->outputs(c->state, descs);
    if (c->nout < 1 || c->nout > SB_MAX_OUTPUTS) {
        sb_error_set(err, NULL, NULL, "op %s reported %d outputs", op->name, c->nout);
        sb_case_close(c);
        return SB_ERR;
    }
    for (int o = 0; o < c->nout; o++) {
        case_output *co = &c->out[o];
        co->desc = descs[o];
        int64_t rows = co->desc.rows, cols = co->desc.cols;
        co->bytes = (size_t)rows * (size_t)co->desc.ld * sb_dtype_size(co->desc.dtype);
        int64_t want = op->check_rows ? op->check_rows(c->state, o) : 0;
        if (want <= 0 || want > rows)
            want = rows;
        if (opts->max_check_rows > 0 && want > opts->max_check_rows)
            want = opts->max_check_rows;
        co->nrows = want;
        co->rows = malloc((size_t)want * sizeof *co->rows);
        co->ref = malloc((size_t)want * (size_t)cols * sizeof(double));
        co->scale = malloc((size_t)want * (size_t)cols * sizeof(double));
        co->sampled = malloc((size_t)want * (size_t)cols * sb_dtype_size(co->desc.dtype));
        if (!co->rows || !co->ref || !co->scale || !co->sampled) {
            sb_error_set(err, NULL, NULL, "out of host memory (reference of %s)", co->desc.name);
            sb_case_close(c);
            return SB_ERR;
        }
        for (int64_t i = 0; i < want; i++) /* evenly spread, first and last */
            co->rows[i] = want == 1 ? 0 : (int64_t)((double)i * (double)(rows - 1) / (double)(want - 1));
        for (int64_t i = 0; i < want; i++) {
            double *ref = co->ref + i * cols, *scale = co->scale + i * cols;
            for (int64_t j = 0; j < cols; j++)
                scale[j] = 1.0;
            if (op->reference_row(c->state, o, co->rows[i], ref, scale, err) != SB_OK) {
                sb_case_close(c);
                return SB_ERR;
            }
        }
    }
    *out = c;
    return SB_OK;
}

/* The whole output scanned where it lies (poison, non-finite, checksum),
 * and its sampled rows brought to ->sampled: a multi-gigabyte output is
 * neither copied to the host nor hashed there. */
static int scan_output(sb_case *c, int o, sb_error *err)
{
    case_output *co = &c->out[o];
    uint64_t base = (uint64_t)o << 56;
    sb_ctx *ctx = c->ctx;
    const sb_output *d = &co->desc;
    size_t es = sb_dtype_size(d->dtype), row_bytes = (size_t)d->cols * es;
    if (ctx->device_is_cpu) {
        sb_output_scan_host(d->dev, d->rows, d->cols, d->ld, d->dtype, base, &co->scan);
    } else {
        ctx_impl *im = ctx->impl;
        cudaError_t e = cudaSuccess;
        if (!im->scan_buf && (e = cudaMalloc(&im->scan_buf, 64)) != cudaSuccess) {
            im->scan_buf = NULL;
            cudaGetLastError();
            return cuda_fail(err, "cudaMalloc (output scan)", e);
        }
        e = (cudaError_t)sb_output_scan_device(d->dev, d->rows, d->cols, d->ld, d->dtype, base, im->scan_buf,
                                               ctx->stream, &co->scan);
        if (e != cudaSuccess)
            return cuda_fail(err, "output scan", e);
    }
    for (int64_t i = 0; i < co->nrows; i++) {
        const unsigned char *row = (const unsigned char *)d->dev + (size_t)co->rows[i] * (size_t)d->ld * es;
        if (sb_ctx_download(ctx, co->sampled + (size_t)i * row_bytes, row, row_bytes, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

/* Poison, run once on set 0, scan every output and fetch its sampled rows. */
static int checked_run(sb_case *c, int provider, sb_error *err)
{
    for (int o = 0; o < c->nout; o++)
        if (ctx_memset(c->ctx, c->out[o].desc.dev, 0xff, c->out[o].bytes, err) != SB_OK)
            return SB_ERR;
    if (c->op->run(c->state, provider, 0, err) != SB_OK)
        return SB_ERR;
    if (ctx_sync(c->ctx, err) != SB_OK)
        return SB_ERR;
    for (int o = 0; o < c->nout; o++)
        if (scan_output(c, o, err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

static void check_outputs(sb_case *c, const sb_protocol_opts *opts, sb_measurement *m)
{
    double atol, rtol;
    sb_tolerance(c->cfg.dtype, &atol, &rtol);
    /* Outputs in a wider type than the inputs (fp32 out of tf32 math)
     * still use the input dtype's tolerance: the input rounding dominates. */
    m->atol = atol;
    m->rtol = rtol;
    uint64_t h = 0;
    double err2 = 0, ref2 = 0;
    int64_t fails = 0;
    char first_fail[256] = "";
    if (opts->test_corrupt_output && c->nout > 0) {
        case_output *co = &c->out[0];
        double v = sb_load_elem(co->sampled, 0, co->desc.dtype);
        sb_store_elem(co->sampled, 0, co->desc.dtype, v + 1.0 + fabs(v));
    }
    for (int o = 0; o < c->nout; o++) {
        case_output *co = &c->out[o];
        size_t es = sb_dtype_size(co->desc.dtype);
        int64_t cols = co->desc.cols;
        /* one sum over every output's elements (their indices are
         * numbered from o << 56, output_scan.h) */
        h += co->scan.checksum;
        m->unwritten += co->scan.poison;
        m->nonfinite += co->scan.nonfinite;
        for (int64_t i = 0; i < co->nrows; i++) {
            int64_t r = co->rows[i];
            const unsigned char *row = co->sampled + (size_t)i * (size_t)cols * es;
            for (int64_t j = 0; j < cols; j++) {
                double out = sb_load_elem(row, (size_t)j, co->desc.dtype);
                double ref = co->ref[i * cols + j];
                double sc = co->scale[i * cols + j];
                double d = fabs(out - ref);
                double tol = atol * sc + rtol * fabs(ref);
                m->checked_elements++;
                if (!isfinite(out)) {
                    d = INFINITY;
                }
                if (d > m->max_abs_err || isnan(d))
                    m->max_abs_err = isnan(d) ? INFINITY : d;
                double rel = d / (fabs(ref) + atol * sc);
                if (rel > m->max_rel_err || isnan(rel))
                    m->max_rel_err = isnan(rel) ? INFINITY : rel;
                err2 += d * d;
                ref2 += ref * ref;
                if (!(d <= tol)) {
                    if (fails == 0)
                        snprintf(first_fail, sizeof first_fail,
                                 "%s[%lld][%lld] = %.9g, reference %.9g, |diff| %.3g > "
                                 "tolerance %.3g",
                                 co->desc.name, (long long)r, (long long)j, out, ref, d, tol);
                    fails++;
                }
            }
        }
    }
    snprintf(m->checksum, sizeof m->checksum, "%016llx", (unsigned long long)h);
    m->rel_l2_err = ref2 > 0 ? sqrt(err2) / sqrt(ref2) : sqrt(err2);
    if (!isfinite(m->rel_l2_err))
        m->rel_l2_err = INFINITY;
    m->passed = fails == 0 && m->unwritten == 0 && m->nonfinite == 0;
    if (m->passed)
        return;
    snprintf(m->status, sizeof m->status, "failed");
    if (m->unwritten)
        snprintf(m->reason, sizeof m->reason,
                 "correctness: %lld output elements not written (still poison)",
                 (long long)m->unwritten);
    else if (m->nonfinite)
        snprintf(m->reason, sizeof m->reason, "correctness: %lld non-finite output elements",
                 (long long)m->nonfinite);
    else
        snprintf(m->reason, sizeof m->reason,
                 "correctness: %lld of %lld checked elements outside tolerance; first: %s",
                 (long long)fails, (long long)m->checked_elements, first_fail);
}

static void clock_state(sb_ctx *ctx, const sb_protocol_opts *opts, json_t **out)
{
    *out = NULL;
    if (ctx->device_is_cpu || !opts->nvml || opts->nvml_index < 0)
        return;
    sb_error e;
    if (sb_nvml_clock_state(opts->nvml, opts->nvml_index, out, &e) != SB_OK)
        *out = NULL;
}

/* How long a hold may wait for the host to queue one repeat before it lets
 * go by itself: far longer than queueing takes (a repeat of 50 cuBLAS
 * calls: well under 1 ms), short enough that a full launch queue (the host
 * blocked behind the hold) costs a fraction of a second, counted. */
#define SB_HOLD_TIMEOUT_MS 200.0

/* Warm-up: by count, launched back to back; by time, each launch waited
 * for (a no-op on the CPU path) until the time is spent. */
static int warm_up(sb_case *c, int provider, const sb_protocol_opts *opts, sb_measurement *m, sb_error *err)
{
    double t0 = host_now_ms();
    int done = 0, rc = SB_OK;
    while (rc == SB_OK && (opts->warmup_ms > 0 ? host_now_ms() - t0 < opts->warmup_ms : done < opts->warmup_iters)) {
        rc = c->op->run(c->state, provider, done++ % c->cfg.input_sets, err);
        if (rc == SB_OK && opts->warmup_ms > 0)
            rc = ctx_sync(c->ctx, err);
    }
    m->warmup_iters_done = done;
    return rc;
}

/* The CPU path: settle and warm-up call the op back to back, then each
 * sample is one call timed on the host. */
static int cpu_samples(sb_case *c, int provider, const sb_protocol_opts *opts, sb_measurement *m,
                       sb_error *err)
{
    int sets = c->cfg.input_sets;
    double t0 = host_now_ms();
    while (opts->settle_ms > 0 && host_now_ms() - t0 < opts->settle_ms)
        for (int i = 0; i < 8; i++, m->settle_launches++) /* as the GPU path's batches */
            if (c->op->run(c->state, provider, m->settle_launches % sets, err) != SB_OK)
                return SB_ERR;
    if (warm_up(c, provider, opts, m, err) != SB_OK)
        return SB_ERR;
    clock_state(c->ctx, opts, &m->clocks_before);
    for (int r = 0; r < opts->repeats; r++)
        for (int i = 0; i < opts->iters; i++) {
            int k = r * opts->iters + i;
            if (opts->l2_cold && ctx_flush_l2(c->ctx, k, err) != SB_OK)
                return SB_ERR;
            double a = host_now_ms();
            if (c->op->run(c->state, provider, k % sets, err) != SB_OK)
                return SB_ERR;
            m->samples[k] = host_now_ms() - a;
        }
    return SB_OK;
}

/* The GPU path: the timed repeats are batches of `iters` launches, each
 * launch between a pair of CUDA events (and after an L2 flush in cold
 * mode). Batch q uses event set q % 2 and hold slot q % 2, so that one
 * batch can be queued while the one before runs. */
typedef struct gpu_batches {
    sb_case *c;
    int provider;
    const sb_protocol_opts *opts;
    sb_stream_hold *hold;      /* NULL: launched as submitted */
    cudaEvent_t *ev;           /* 2 sets of 2 x iters, then 2 for the settle */
    int queued;                /* batches queued so far */
} gpu_batches;

/* Queues the next batch; its launches use samples k0 .. k0 + iters - 1 (for
 * the input set rotation and the flush pattern). With a hold, behind a
 * hold released once all are queued, on every path, so that a failed batch
 * never leaves the stream waiting for the timeout. */
static int batch_queue(gpu_batches *g, int k0, sb_error *err)
{
    sb_ctx *ctx = g->c->ctx;
    const int q = g->queued++, iters = g->opts->iters;
    cudaEvent_t *ev = g->ev + (q & 1) * 2 * iters;
    cudaError_t e = g->hold ? sb_stream_hold_launch(g->hold, q & 1, ctx->stream) : cudaSuccess;
    if (e != cudaSuccess) {
        sb_stream_hold_release(g->hold, q & 1); /* it may have been queued all the same */
        return cuda_fail(err, "stream hold", e);
    }
    int rc = SB_OK;
    for (int i = 0; i < iters && rc == SB_OK; i++) {
        int k = k0 + i;
        if (g->opts->l2_cold && (rc = ctx_flush_l2(ctx, k, err)) != SB_OK)
            break;
        if ((e = cudaEventRecord(ev[2 * i], ctx->stream)) != cudaSuccess) {
            rc = cuda_fail(err, "cudaEventRecord", e);
            break;
        }
        if ((rc = g->c->op->run(g->c->state, g->provider, k % g->c->cfg.input_sets, err)) != SB_OK)
            break;
        if ((e = cudaEventRecord(ev[2 * i + 1], ctx->stream)) != cudaSuccess)
            rc = cuda_fail(err, "cudaEventRecord", e);
    }
    if (g->hold)
        sb_stream_hold_release(g->hold, q & 1);
    return rc;
}

/* Waits for batch q. A timed repeat's (r >= 0) clock state is read and its
 * samples taken from its events. */
static int batch_wait(gpu_batches *g, int q, int r, sb_measurement *m, sb_error *err)
{
    const int iters = g->opts->iters;
    cudaEvent_t *ev = g->ev + (q & 1) * 2 * iters;
    cudaError_t e = cudaEventSynchronize(ev[2 * iters - 1]);
    if (e != cudaSuccess)
        return cuda_fail(err, "kernel execution", e);
    if (r < 0)
        return SB_OK;
    json_t *cs = NULL;
    clock_state(g->c->ctx, g->opts, &cs);
    if (cs) {
        if (!m->repeat_clocks)
            m->repeat_clocks = json_array();
        json_array_append_new(m->repeat_clocks, cs);
    }
    for (int i = 0; i < iters; i++) {
        float ms = 0;
        if ((e = cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1])) != cudaSuccess)
            return cuda_fail(err, "cudaEventElapsedTime", e);
        m->samples[r * iters + i] = ms;
    }
    return SB_OK;
}

/* settle: power and thermal management move the clocks over tens to
 * hundreds of ms after a load starts (a 4096^3 GEMM from idle ran its 4th
 * and 5th repeats 7% slower than its first), far longer than a warm-up of
 * a few launches; running the call back to back first measures the clocks
 * the card holds under this load. Batches of 8 bare launches: as
 * submitted, each waited for; with a hold, the next queued before waiting
 * for the one before, so the card never idles. (Settling on the timed
 * repeats' own launches, events and all, in batches of `iters`, did not
 * steady the spec on a power-capped H100: examples/h100/launch-hold/.) */
static int gpu_settle(gpu_batches *g, sb_measurement *m, sb_error *err)
{
    const sb_protocol_opts *opts = g->opts;
    cudaEvent_t *ev = g->ev + 4 * opts->iters;
    int rc = SB_OK;
    cudaError_t e;
    double t0 = host_now_ms();
    for (int b = 0; rc == SB_OK && host_now_ms() - t0 < opts->settle_ms; b++) {
        for (int i = 0; i < 8 && rc == SB_OK; i++, m->settle_launches++)
            rc = g->c->op->run(g->c->state, g->provider, m->settle_launches % g->c->cfg.input_sets, err);
        if (rc != SB_OK)
            break;
        if (!g->hold)
            rc = ctx_sync(g->c->ctx, err);
        else if ((e = cudaEventRecord(ev[b & 1], g->c->ctx->stream)) != cudaSuccess)
            rc = cuda_fail(err, "cudaEventRecord", e);
        else if (b > 0 && (e = cudaEventSynchronize(ev[(b - 1) & 1])) != cudaSuccess)
            rc = cuda_fail(err, "kernel execution", e);
    }
    return rc;
}

/* As submitted (the default), the host waits for each repeat before it
 * queues the next, and for the warm-up. With a hold (protocol.launch_hold),
 * repeat r + 1 is queued before the host waits for repeat r, and the
 * warm-up by count is not waited for, so the card runs settle, warm-up and
 * repeats back to back (a warm-up by time still waits for each launch); a
 * repeat's clock state is then read while the next one runs. */
static int gpu_run(gpu_batches *g, sb_measurement *m, sb_error *err)
{
    const sb_protocol_opts *opts = g->opts;
    sb_case *c = g->c;
    int rc = opts->settle_ms > 0 ? gpu_settle(g, m, err) : SB_OK;
    if (rc == SB_OK)
        rc = warm_up(c, g->provider, opts, m, err);
    if (rc == SB_OK && !g->hold)
        rc = ctx_sync(c->ctx, err);
    if (rc != SB_OK)
        return rc;
    clock_state(c->ctx, opts, &m->clocks_before);
    for (int r = 0; r < opts->repeats && rc == SB_OK; r++) {
        rc = batch_queue(g, r * opts->iters, err);
        if (rc == SB_OK && !g->hold)
            rc = batch_wait(g, r, r, m, err);
        else if (rc == SB_OK && r > 0)
            rc = batch_wait(g, r - 1, r - 1, m, err);
    }
    if (rc == SB_OK && g->hold)
        rc = batch_wait(g, opts->repeats - 1, opts->repeats - 1, m, err);
    return rc;
}

static int gpu_samples(sb_case *c, int provider, const sb_protocol_opts *opts, sb_measurement *m, sb_error *err)
{
    sb_ctx *ctx = c->ctx;
    ctx_impl *im = ctx->impl;
    cudaError_t e = cudaSuccess;
    if (opts->launch_hold && !im->hold && (e = sb_stream_hold_open(&im->hold, 2, SB_HOLD_TIMEOUT_MS)) != cudaSuccess)
        return cuda_fail(err, "stream hold (pinned host memory)", e);
    /* the L2 flush buffer allocated now, not inside a held batch */
    if (opts->l2_cold && ctx_flush_l2(ctx, 0, err) != SB_OK)
        return SB_ERR;
    gpu_batches g = {c, provider, opts, opts->launch_hold ? im->hold : NULL, NULL, 0};
    int n = opts->iters * 2 * 2 + (g.hold ? 2 : 0), made = 0;
    if (!(g.ev = calloc((size_t)n, sizeof *g.ev)))
        return sb_error_set(err, NULL, NULL, "out of host memory (events)");
    for (; made < n; made++)
        if ((e = cudaEventCreate(&g.ev[made])) != cudaSuccess)
            break;
    const int timeouts0 = sb_stream_hold_timeouts(g.hold);
    int rc = e == cudaSuccess ? gpu_run(&g, m, err) : cuda_fail(err, "cudaEventCreate", e);
    if (rc != SB_OK)
        (void)cudaStreamSynchronize(ctx->stream); /* nothing queued outlives its events */
    m->launch_hold = g.hold ? "blocking-kernel" : "none";
    m->hold_timeouts = sb_stream_hold_timeouts(g.hold) - timeouts0;
    for (int i = 0; i < made; i++)
        cudaEventDestroy(g.ev[i]);
    free(g.ev);
    return rc;
}

static int timed_samples(sb_case *c, int provider, const sb_protocol_opts *opts,
                         sb_measurement *m, sb_error *err)
{
    sb_ctx *ctx = c->ctx;
    int total = opts->iters * opts->repeats;
    m->samples = calloc((size_t)total, sizeof(double));
    if (!m->samples)
        return sb_error_set(err, NULL, NULL, "out of host memory (samples)");
    m->settle_ms = opts->settle_ms > 0 ? opts->settle_ms : -1;
    int rc = ctx->device_is_cpu ? cpu_samples(c, provider, opts, m, err) : gpu_samples(c, provider, opts, m, err);
    if (rc == SB_OK)
        clock_state(ctx, opts, &m->clocks_after);
    return rc;
}

int sb_case_measure(sb_case *c, int provider, const sb_protocol_opts *opts,
                    sb_measurement *m, sb_error *err)
{
    memset(m, 0, sizeof *m);
    m->timer = c->ctx->device_is_cpu ? "host-monotonic" : "cuda-event";
    m->warmup_ms = opts->warmup_ms > 0 ? opts->warmup_ms : -1;
    m->iters = opts->iters;
    m->repeats = opts->repeats;
    m->input_sets = c->cfg.input_sets;
    m->l2_cold = opts->l2_cold;
    m->profiler = opts->profiler;
    m->bitwise_repeatable = -1;
    m->batch_invariant = -1;
    m->peak_device_bytes = -1;
    snprintf(m->checksum, sizeof m->checksum, "unknown");
    int sampled = 0;
    for (int o = 0; o < c->nout; o++)
        if (c->out[o].nrows < c->out[o].desc.rows)
            sampled = 1;
    snprintf(m->reference, sizeof m->reference, "%s",
             sampled ? "float64-host-sampled-rows" : "float64-host");
    char why[512] = "";
    if (c->op->supports && c->op->supports(c->state, provider, why, sizeof why) != 0) {
        snprintf(m->status, sizeof m->status, "skipped");
        snprintf(m->reason, sizeof m->reason, "%s", why[0] ? why : "provider does not support this case");
        return SB_OK;
    }
    sb_ctx *ctx = c->ctx;
    int64_t before = ctx->live_bytes;
    ctx->peak_bytes = ctx->live_bytes;
    if (c->op->prepare && c->op->prepare(c->state, provider, err) != SB_OK)
        return SB_ERR;
    if (c->op->provider_params)
        c->op->provider_params(c->state, provider, &m->extra_params);
    if (checked_run(c, provider, err) != SB_OK)
        return SB_ERR;
    m->peak_device_bytes = c->base_bytes + (ctx->peak_bytes - before);
    snprintf(m->status, sizeof m->status, "passed");
    check_outputs(c, opts, m);
    if (!m->passed)
        return SB_OK;
    /* determinism: the same inputs again, bit for bit, compared through
     * the checksums (output_scan.h: one changed element always shows) */
    sb_output_scan first[SB_MAX_OUTPUTS];
    for (int o = 0; o < c->nout; o++)
        first[o] = c->out[o].scan;
    if (checked_run(c, provider, err) != SB_OK)
        return SB_ERR;
    m->bitwise_repeatable = 1;
    for (int o = 0; o < c->nout; o++)
        if (first[o].checksum != c->out[o].scan.checksum || first[o].poison != c->out[o].scan.poison)
            m->bitwise_repeatable = 0;
    if (c->op->batch_invariance) {
        int inv = -1;
        if (c->op->batch_invariance(c->state, provider, &inv, err) != SB_OK)
            return SB_ERR;
        m->batch_invariant = inv;
    }
    return timed_samples(c, provider, opts, m, err);
}
