/* op_gemm.c - the GEMM op: row-major C[M,N] = op(A) op(B), through cuBLAS
 * (default and pedantic math), cuBLASLt (heuristic algorithm), solbook-mma
 * and a blocked host implementation, with a float64 host reference.
 *
 * Layout: transa = n means A is stored [M,K] row-major, t means it is stored
 * [K,M] (C = A_stored^T B); transb likewise ([K,N] or [N,K]). cuBLAS is
 * column-major, so the row-major product is computed as C^T = op(B)^T op(A)^T.
 * Output dtype: fp16 -> fp16, bf16 -> bf16, fp32/tf32 -> fp32, fp8e4m3 ->
 * bf16 (cuBLASLt only, transa = n, transb = t as its fp8 kernels require).
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_mma.h"
#include "op.h"

enum { P_CUBLAS, P_PEDANTIC, P_LT, P_MMA, P_CPU, P_COUNT };

static const sb_provider gemm_providers[] = {
    {"cublas", SB_BACKEND_CUDA, "cublasGemmEx, default math mode"},
    {"cublas-pedantic", SB_BACKEND_CUDA, "cublasGemmEx, CUBLAS_PEDANTIC_MATH, CUBLAS_COMPUTE_32F_PEDANTIC"},
    {"cublaslt", SB_BACKEND_CUDA, "cublasLtMatmul with the first cublasLtMatmulAlgoGetHeuristic algorithm"},
    {"solbook-mma", SB_BACKEND_CUDA, "project WMMA kernel, 128x128x32 tiles, fp16/bf16"},
    {"cpu", SB_BACKEND_CPU, "blocked host GEMM, fp32 accumulation over dtype-rounded inputs"},
    {NULL, 0, NULL},
};

static const char *const gemm_modes[] = {"fwd", NULL};
static const char *const gemm_shape_names[] = {"M", "N", "K", NULL};
static const int64_t gemm_shape_defaults[] = {4096, 4096, 4096};
static const int64_t gemm_cpu_shape_defaults[] = {256, 256, 256};
static const char *const gemm_recorded_params[] = {"cublas_workspace_bytes", "lt_workspace_bytes", NULL};
static const sb_param_spec gemm_params[] = {
    {"transa", SB_PARAM_STRING, "n", "n|t", "n: A stored [M,K]; t: A stored [K,M]"},
    {"transb", SB_PARAM_STRING, "n", "n|t", "n: B stored [K,N]; t: B stored [N,K]"},
    {NULL, 0, NULL, NULL, NULL},
};

/* Largest workspace offered to cuBLAS and cuBLASLt (NVIDIA recommends 32 MiB
 * on Hopper). */
#define GEMM_WORKSPACE_BYTES ((size_t)32 << 20)
/* Reference budget: rows x N x K multiply-adds on the host. */
#define GEMM_REF_MACS 2.2e9

typedef struct gemm_state {
    sb_ctx *ctx;
    sb_op_config cfg;
    int64_t M, N, K, lda, ldb;
    int ta, tb;
    sb_dtype in, out;
    int sets;
    void **A, **B;          /* device, per input set */
    void *C;
    void *hA, *hB;          /* host copies of set 0 */
    double *lut;            /* 16-bit storage -> double */
    /* cuBLAS */
    cublasHandle_t handle[2]; /* default, pedantic */
    void *workspace[2];
    /* cuBLASLt */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t lt_desc;
    cublasLtMatrixLayout_t lt_a, lt_b, lt_c;
    cublasLtMatmulAlgo_t lt_algo;
    void *lt_ws;
    size_t lt_ws_bytes;
    int lt_ready;
    /* CPU path scratch */
    float *fa, *fb, *fc;
    /* batch invariance */
    void *C_small;
} gemm_state;

static int cublas_fail(sb_error *err, const char *what, cublasStatus_t s)
{
    return sb_error_set(err, NULL, NULL, "%s: cuBLAS status %d: %s", what, (int)s,
                        cublasGetStatusString(s));
}

static sb_dtype out_dtype(sb_dtype in)
{
    switch (in) {
    case SB_DTYPE_FP16: return SB_DTYPE_FP16;
    case SB_DTYPE_BF16:
    case SB_DTYPE_FP8E4M3: return SB_DTYPE_BF16;
    default: return SB_DTYPE_FP32;
    }
}

static cudaDataType_t cuda_type(sb_dtype d)
{
    switch (d) {
    case SB_DTYPE_FP16: return CUDA_R_16F;
    case SB_DTYPE_BF16: return CUDA_R_16BF;
    case SB_DTYPE_FP8E4M3: return CUDA_R_8F_E4M3;
    case SB_DTYPE_FP64: return CUDA_R_64F;
    default: return CUDA_R_32F;
    }
}

static int gemm_validate(const sb_op_config *cfg, sb_error *err)
{
    const char *names[3] = {"M", "N", "K"};
    for (int i = 0; i < 3; i++) {
        int64_t v = sb_shape_get(&cfg->shape, names[i], 0);
        if (v < 1 || v > (int64_t)1 << 20)
            return sb_error_set(err, NULL, NULL, "gemm: %s must be between 1 and 1048576, got %lld",
                                names[i], (long long)v);
    }
    const char *ta = sb_params_get(&cfg->params, "transa");
    const char *tb = sb_params_get(&cfg->params, "transb");
    if (!ta || (strcmp(ta, "n") && strcmp(ta, "t")))
        return sb_error_set(err, NULL, NULL, "gemm: --transa must be n or t");
    if (!tb || (strcmp(tb, "n") && strcmp(tb, "t")))
        return sb_error_set(err, NULL, NULL, "gemm: --transb must be n or t");
    if (cfg->dtype == SB_DTYPE_FP64)
        return sb_error_set(err, NULL, NULL, "gemm: dtype fp64 is not benchmarked (fp16, bf16, fp32, tf32, fp8e4m3)");
    return SB_OK;
}

static double gemm_input_set_bytes(const sb_op_config *cfg)
{
    double M = (double)sb_shape_get(&cfg->shape, "M", 0), N = (double)sb_shape_get(&cfg->shape, "N", 0),
           K = (double)sb_shape_get(&cfg->shape, "K", 0);
    return (M * K + K * N) * (double)sb_dtype_size(cfg->dtype);
}

static double gemm_flops(const sb_op_config *cfg)
{
    return 2.0 * (double)sb_shape_get(&cfg->shape, "M", 0) * (double)sb_shape_get(&cfg->shape, "N", 0) *
           (double)sb_shape_get(&cfg->shape, "K", 0);
}

static double gemm_bytes(const sb_op_config *cfg)
{
    double M = (double)sb_shape_get(&cfg->shape, "M", 0), N = (double)sb_shape_get(&cfg->shape, "N", 0);
    return gemm_input_set_bytes(cfg) + M * N * (double)sb_dtype_size(out_dtype(cfg->dtype));
}

static void gemm_destroy(void *p)
{
    gemm_state *s = p;
    if (!s)
        return;
    if (s->lt_desc)
        cublasLtMatmulDescDestroy(s->lt_desc);
    if (s->lt_a)
        cublasLtMatrixLayoutDestroy(s->lt_a);
    if (s->lt_b)
        cublasLtMatrixLayoutDestroy(s->lt_b);
    if (s->lt_c)
        cublasLtMatrixLayoutDestroy(s->lt_c);
    if (s->lt)
        cublasLtDestroy(s->lt);
    for (int i = 0; i < 2; i++)
        if (s->handle[i])
            cublasDestroy(s->handle[i]);
    /* Device buffers are freed with the context (sb_ctx_close) or here. */
    for (int i = 0; i < s->sets; i++) {
        if (s->A)
            sb_ctx_free(s->ctx, s->A[i]);
        if (s->B)
            sb_ctx_free(s->ctx, s->B[i]);
    }
    sb_ctx_free(s->ctx, s->C);
    sb_ctx_free(s->ctx, s->C_small);
    sb_ctx_free(s->ctx, s->workspace[0]);
    sb_ctx_free(s->ctx, s->workspace[1]);
    sb_ctx_free(s->ctx, s->lt_ws);
    free(s->A);
    free(s->B);
    free(s->hA);
    free(s->hB);
    free(s->lut);
    free(s->fa);
    free(s->fb);
    free(s->fc);
    free(s);
}

static int gemm_create(const sb_op_config *cfg, sb_ctx *ctx, void **out, sb_error *err)
{
    *out = NULL;
    gemm_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    s->ctx = ctx;
    s->cfg = *cfg;
    s->M = sb_shape_get(&cfg->shape, "M", 0);
    s->N = sb_shape_get(&cfg->shape, "N", 0);
    s->K = sb_shape_get(&cfg->shape, "K", 0);
    s->ta = strcmp(sb_params_get(&cfg->params, "transa"), "t") == 0;
    s->tb = strcmp(sb_params_get(&cfg->params, "transb"), "t") == 0;
    s->lda = s->ta ? s->M : s->K;
    s->ldb = s->tb ? s->K : s->N;
    s->in = cfg->dtype;
    s->out = out_dtype(cfg->dtype);
    s->sets = cfg->input_sets < 1 ? 1 : cfg->input_sets;
    size_t es = sb_dtype_size(s->in);
    size_t a_bytes = (size_t)s->M * (size_t)s->K * es, b_bytes = (size_t)s->K * (size_t)s->N * es;
    size_t c_bytes = (size_t)s->M * (size_t)s->N * sb_dtype_size(s->out);
    s->A = calloc((size_t)s->sets, sizeof *s->A);
    s->B = calloc((size_t)s->sets, sizeof *s->B);
    s->hA = malloc(a_bytes);
    s->hB = malloc(b_bytes);
    void *tmpA = NULL, *tmpB = NULL;
    if (!s->A || !s->B || !s->hA || !s->hB) {
        gemm_destroy(s);
        return sb_error_set(err, NULL, NULL, "out of host memory for %zu-byte inputs", a_bytes + b_bytes);
    }
    if (es == 2) {
        s->lut = malloc(65536 * sizeof *s->lut);
        if (!s->lut) {
            gemm_destroy(s);
            return sb_error_set(err, NULL, NULL, "out of host memory");
        }
        for (uint32_t i = 0; i < 65536; i++) {
            uint16_t h = (uint16_t)i;
            s->lut[i] = sb_load_elem(&h, 0, s->in);
        }
    }
    /* Inputs in [-1, 1): products of order 1, sums grow as sqrt(K). */
    for (int i = 0; i < s->sets; i++) {
        void *ha = i == 0 ? s->hA : (tmpA ? tmpA : (tmpA = malloc(a_bytes)));
        void *hb = i == 0 ? s->hB : (tmpB ? tmpB : (tmpB = malloc(b_bytes)));
        if (!ha || !hb) {
            free(tmpA);
            free(tmpB);
            gemm_destroy(s);
            return sb_error_set(err, NULL, NULL, "out of host memory");
        }
        sb_fill_random(ha, (size_t)s->M * (size_t)s->K, s->in, -1.0, 1.0, cfg->seed, 2 * (uint64_t)i);
        sb_fill_random(hb, (size_t)s->K * (size_t)s->N, s->in, -1.0, 1.0, cfg->seed, 2 * (uint64_t)i + 1);
        if (sb_ctx_alloc(ctx, &s->A[i], a_bytes, err) != SB_OK ||
            sb_ctx_alloc(ctx, &s->B[i], b_bytes, err) != SB_OK ||
            sb_ctx_upload(ctx, s->A[i], ha, a_bytes, err) != SB_OK ||
            sb_ctx_upload(ctx, s->B[i], hb, b_bytes, err) != SB_OK) {
            free(tmpA);
            free(tmpB);
            gemm_destroy(s);
            return SB_ERR;
        }
    }
    free(tmpA);
    free(tmpB);
    if (sb_ctx_alloc(ctx, &s->C, c_bytes, err) != SB_OK) {
        gemm_destroy(s);
        return SB_ERR;
    }
    *out = s;
    return SB_OK;
}

static int gemm_outputs(void *p, sb_output *outs)
{
    gemm_state *s = p;
    outs[0] = (sb_output){"C", s->C, s->out, s->M, s->N, s->N};
    return 1;
}

static inline double in_at(const gemm_state *s, const void *buf, size_t i)
{
    if (s->lut)
        return s->lut[((const uint16_t *)buf)[i]];
    return sb_load_elem(buf, i, s->in);
}

static int gemm_reference_row(void *p, int out, int64_t row, double *ref, double *scale, sb_error *err)
{
    gemm_state *s = p;
    (void)out;
    double *a = malloc((size_t)s->K * sizeof *a);
    if (!a)
        return sb_error_set(err, NULL, NULL, "out of host memory");
    for (int64_t k = 0; k < s->K; k++)
        a[k] = in_at(s, s->hA, s->ta ? (size_t)k * (size_t)s->lda + (size_t)row
                                      : (size_t)row * (size_t)s->lda + (size_t)k);
    for (int64_t j = 0; j < s->N; j++) {
        ref[j] = 0;
        scale[j] = 0;
    }
    if (!s->tb) { /* B [K,N]: stream rows of B */
        for (int64_t k = 0; k < s->K; k++) {
            double ak = a[k];
            size_t base = (size_t)k * (size_t)s->ldb;
            for (int64_t j = 0; j < s->N; j++) {
                double t = ak * in_at(s, s->hB, base + (size_t)j);
                ref[j] += t;
                scale[j] += fabs(t);
            }
        }
    } else { /* B [N,K]: dot products along rows of B */
        for (int64_t j = 0; j < s->N; j++) {
            size_t base = (size_t)j * (size_t)s->ldb;
            double acc = 0, mag = 0;
            for (int64_t k = 0; k < s->K; k++) {
                double t = a[k] * in_at(s, s->hB, base + (size_t)k);
                acc += t;
                mag += fabs(t);
            }
            ref[j] = acc;
            scale[j] = mag;
        }
    }
    free(a);
    return SB_OK;
}

static int64_t gemm_check_rows(void *p, int out)
{
    gemm_state *s = p;
    (void)out;
    double rows = GEMM_REF_MACS / ((double)s->N * (double)s->K);
    if (rows < 16)
        rows = 16;
    return rows >= (double)s->M ? 0 : (int64_t)rows;
}

static int gemm_supports(void *p, int provider, char *why, size_t n)
{
    gemm_state *s = p;
    sb_ctx *ctx = s->ctx;
    int cc = ctx->cc_major * 10 + ctx->cc_minor;
    const char *pn = gemm_providers[provider].name;
    if (provider != P_CPU && s->in == SB_DTYPE_BF16 && cc < 80) {
        snprintf(why, n, "%s: bf16 needs compute capability 8.0 or newer; this device is %d.%d", pn,
                 ctx->cc_major, ctx->cc_minor);
        return 1;
    }
    if (provider != P_CPU && s->in == SB_DTYPE_TF32 && cc < 80) {
        snprintf(why, n, "%s: tf32 needs compute capability 8.0 or newer; this device is %d.%d", pn,
                 ctx->cc_major, ctx->cc_minor);
        return 1;
    }
    if (s->in == SB_DTYPE_FP8E4M3 && provider != P_LT && provider != P_CPU) {
        snprintf(why, n, "%s: fp8e4m3 runs through cublaslt only", pn);
        return 1;
    }
    if (s->in == SB_DTYPE_FP8E4M3 && provider == P_LT) {
        if (cc < 89) {
            snprintf(why, n, "cublaslt: fp8e4m3 needs compute capability 8.9 or newer; this device is %d.%d",
                     ctx->cc_major, ctx->cc_minor);
            return 1;
        }
        if (s->ta || !s->tb || s->K % 16 || s->lda % 16 || s->ldb % 16) {
            snprintf(why, n, "cublaslt: fp8e4m3 needs transa=n, transb=t and K a multiple of 16");
            return 1;
        }
    }
    if (provider == P_PEDANTIC && s->in == SB_DTYPE_TF32) {
        snprintf(why, n, "cublas-pedantic: tf32 is a reduced-precision mode; pedantic math computes in "
                         "full fp32 (use --dtype fp32)");
        return 1;
    }
    if (provider == P_MMA) {
        if (s->in != SB_DTYPE_FP16 && s->in != SB_DTYPE_BF16) {
            snprintf(why, n, "solbook-mma: dtype %s not supported (fp16 and bf16 only)", sb_dtype_name(s->in));
            return 1;
        }
        if (cc < 80) {
            snprintf(why, n, "solbook-mma: needs compute capability 8.0 or newer; this device is %d.%d",
                     ctx->cc_major, ctx->cc_minor);
            return 1;
        }
        if (s->M % SB_MMA_TILE_M || s->N % SB_MMA_TILE_N || s->K % SB_MMA_TILE_K) {
            snprintf(why, n,
                     "solbook-mma: M=%lld, N=%lld, K=%lld refused: needs M and N multiples of %d and K a "
                     "multiple of %d",
                     (long long)s->M, (long long)s->N, (long long)s->K, SB_MMA_TILE_M, SB_MMA_TILE_K);
            return 1;
        }
    }
    return 0;
}

static cublasComputeType_t compute_type(const gemm_state *s, int provider)
{
    if (provider == P_PEDANTIC)
        return CUBLAS_COMPUTE_32F_PEDANTIC;
    if (s->in == SB_DTYPE_TF32)
        return CUBLAS_COMPUTE_32F_FAST_TF32;
    return CUBLAS_COMPUTE_32F;
}

/* cuBLASLt descriptors for `m` rows of C; algo chosen by the heuristic. */
static int lt_build(gemm_state *s, int64_t m, cublasLtMatmulDesc_t *desc, cublasLtMatrixLayout_t *la,
                    cublasLtMatrixLayout_t *lb, cublasLtMatrixLayout_t *lc, cublasLtMatmulAlgo_t *algo,
                    size_t *ws_needed, sb_error *err)
{
    cublasStatus_t st;
    cublasOperation_t opb = s->tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = s->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    if ((st = cublasLtMatmulDescCreate(desc, compute_type(s, P_LT), CUDA_R_32F)) != CUBLAS_STATUS_SUCCESS)
        return cublas_fail(err, "cublasLtMatmulDescCreate", st);
    /* Lt's first operand is B (the column-major view), its second is A. */
    cublasLtMatmulDescSetAttribute(*desc, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb);
    cublasLtMatmulDescSetAttribute(*desc, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa);
    cudaDataType_t ti = cuda_type(s->in), to = cuda_type(s->out);
    uint64_t b_rows = s->tb ? (uint64_t)s->K : (uint64_t)s->N, b_cols = s->tb ? (uint64_t)s->N : (uint64_t)s->K;
    uint64_t a_rows = s->ta ? (uint64_t)m : (uint64_t)s->K, a_cols = s->ta ? (uint64_t)s->K : (uint64_t)m;
    if ((st = cublasLtMatrixLayoutCreate(la, ti, b_rows, b_cols, s->ldb)) != CUBLAS_STATUS_SUCCESS ||
        (st = cublasLtMatrixLayoutCreate(lb, ti, a_rows, a_cols, s->lda)) != CUBLAS_STATUS_SUCCESS ||
        (st = cublasLtMatrixLayoutCreate(lc, to, (uint64_t)s->N, (uint64_t)m, s->N)) != CUBLAS_STATUS_SUCCESS)
        return cublas_fail(err, "cublasLtMatrixLayoutCreate", st);
    cublasLtMatmulPreference_t pref;
    if ((st = cublasLtMatmulPreferenceCreate(&pref)) != CUBLAS_STATUS_SUCCESS)
        return cublas_fail(err, "cublasLtMatmulPreferenceCreate", st);
    size_t ws = GEMM_WORKSPACE_BYTES;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    st = cublasLtMatmulAlgoGetHeuristic(s->lt, *desc, *la, *lb, *lc, *lc, pref, 1, &res, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS)
        return cublas_fail(err, "cublasLtMatmulAlgoGetHeuristic", st);
    if (found < 1)
        return sb_error_set(err, NULL, NULL, "cublasLtMatmulAlgoGetHeuristic: no algorithm for %s M=%lld N=%lld K=%lld",
                            sb_dtype_name(s->in), (long long)m, (long long)s->N, (long long)s->K);
    *algo = res.algo;
    *ws_needed = res.workspaceSize;
    return SB_OK;
}

static int gemm_prepare(void *p, int provider, sb_error *err)
{
    gemm_state *s = p;
    cublasStatus_t st;
    if (provider == P_CPU) {
        if (s->fa)
            return SB_OK;
        s->fa = malloc((size_t)s->M * (size_t)s->K * sizeof(float));
        s->fb = malloc((size_t)s->K * (size_t)s->N * sizeof(float));
        s->fc = malloc((size_t)s->N * sizeof(float));
        if (!s->fa || !s->fb || !s->fc)
            return sb_error_set(err, NULL, NULL, "out of host memory (CPU GEMM scratch)");
        return SB_OK;
    }
    if (provider == P_CUBLAS || provider == P_PEDANTIC) {
        int h = provider == P_PEDANTIC;
        if (s->handle[h])
            return SB_OK;
        if ((st = cublasCreate(&s->handle[h])) != CUBLAS_STATUS_SUCCESS) {
            s->handle[h] = NULL;
            return cublas_fail(err, "cublasCreate", st);
        }
        if ((st = cublasSetStream(s->handle[h], (cudaStream_t)s->ctx->stream)) != CUBLAS_STATUS_SUCCESS)
            return cublas_fail(err, "cublasSetStream", st);
        if ((st = cublasSetMathMode(s->handle[h], h ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH)) !=
            CUBLAS_STATUS_SUCCESS)
            return cublas_fail(err, "cublasSetMathMode", st);
        /* Our own workspace, so that the tracking allocator counts it. */
        if (sb_ctx_alloc(s->ctx, &s->workspace[h], GEMM_WORKSPACE_BYTES, err) != SB_OK)
            return SB_ERR;
        if ((st = cublasSetWorkspace(s->handle[h], s->workspace[h], GEMM_WORKSPACE_BYTES)) !=
            CUBLAS_STATUS_SUCCESS)
            return cublas_fail(err, "cublasSetWorkspace", st);
        return SB_OK;
    }
    if (provider == P_LT) {
        if (s->lt_ready)
            return SB_OK;
        if (!s->lt && (st = cublasLtCreate(&s->lt)) != CUBLAS_STATUS_SUCCESS) {
            s->lt = NULL;
            return cublas_fail(err, "cublasLtCreate", st);
        }
        if (lt_build(s, s->M, &s->lt_desc, &s->lt_a, &s->lt_b, &s->lt_c, &s->lt_algo, &s->lt_ws_bytes, err) !=
            SB_OK)
            return SB_ERR;
        if (s->lt_ws_bytes && sb_ctx_alloc(s->ctx, &s->lt_ws, s->lt_ws_bytes, err) != SB_OK)
            return SB_ERR;
        s->lt_ready = 1;
    }
    return SB_OK;
}

static void gemm_provider_params(void *p, int provider, sb_params *extra)
{
    gemm_state *s = p;
    if (provider == P_LT && extra->count < SB_MAX_PARAMS) {
        snprintf(extra->name[extra->count], SB_NAME_MAX, "lt_workspace_bytes");
        snprintf(extra->value[extra->count], sizeof extra->value[0], "%zu", s->lt_ws_bytes);
        extra->count++;
    }
    if ((provider == P_CUBLAS || provider == P_PEDANTIC) && extra->count < SB_MAX_PARAMS) {
        snprintf(extra->name[extra->count], SB_NAME_MAX, "cublas_workspace_bytes");
        snprintf(extra->value[extra->count], sizeof extra->value[0], "%zu", GEMM_WORKSPACE_BYTES);
        extra->count++;
    }
}

/* The host implementation: convert op(A) to float [m,K] and op(B) to float
 * [K,N] (the dtype rounding is already in the stored values), accumulate in
 * fp32 row by row, k outer and j inner, round to the output dtype. */
static void cpu_gemm(gemm_state *s, int set, int64_t m, void *C)
{
    const void *A = s->A[set], *B = s->B[set];
    int64_t K = s->K, N = s->N;
    for (int64_t i = 0; i < m; i++)
        for (int64_t k = 0; k < K; k++)
            s->fa[i * K + k] = (float)in_at(s, A, s->ta ? (size_t)k * (size_t)s->lda + (size_t)i
                                                         : (size_t)i * (size_t)s->lda + (size_t)k);
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++)
            s->fb[k * N + j] = (float)in_at(s, B, s->tb ? (size_t)j * (size_t)s->ldb + (size_t)k
                                                         : (size_t)k * (size_t)s->ldb + (size_t)j);
    const int64_t KB = 256;
    for (int64_t i = 0; i < m; i++) {
        float *restrict c = s->fc;
        for (int64_t j = 0; j < N; j++)
            c[j] = 0.0f;
        for (int64_t k0 = 0; k0 < K; k0 += KB) {
            int64_t k1 = k0 + KB < K ? k0 + KB : K;
            for (int64_t k = k0; k < k1; k++) {
                float a = s->fa[i * K + k];
                const float *restrict b = s->fb + k * N;
                for (int64_t j = 0; j < N; j++)
                    c[j] += a * b[j];
            }
        }
        for (int64_t j = 0; j < N; j++)
            sb_store_elem(C, (size_t)(i * N + j), s->out, c[j]);
    }
}

static int gemm_run_rows(gemm_state *s, int provider, int set, int64_t m, void *C,
                         cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                         cublasLtMatrixLayout_t lc, const cublasLtMatmulAlgo_t *algo, sb_error *err)
{
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st;
    switch (provider) {
    case P_CPU:
        cpu_gemm(s, set, m, C);
        return SB_OK;
    case P_CUBLAS:
    case P_PEDANTIC: {
        cublasHandle_t h = s->handle[provider == P_PEDANTIC];
        cudaDataType_t ti = cuda_type(s->in), to = cuda_type(s->out);
        st = cublasGemmEx(h, s->tb ? CUBLAS_OP_T : CUBLAS_OP_N, s->ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)s->N,
                          (int)m, (int)s->K, &alpha, s->B[set], ti, (int)s->ldb, s->A[set], ti, (int)s->lda,
                          &beta, C, to, (int)s->N, compute_type(s, provider), CUBLAS_GEMM_DEFAULT);
        if (st != CUBLAS_STATUS_SUCCESS)
            return cublas_fail(err, "cublasGemmEx", st);
        return sb_ctx_check_launch(s->ctx, "cublasGemmEx", err);
    }
    case P_LT:
        st = cublasLtMatmul(s->lt, desc, &alpha, s->B[set], la, s->A[set], lb, &beta, C, lc, C, lc, algo,
                            s->lt_ws, s->lt_ws_bytes, (cudaStream_t)s->ctx->stream);
        if (st != CUBLAS_STATUS_SUCCESS)
            return cublas_fail(err, "cublasLtMatmul", st);
        return sb_ctx_check_launch(s->ctx, "cublasLtMatmul", err);
    case P_MMA:
        if (sb_mma_gemm_launch(s->in, s->ta, s->tb, m, s->N, s->K, s->A[set], s->lda, s->B[set], s->ldb, C,
                               s->N, s->ctx->stream) != 0)
            return sb_error_set(err, NULL, NULL, "solbook-mma refused M=%lld N=%lld K=%lld", (long long)m,
                                (long long)s->N, (long long)s->K);
        return sb_ctx_check_launch(s->ctx, "solbook-mma kernel launch", err);
    default:
        return sb_error_set(err, NULL, NULL, "gemm: provider index %d out of range", provider);
    }
}

static int gemm_run(void *p, int provider, int set, sb_error *err)
{
    gemm_state *s = p;
    return gemm_run_rows(s, provider, set, s->M, s->C, s->lt_desc, s->lt_a, s->lt_b, s->lt_c, &s->lt_algo, err);
}

/* Batch invariance: C's first m rows from the full-M call against the same
 * rows computed by a call with M = m (half of M, rounded down to the
 * provider's granularity). */
static int gemm_batch_invariance(void *p, int provider, int *invariant, sb_error *err)
{
    gemm_state *s = p;
    *invariant = -1;
    int64_t m = s->M / 2;
    if (provider == P_MMA)
        m = (m / SB_MMA_TILE_M) * SB_MMA_TILE_M;
    if (m < 1)
        return SB_OK;
    size_t es = sb_dtype_size(s->out), bytes = (size_t)m * (size_t)s->N * es;
    if (!s->C_small && sb_ctx_alloc(s->ctx, &s->C_small, (size_t)s->M * (size_t)s->N * es, err) != SB_OK)
        return SB_ERR;
    unsigned char *full = malloc(bytes), *part = malloc(bytes);
    if (!full || !part) {
        free(full);
        free(part);
        return sb_error_set(err, NULL, NULL, "out of host memory");
    }
    int rc = gemm_run(s, provider, 0, err);
    if (rc == SB_OK)
        rc = sb_ctx_download(s->ctx, full, s->C, bytes, err);
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    cublasLtMatmulAlgo_t algo;
    size_t ws = 0;
    if (rc == SB_OK && provider == P_LT) {
        rc = lt_build(s, m, &desc, &la, &lb, &lc, &algo, &ws, err);
        if (rc == SB_OK && ws > s->lt_ws_bytes) {
            /* the smaller problem's algorithm wants more workspace */
            sb_ctx_free(s->ctx, s->lt_ws);
            s->lt_ws = NULL;
            s->lt_ws_bytes = 0;
            rc = sb_ctx_alloc(s->ctx, &s->lt_ws, ws, err);
            if (rc == SB_OK)
                s->lt_ws_bytes = ws;
        }
    }
    if (rc == SB_OK)
        rc = gemm_run_rows(s, provider, 0, m, s->C_small, desc, la, lb, lc, &algo, err);
    if (rc == SB_OK)
        rc = sb_ctx_download(s->ctx, part, s->C_small, bytes, err);
    if (rc == SB_OK)
        *invariant = memcmp(full, part, bytes) == 0;
    if (desc)
        cublasLtMatmulDescDestroy(desc);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (lc)
        cublasLtMatrixLayoutDestroy(lc);
    free(full);
    free(part);
    return rc;
}

const sb_op sb_op_gemm = {
    .name = "gemm",
    .summary = "dense matrix product C = op(A) op(B), row-major",
    .modes = gemm_modes,
    .providers = gemm_providers,
    .shape_names = gemm_shape_names,
    .shape_defaults = gemm_shape_defaults,
    .params = gemm_params,
    .dtypes = SB_DTYPE_BIT(SB_DTYPE_FP32) | SB_DTYPE_BIT(SB_DTYPE_TF32) | SB_DTYPE_BIT(SB_DTYPE_FP16) |
              SB_DTYPE_BIT(SB_DTYPE_BF16) | SB_DTYPE_BIT(SB_DTYPE_FP8E4M3),
    .validate = gemm_validate,
    .input_set_bytes = gemm_input_set_bytes,
    .model_flops = gemm_flops,
    .model_bytes = gemm_bytes,
    .create = gemm_create,
    .destroy = gemm_destroy,
    .outputs = gemm_outputs,
    .reference_row = gemm_reference_row,
    .check_rows = gemm_check_rows,
    .supports = gemm_supports,
    .prepare = gemm_prepare,
    .run = gemm_run,
    .batch_invariance = gemm_batch_invariance,
    .provider_params = gemm_provider_params,
    .cpu_shape_defaults = gemm_cpu_shape_defaults,
    .recorded_params = gemm_recorded_params,
};
