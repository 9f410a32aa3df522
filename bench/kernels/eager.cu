/* eager.cu - the `reference` provider: the Hugging Face eager code, run the
 * way PyTorch eager runs it. One kernel per elementary op (upcast, square,
 * mean, add, rsqrt, multiply, downcast, ...), each writing its result to
 * device memory in fp32: the input is upcast by the first kernel and the
 * output downcast by the last (only the residual of add + RMSNorm and the
 * gradients handed to cuBLAS stay in the input dtype, as the semantics
 * need). The kernels themselves are plain grid-stride loops with
 * element-wise loads, like the generic ATen elementwise path without its
 * vectorisation; docs/KERNELS.md lists each op's sequence. */
#include "sbk_common.cuh"
#include "sbk_cuda.h"

using namespace sbk;

namespace {

__device__ __forceinline__ float ld(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case SBK_F16: return __half2float(((const f16 *)p)[i]);
    case SBK_BF16: return __bfloat162float(((const bf16 *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

__device__ __forceinline__ void st(void *p, int dt, int64_t i, float v)
{
    switch (dt) {
    case SBK_F16: ((f16 *)p)[i] = __float2half_rn(v); break;
    case SBK_BF16: ((bf16 *)p)[i] = __float2bfloat16_rn(v); break;
    default: ((float *)p)[i] = v; break;
    }
}

enum unary_op { U_CAST, U_SQUARE, U_EXP, U_NEG, U_SILU, U_ADD_SCALAR, U_RSQRT };
enum binary_op { B_MUL, B_ADD, B_SUB, B_DIV, B_MUL2, B_SILU_BWD, B_RSQRT_BWD };
/* how b is indexed for element i of a */
enum bcast { BC_FULL, BC_ROW, BC_COL, BC_ROPE };

#define GRID_STRIDE(i, n) \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (int64_t)gridDim.x * blockDim.x)

__global__ void unary_k(const void *a, int da, void *o, int dout, int64_t n, int op, float p)
{
    GRID_STRIDE(i, n) {
        float x = ld(a, da, i), y;
        switch (op) {
        case U_SQUARE: y = x * x; break;
        case U_EXP: y = expf(x); break;
        case U_NEG: y = -x; break;
        case U_SILU: y = x / (1.0f + expf(-x)); break;
        case U_ADD_SCALAR: y = x + p; break;
        case U_RSQRT: y = rsqrtf(x); break;
        default: y = x; break;
        }
        st(o, dout, i, y);
    }
}

__global__ void binary_k(const void *a, int da, const void *b, int db, void *o, int dout,
                         int64_t n, int op, int bc, int64_t p1, int64_t p2, int64_t p3)
{
    GRID_STRIDE(i, n) {
        int64_t j;
        switch (bc) {
        case BC_ROW: j = i / p1; break;
        case BC_COL: j = i % p1; break;
        case BC_ROPE: j = ((i / p1) % p2) * p3 + i % p3; break;
        default: j = i; break;
        }
        float x = ld(a, da, i), y = ld(b, db, j), r;
        switch (op) {
        case B_ADD: r = x + y; break;
        case B_SUB: r = x - y; break;
        case B_DIV: r = x / y; break;
        case B_MUL2: r = 2.0f * x * y; break;
        case B_SILU_BWD: { /* x = grad, y = input */
            float s = 1.0f / (1.0f + expf(-y));
            r = x * s * (1.0f + y * (1.0f - s));
            break;
        }
        case B_RSQRT_BWD: r = -0.5f * x * y * y * y; break; /* x = grad, y = rsqrt out */
        default: r = x * y; break;
        }
        st(o, dout, i, r);
    }
}

enum reduce_op { R_SUM, R_MEAN, R_MAX };

/* one block per row, fp32 out */
__global__ void __launch_bounds__(256) row_reduce_k(const void *a, int da, float *out, int64_t N, int op)
{
    const int64_t off = (int64_t)blockIdx.x * N;
    float v = op == R_MAX ? -INFINITY : 0.0f;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        float x = ld(a, da, off + j);
        v = op == R_MAX ? fmaxf(v, x) : v + x;
    }
    v = op == R_MAX ? block_max(v) : block_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = op == R_MEAN ? v / (float)N : v;
}

/* sum over rows (dim 0): a block of 32 columns x 32 row groups (coalesced
 * 128-byte rows per warp), the 32 partial sums of a column added in shared
 * memory in a fixed order */
__global__ void __launch_bounds__(1024) col_sum_k(const void *a, int da, void *out, int dout,
                                                  int64_t M, int64_t N)
{
    __shared__ float sh[32][33];
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    const int64_t j = (int64_t)blockIdx.x * 32 + tx;
    float s = 0.0f;
    if (j < N)
        for (int64_t r = ty; r < M; r += 32) s += ld(a, da, r * N + j);
    sh[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && j < N) {
        float t = 0.0f;
        for (int k = 0; k < 32; k++) t += sh[k][tx];
        st(out, dout, j, t);
    }
}

/* out[i] = v[i / N] * scale: the backward of mean over the last dim */
__global__ void expand_rows_k(const float *v, float *out, int64_t n, int64_t N, float scale)
{
    GRID_STRIDE(i, n) out[i] = v[i / N] * scale;
}

/* torch's log_softmax over the last dim (fp32), one block per row */
__global__ void __launch_bounds__(256) log_softmax_k(const float *x, float *y, int64_t V)
{
    const int64_t off = (int64_t)blockIdx.x * V;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < V; j += blockDim.x) m = fmaxf(m, x[off + j]);
    m = block_max(m);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < V; j += blockDim.x) s += expf(x[off + j] - m);
    const float lse = m + logf(block_sum(s));
    for (int64_t j = threadIdx.x; j < V; j += blockDim.x) y[off + j] = x[off + j] - lse;
}

/* torch's log_softmax backward: dx = g - exp(lp) * sum(g) */
__global__ void __launch_bounds__(256) log_softmax_bwd_k(const float *g, const float *lp, float *dx, int64_t V)
{
    const int64_t off = (int64_t)blockIdx.x * V;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < V; j += blockDim.x) s += g[off + j];
    s = block_sum(s);
    for (int64_t j = threadIdx.x; j < V; j += blockDim.x)
        dx[off + j] = g[off + j] - expf(lp[off + j]) * s;
}

/* nll_loss(reduction='none') rows, then the mean: total_weight (the count
 * of rows not ignored) is kept in tw for the backward, as torch keeps it */
__global__ void nll_rows_k(const float *lp, const int64_t *t, float *loss_rows, int64_t M, int64_t V)
{
    GRID_STRIDE(r, M) loss_rows[r] = t[r] == SBK_IGNORE_INDEX ? 0.0f : -lp[r * V + t[r]];
}

__global__ void __launch_bounds__(1024) nll_mean_k(const float *loss_rows, const int64_t *t, int64_t M,
                                                   float *loss, float *tw)
{
    float s = 0.0f, c = 0.0f;
    for (int64_t r = threadIdx.x; r < M; r += blockDim.x) {
        s += loss_rows[r];
        c += t[r] != SBK_IGNORE_INDEX ? 1.0f : 0.0f;
    }
    s = block_sum(s);
    c = block_sum(c);
    if (threadIdx.x == 0) {
        *tw = c;
        *loss = c > 0.0f ? s / c : 0.0f;
    }
}

__global__ void nll_bwd_k(float *g, const int64_t *t, const float *tw, int64_t M, int64_t V)
{
    GRID_STRIDE(r, M) if (t[r] != SBK_IGNORE_INDEX) g[r * V + t[r]] = -1.0f / *tw;
}

/* x [rows, D] -> out [rows, D/2] = -x[:, D/2:] (slice + neg, one kernel
 * because the slice is a view in torch) */
__global__ void neg_half_k(const void *x, void *out, int dt, int64_t rows, int64_t D, int64_t src_half)
{
    const int64_t h = D / 2, n = rows * h;
    GRID_STRIDE(i, n) st(out, dt, i, -ld(x, dt, (i / h) * D + src_half * h + i % h));
}

/* torch.cat((a, x[:, :D/2]), -1): a [rows, D/2], x [rows, D] -> out [rows, D] */
__global__ void cat_half_k(const void *a, const void *x, void *out, int dt, int64_t rows, int64_t D)
{
    const int64_t h = D / 2, n = rows * D;
    GRID_STRIDE(i, n) {
        const int64_t r = i / D, d = i % D;
        st(out, dt, i, d < h ? ld(a, dt, r * h + d) : ld(x, dt, r * D + (d - h)));
    }
}

/* slice backward: out [rows, D] zero except half dst_half = src, where src
 * is element (r, src_half * D/2 + d) of a [rows, src_D] tensor */
__global__ void slice_bwd_k(const void *src, int64_t src_D, int64_t src_half, void *out, int dt,
                            int64_t rows, int64_t D, int64_t dst_half)
{
    const int64_t h = D / 2, n = rows * D;
    GRID_STRIDE(i, n) {
        const int64_t r = i / D, d = i % D;
        const bool in = (d >= h) == (dst_half == 1);
        st(out, dt, i, in ? ld(src, dt, r * src_D + src_half * h + d % h) : 0.0f);
    }
}

unsigned grid(int64_t n)
{
    int64_t b = (n + 255) / 256;
    const int64_t cap = 132 * 16;
    return (unsigned)(b < 1 ? 1 : (b > cap ? cap : b));
}

size_t ru(size_t n) { return (n + 255) / 256 * 256; }

/* a small launch helper: returns from the caller on error */
#define CK(...)                                            \
    do {                                                   \
        __VA_ARGS__;                                       \
        cudaError_t e_ = cudaGetLastError();               \
        if (e_ != cudaSuccess) return e_;                  \
    } while (0)

cudaError_t un(const void *a, int da, void *o, int dout, int64_t n, int op, float p, cudaStream_t s)
{
    CK(unary_k<<<grid(n), 256, 0, s>>>(a, da, o, dout, n, op, p));
    return cudaSuccess;
}

cudaError_t bin(const void *a, int da, const void *b, int db, void *o, int dout, int64_t n, int op,
                int bc, int64_t p1, int64_t p2, int64_t p3, cudaStream_t s)
{
    CK(binary_k<<<grid(n), 256, 0, s>>>(a, da, b, db, o, dout, n, op, bc, p1, p2, p3));
    return cudaSuccess;
}

cudaError_t rred(const void *a, int da, float *out, int64_t M, int64_t N, int op, cudaStream_t s)
{
    CK(row_reduce_k<<<(unsigned)M, 256, 0, s>>>(a, da, out, N, op));
    return cudaSuccess;
}

#define TRY(x)                                   \
    do {                                         \
        cudaError_t e_ = (x);                    \
        if (e_ != cudaSuccess) return e_;        \
    } while (0)

bool ok_rows(int64_t M, int64_t N) { return M > 0 && N > 0 && M <= 0x7fffffff; }
bool ok_types(sbk_dtype dt, sbk_dtype wdt)
{
    return sbk_dtype_size(dt) != 0 && (wdt == dt || wdt == SBK_F32);
}

/* The RMSNorm forward up to the normalised x, fp32 throughout: xf (fp32 x),
 * r (rsqrt per row) and xn (xf * r) are what autograd keeps. */
cudaError_t rms_fwd_parts(const void *x, float *xf, float *sq, float *var, float *ve, float *r,
                          float *xn, int64_t M, int64_t N, float eps, sbk_dtype dt, cudaStream_t s)
{
    const int64_t n = M * N;
    TRY(un(x, dt, xf, SBK_F32, n, U_CAST, 0.0f, s));                       /* .to(float32) */
    TRY(un(xf, SBK_F32, sq, SBK_F32, n, U_SQUARE, 0.0f, s));               /* .pow(2) */
    TRY(rred(sq, SBK_F32, var, M, N, R_MEAN, s));                          /* .mean(-1) */
    TRY(un(var, SBK_F32, ve, SBK_F32, M, U_ADD_SCALAR, eps, s));           /* + eps */
    TRY(un(ve, SBK_F32, r, SBK_F32, M, U_RSQRT, 0.0f, s));                 /* rsqrt */
    TRY(bin(xf, SBK_F32, r, SBK_F32, xn, SBK_F32, n, B_MUL, BC_ROW, N, 0, 0, s)); /* x * r */
    return cudaSuccess;
}

} /* namespace */

/* ---- RMSNorm ---------------------------------------------------------------- */
/* saved: xf [M,N] fp32 | xn [M,N] fp32 | r [M] fp32 */

extern "C" size_t sbk_eager_rmsnorm_fwd_workspace(int64_t M, int64_t N, sbk_dtype dt)
{
    (void)dt;
    return 2 * ru((size_t)M * N * 4) + 3 * ru((size_t)M * 4);
}

extern "C" size_t sbk_eager_rmsnorm_saved_bytes(int64_t M, int64_t N, sbk_dtype dt)
{
    (void)dt;
    return 2 * ru((size_t)M * N * 4) + ru((size_t)M * 4);
}

extern "C" size_t sbk_eager_rmsnorm_bwd_workspace(int64_t M, int64_t N, sbk_dtype dt)
{
    (void)dt;
    return 3 * ru((size_t)M * N * 4) + 2 * ru((size_t)M * 4);
}

extern "C" cudaError_t sbk_eager_rmsnorm_save(const void *x, void *saved, void *ws, int64_t M,
                                              int64_t N, float eps, sbk_dtype dt, cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    const size_t mn = ru((size_t)M * N * 4);
    char *p = (char *)saved;
    float *xf = (float *)p, *xn = (float *)(p + mn), *r = (float *)(p + 2 * mn);
    char *q = (char *)ws;
    float *sq = (float *)q;
    float *var = (float *)(q + 2 * mn), *ve = (float *)(q + 2 * mn + ru((size_t)M * 4));
    return rms_fwd_parts(x, xf, sq, var, ve, r, xn, M, N, eps, dt, s);
}

extern "C" cudaError_t sbk_eager_rmsnorm_fwd(const void *x, const void *w, void *y, void *saved,
                                             void *ws, int64_t M, int64_t N, float eps,
                                             sbk_dtype dt, sbk_dtype wdt, cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, wdt)) return cudaErrorInvalidValue;
    const int64_t n = M * N;
    const size_t mn = ru((size_t)n * 4);
    char *q = (char *)ws;
    float *F0 = (float *)q, *F1 = (float *)(q + mn);
    float *var = (float *)(q + 2 * mn), *ve = var + ru((size_t)M * 4) / 4,
          *rr = var + 2 * (ru((size_t)M * 4) / 4);
    const float *xn;
    if (saved) {
        /* the intermediates autograd keeps go to `saved` */
        TRY(sbk_eager_rmsnorm_save(x, saved, ws, M, N, eps, dt, s));
        xn = (const float *)((const char *)saved + mn);
    } else {
        /* xn reuses sq's memory, as the caching allocator would */
        TRY(rms_fwd_parts(x, F0, F1, var, ve, rr, F1, M, N, eps, dt, s));
        xn = F1;
    }
    /* weight * x in fp32 (into the buffer of fp32 x, dead by now), then down */
    TRY(bin(xn, SBK_F32, w, wdt, F0, SBK_F32, n, B_MUL, BC_COL, N, 0, 0, s));
    return un(F0, SBK_F32, y, dt, n, U_CAST, 0.0f, s);
}

extern "C" cudaError_t sbk_eager_rmsnorm_bwd(const void *dy, const void *w, const void *saved,
                                             void *dx, void *dw, void *ws, int64_t M, int64_t N,
                                             sbk_dtype dt, sbk_dtype wdt, cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, wdt)) return cudaErrorInvalidValue;
    const int64_t n = M * N;
    const size_t mn = ru((size_t)n * 4);
    const char *sp = (const char *)saved;
    const float *xf = (const float *)sp, *xn = (const float *)(sp + mn),
                *r = (const float *)(sp + 2 * mn);
    char *p = (char *)ws;
    float *F0 = (float *)p, *F1 = (float *)(p + mn), *F2 = (float *)(p + 2 * mn);
    float *dr = (float *)(p + 3 * mn), *dve = dr + ru((size_t)M * 4) / 4;
    TRY(un(dy, dt, F0, SBK_F32, n, U_CAST, 0.0f, s));                      /* .to(dtype) bwd */
    /* y = xn * w */
    TRY(bin(F0, SBK_F32, w, wdt, F1, SBK_F32, n, B_MUL, BC_COL, N, 0, 0, s)); /* d xn = dy * w */
    TRY(bin(F0, SBK_F32, xn, SBK_F32, F2, SBK_F32, n, B_MUL, BC_FULL, 0, 0, 0, s));
    CK(col_sum_k<<<(unsigned)((N + 31) / 32), 1024, 0, s>>>(F2, SBK_F32, dw, wdt, M, N)); /* dw */
    /* xn = xf * r */
    TRY(bin(F1, SBK_F32, r, SBK_F32, F0, SBK_F32, n, B_MUL, BC_ROW, N, 0, 0, s)); /* d xf, part 1 */
    TRY(bin(F1, SBK_F32, xf, SBK_F32, F2, SBK_F32, n, B_MUL, BC_FULL, 0, 0, 0, s));
    TRY(rred(F2, SBK_F32, dr, M, N, R_SUM, s));                            /* d r */
    /* r = rsqrt(var + eps) */
    TRY(bin(dr, SBK_F32, r, SBK_F32, dve, SBK_F32, M, B_RSQRT_BWD, BC_FULL, 0, 0, 0, s));
    /* var = mean(sq) */
    CK(expand_rows_k<<<grid(n), 256, 0, s>>>(dve, F2, n, N, 1.0f / (float)N));
    /* sq = xf^2 */
    TRY(bin(F2, SBK_F32, xf, SBK_F32, F1, SBK_F32, n, B_MUL2, BC_FULL, 0, 0, 0, s));
    TRY(bin(F0, SBK_F32, F1, SBK_F32, F2, SBK_F32, n, B_ADD, BC_FULL, 0, 0, 0, s)); /* accumulate */
    /* xf = x.to(float32) */
    return un(F2, SBK_F32, dx, dt, n, U_CAST, 0.0f, s);
}

/* ---- fused add + RMSNorm (vLLM semantics, out of place + copies) ------------ */

extern "C" size_t sbk_eager_add_rmsnorm_workspace(int64_t M, int64_t N, sbk_dtype dt)
{
    return 2 * ru((size_t)M * N * sbk_dtype_size(dt)) + sbk_eager_rmsnorm_fwd_workspace(M, N, dt);
}

extern "C" cudaError_t sbk_eager_add_rmsnorm(const void *x, const void *res, const void *w,
                                             void *x_out, void *res_out, void *ws, int64_t M,
                                             int64_t N, float eps, sbk_dtype dt, sbk_dtype wdt,
                                             cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, wdt)) return cudaErrorInvalidValue;
    const size_t bytes = (size_t)M * N * sbk_dtype_size(dt);
    char *p = (char *)ws;
    void *sum = p; p += ru(bytes);
    void *y = p; p += ru(bytes);
    TRY(bin(x, dt, res, dt, sum, dt, M * N, B_ADD, BC_FULL, 0, 0, 0, s)); /* residual = x + residual */
    TRY(sbk_eager_rmsnorm_fwd(sum, w, y, NULL, p, M, N, eps, dt, wdt, s));     /* y = rmsnorm(residual) */
    /* the copies that in-place semantics need: residual.copy_(sum), x.copy_(y) */
    TRY(cudaMemcpyAsync(res_out, sum, bytes, cudaMemcpyDeviceToDevice, s));
    return cudaMemcpyAsync(x_out, y, bytes, cudaMemcpyDeviceToDevice, s);
}

/* ---- LayerNorm --------------------------------------------------------------- */

extern "C" size_t sbk_eager_layernorm_fwd_workspace(int64_t M, int64_t N, sbk_dtype dt)
{
    (void)dt;
    return 3 * ru((size_t)M * N * 4) + 4 * ru((size_t)M * 4);
}

extern "C" cudaError_t sbk_eager_layernorm_fwd(const void *x, const void *w, const void *b,
                                               void *y, void *ws, int64_t M, int64_t N, float eps,
                                               sbk_dtype dt, sbk_dtype wdt, cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, wdt)) return cudaErrorInvalidValue;
    const int64_t n = M * N;
    char *p = (char *)ws;
    float *F0 = (float *)p; p += ru((size_t)n * 4);
    float *F1 = (float *)p; p += ru((size_t)n * 4);
    float *F2 = (float *)p; p += ru((size_t)n * 4);
    float *mean = (float *)p; p += ru((size_t)M * 4);
    float *var = (float *)p; p += ru((size_t)M * 4);
    float *ve = (float *)p; p += ru((size_t)M * 4);
    float *r = (float *)p;
    TRY(un(x, dt, F0, SBK_F32, n, U_CAST, 0.0f, s));
    TRY(rred(F0, SBK_F32, mean, M, N, R_MEAN, s));
    TRY(bin(F0, SBK_F32, mean, SBK_F32, F1, SBK_F32, n, B_SUB, BC_ROW, N, 0, 0, s));
    TRY(un(F1, SBK_F32, F2, SBK_F32, n, U_SQUARE, 0.0f, s));
    TRY(rred(F2, SBK_F32, var, M, N, R_MEAN, s));
    TRY(un(var, SBK_F32, ve, SBK_F32, M, U_ADD_SCALAR, eps, s));
    TRY(un(ve, SBK_F32, r, SBK_F32, M, U_RSQRT, 0.0f, s));
    TRY(bin(F1, SBK_F32, r, SBK_F32, F0, SBK_F32, n, B_MUL, BC_ROW, N, 0, 0, s));
    TRY(bin(F0, SBK_F32, w, wdt, F2, SBK_F32, n, B_MUL, BC_COL, N, 0, 0, s));
    TRY(bin(F2, SBK_F32, b, wdt, F1, SBK_F32, n, B_ADD, BC_COL, N, 0, 0, s));
    return un(F1, SBK_F32, y, dt, n, U_CAST, 0.0f, s);
}

/* ---- Softmax ----------------------------------------------------------------- */

extern "C" size_t sbk_eager_softmax_workspace(int64_t M, int64_t N, sbk_dtype dt)
{
    (void)dt;
    return 3 * ru((size_t)M * N * 4) + ru((size_t)M * 4);
}

extern "C" cudaError_t sbk_eager_softmax_fwd(const void *x, void *y, void *ws, int64_t M,
                                             int64_t N, sbk_dtype dt, cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    const int64_t n = M * N;
    char *p = (char *)ws;
    float *F0 = (float *)p; p += ru((size_t)n * 4);
    float *F1 = (float *)p; p += 2 * ru((size_t)n * 4);
    float *v = (float *)p;
    TRY(un(x, dt, F0, SBK_F32, n, U_CAST, 0.0f, s));
    TRY(rred(F0, SBK_F32, v, M, N, R_MAX, s));
    TRY(bin(F0, SBK_F32, v, SBK_F32, F1, SBK_F32, n, B_SUB, BC_ROW, N, 0, 0, s));
    TRY(un(F1, SBK_F32, F0, SBK_F32, n, U_EXP, 0.0f, s));
    TRY(rred(F0, SBK_F32, v, M, N, R_SUM, s));
    TRY(bin(F0, SBK_F32, v, SBK_F32, F1, SBK_F32, n, B_DIV, BC_ROW, N, 0, 0, s));
    return un(F1, SBK_F32, y, dt, n, U_CAST, 0.0f, s);
}

extern "C" cudaError_t sbk_eager_softmax_bwd(const void *dy, const void *y, void *dx, void *ws,
                                             int64_t M, int64_t N, sbk_dtype dt, cudaStream_t s)
{
    if (!ok_rows(M, N) || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    const int64_t n = M * N;
    char *p = (char *)ws;
    float *F0 = (float *)p; p += ru((size_t)n * 4);
    float *F1 = (float *)p; p += ru((size_t)n * 4);
    float *F2 = (float *)p; p += ru((size_t)n * 4);
    float *v = (float *)p;
    TRY(un(dy, dt, F0, SBK_F32, n, U_CAST, 0.0f, s));
    TRY(un(y, dt, F1, SBK_F32, n, U_CAST, 0.0f, s));
    TRY(bin(F0, SBK_F32, F1, SBK_F32, F2, SBK_F32, n, B_MUL, BC_FULL, 0, 0, 0, s));
    TRY(rred(F2, SBK_F32, v, M, N, R_SUM, s));
    TRY(bin(F0, SBK_F32, v, SBK_F32, F2, SBK_F32, n, B_SUB, BC_ROW, N, 0, 0, s));
    TRY(bin(F1, SBK_F32, F2, SBK_F32, F0, SBK_F32, n, B_MUL, BC_FULL, 0, 0, 0, s));
    return un(F0, SBK_F32, dx, dt, n, U_CAST, 0.0f, s);
}

/* ---- RoPE (HF apply_rotary_pos_emb, fp32 intermediates) ----------------------- */

extern "C" size_t sbk_eager_rope_workspace(int64_t B, int64_t T, int64_t Hq, int64_t Hk,
                                           int64_t D, sbk_dtype dt)
{
    (void)dt;
    const int64_t H = Hq > Hk ? Hq : Hk;
    const size_t full = (size_t)B * T * H * D * 4;
    return 3 * ru(full) + ru(full / 2 + 16);
}

namespace {
cudaError_t rope_one(const void *x, const void *c, const void *sn, void *out, char *ws, int64_t B,
                     int64_t T, int64_t H, int64_t D, int inverse, sbk_dtype dt, size_t full_cap,
                     cudaStream_t s)
{
    const int64_t rows = B * T * H, n = rows * D;
    const int f = SBK_F32;
    float *F0 = (float *)ws;
    float *F1 = (float *)(ws + ru(full_cap));
    float *F2 = (float *)(ws + 2 * ru(full_cap));
    float *Hh = (float *)(ws + 3 * ru(full_cap));
    TRY(un(x, dt, F0, f, n, U_CAST, 0.0f, s));                                  /* upcast */
    if (!inverse) {
        TRY(bin(F0, f, c, dt, F1, f, n, B_MUL, BC_ROPE, H * D, T, D, s));         /* q * cos */
        CK(neg_half_k<<<grid(n / 2), 256, 0, s>>>(F0, Hh, f, rows, D, 1));        /* -x2 */
        CK(cat_half_k<<<grid(n), 256, 0, s>>>(Hh, F0, F2, f, rows, D));          /* cat(-x2, x1) */
        TRY(bin(F2, f, sn, dt, F0, f, n, B_MUL, BC_ROPE, H * D, T, D, s));        /* * sin */
        TRY(bin(F1, f, F0, f, F2, f, n, B_ADD, BC_FULL, 0, 0, 0, s));             /* + */
        return un(F2, f, out, dt, n, U_CAST, 0.0f, s);                          /* downcast */
    }
    /* autograd of the above, for the gradient g = x */
    TRY(bin(F0, f, c, dt, F1, f, n, B_MUL, BC_ROPE, H * D, T, D, s));             /* g * cos */
    TRY(bin(F0, f, sn, dt, F2, f, n, B_MUL, BC_ROPE, H * D, T, D, s));            /* g * sin */
    /* cat backward (views) -> neg backward on the first half */
    CK(neg_half_k<<<grid(n / 2), 256, 0, s>>>(F2, Hh, f, rows, D, 0));
    /* slice backward of x2 (second half), accumulated */
    CK(slice_bwd_k<<<grid(n), 256, 0, s>>>(Hh, D / 2, 0, F0, f, rows, D, 1));
    TRY(bin(F1, f, F0, f, F1, f, n, B_ADD, BC_FULL, 0, 0, 0, s));
    /* slice backward of x1 (first half) from the second half of g * sin */
    CK(slice_bwd_k<<<grid(n), 256, 0, s>>>(F2, D, 1, F0, f, rows, D, 0));
    TRY(bin(F1, f, F0, f, F2, f, n, B_ADD, BC_FULL, 0, 0, 0, s));
    return un(F2, f, out, dt, n, U_CAST, 0.0f, s);                              /* downcast */
}
} /* namespace */

extern "C" cudaError_t sbk_eager_rope(const void *q, const void *k, const void *cos_t,
                                      const void *sin_t, void *q_out, void *k_out, void *ws,
                                      int64_t B, int64_t T, int64_t Hq, int64_t Hk, int64_t D,
                                      int inverse, sbk_dtype dt, cudaStream_t s)
{
    if (B <= 0 || T <= 0 || Hq <= 0 || Hk <= 0 || D <= 0 || D % 2 || !ok_types(dt, dt))
        return cudaErrorInvalidValue;
    const int64_t H = Hq > Hk ? Hq : Hk;
    const size_t full = (size_t)B * T * H * D * 4;
    TRY(rope_one(q, cos_t, sin_t, q_out, (char *)ws, B, T, Hq, D, inverse, dt, full, s));
    return rope_one(k, cos_t, sin_t, k_out, (char *)ws, B, T, Hk, D, inverse, dt, full, s);
}

/* ---- SwiGLU (HF LlamaMLP's act_fn(gate) * up, fp32 intermediates) ------------ */

extern "C" size_t sbk_eager_swiglu_workspace(int64_t n, sbk_dtype dt)
{
    (void)dt;
    return ru((size_t)n * 4);
}

extern "C" cudaError_t sbk_eager_swiglu_fwd(const void *a, const void *b, void *c, void *ws,
                                            int64_t n, sbk_dtype dt, cudaStream_t s)
{
    if (n <= 0 || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    TRY(un(a, dt, ws, SBK_F32, n, U_SILU, 0.0f, s));                       /* silu(gate), fp32 */
    return bin(ws, SBK_F32, b, dt, c, dt, n, B_MUL, BC_FULL, 0, 0, 0, s);  /* * up */
}

extern "C" cudaError_t sbk_eager_swiglu_save(const void *a, void *saved, int64_t n, sbk_dtype dt,
                                             cudaStream_t s)
{
    if (n <= 0 || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    return un(a, dt, saved, SBK_F32, n, U_SILU, 0.0f, s);
}

extern "C" cudaError_t sbk_eager_swiglu_bwd(const void *dc, const void *a, const void *b,
                                            const void *saved, void *da, void *db, void *ws,
                                            int64_t n, sbk_dtype dt, cudaStream_t s)
{
    if (n <= 0 || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    TRY(bin(dc, dt, saved, SBK_F32, db, dt, n, B_MUL, BC_FULL, 0, 0, 0, s)); /* d up = g * silu(a) */
    TRY(bin(dc, dt, b, dt, ws, SBK_F32, n, B_MUL, BC_FULL, 0, 0, 0, s));     /* d silu = g * up */
    return bin(ws, SBK_F32, a, dt, da, dt, n, B_SILU_BWD, BC_FULL, 0, 0, 0, s); /* silu_backward */
}

/* ---- cross entropy (logits.float(), log_softmax, nll_loss) ------------------- */

extern "C" size_t sbk_eager_cross_entropy_workspace(int64_t M, int64_t V, int with_grad)
{
    return (with_grad ? 3 : 2) * ru((size_t)M * V * 4) + 256;
}

namespace {
/* logits.float() (skipped when the logits are already the fp32 buffer A,
 * which is then reused), log_softmax, nll_loss; with dx: the backward, dx
 * stored in xdt. A, Bf, Cf: M x V fp32; tw: one float. */
cudaError_t ce_core(const void *logits, sbk_dtype ldt, float *A, float *Bf, float *Cf, float *tw,
                    const int64_t *target, float *loss_rows, float *loss, void *dx, sbk_dtype xdt,
                    int64_t M, int64_t V, cudaStream_t s)
{
    const int64_t n = M * V;
    if (logits != (const void *)A)
        TRY(un(logits, ldt, A, SBK_F32, n, U_CAST, 0.0f, s));              /* logits.float() */
    CK(log_softmax_k<<<(unsigned)M, 256, 0, s>>>(A, Bf, V));                /* log_softmax */
    CK(nll_rows_k<<<grid(M), 256, 0, s>>>(Bf, target, loss_rows, M, V));    /* nll_loss */
    CK(nll_mean_k<<<1, 1024, 0, s>>>(loss_rows, target, M, loss, tw));
    if (!dx) return cudaSuccess;
    /* backward: A (the fp32 logits are dead by now) holds nll's gradient */
    TRY(cudaMemsetAsync(A, 0, (size_t)n * 4, s));                          /* zeros */
    CK(nll_bwd_k<<<grid(M), 256, 0, s>>>(A, target, tw, M, V));             /* scatter -1/tw */
    CK(log_softmax_bwd_k<<<(unsigned)M, 256, 0, s>>>(A, Bf, Cf, V));        /* log_softmax bwd */
    return un(Cf, SBK_F32, dx, xdt, n, U_CAST, 0.0f, s);                   /* .float() bwd */
}
} /* namespace */

extern "C" cudaError_t sbk_eager_cross_entropy(const void *logits, const int64_t *target,
                                               float *loss_rows, float *loss, void *dx, void *ws,
                                               int64_t M, int64_t V, sbk_dtype dt, cudaStream_t s)
{
    if (!ok_rows(M, V) || !ok_types(dt, dt)) return cudaErrorInvalidValue;
    const int64_t n = M * V;
    char *p = (char *)ws;
    float *A = (float *)p; p += ru((size_t)n * 4);
    float *Bf = (float *)p; p += ru((size_t)n * 4);
    float *Cf = dx ? (float *)p : nullptr;
    if (dx) p += ru((size_t)n * 4);
    return ce_core(logits, dt, A, Bf, Cf, (float *)p, target, loss_rows, loss, dx, dt, M, V, s);
}

/* ---- FLCE reference: full fp32 logits, eager CE, the two gradient GEMMs ----- */

namespace {
cudaDataType_t cuda_type(sbk_dtype dt)
{
    return dt == SBK_F32 ? CUDA_R_32F : (dt == SBK_F16 ? CUDA_R_16F : CUDA_R_16BF);
}
cudaError_t gemm_status(cublasStatus_t st)
{
    if (st == CUBLAS_STATUS_SUCCESS) return cudaGetLastError();
    return st == CUBLAS_STATUS_INVALID_VALUE ? cudaErrorInvalidValue : cudaErrorUnknown;
}
} /* namespace */

extern "C" size_t sbk_eager_flce_workspace(int64_t BT, int64_t H, int64_t V, sbk_dtype dt,
                                           int with_grad)
{
    (void)H;
    const size_t n = (size_t)BT * V;
    return 256 + (with_grad ? 3 * ru(n * 4) + ru(n * sbk_dtype_size(dt)) : 2 * ru(n * 4));
}

extern "C" cudaError_t sbk_eager_flce(cublasHandle_t handle, const void *hidden,
                                      const void *weight, const int64_t *target,
                                      float *loss_rows, float *loss, void *dh, void *dw, void *ws,
                                      int64_t BT, int64_t H, int64_t V, sbk_dtype dt,
                                      cudaStream_t s)
{
    if (BT <= 0 || H <= 0 || V <= 0 || BT > 0x7fffffff || H > 0x7fffffff || V > 0x7fffffff ||
        !ok_types(dt, dt))
        return cudaErrorInvalidValue;
    const size_t n = (size_t)BT * V;
    const bool grad = dh != nullptr || dw != nullptr;
    /* scratch: tw | logits (fp32) | log-probabilities | (with a gradient)
     * log_softmax's gradient | dlogits in dt */
    char *p = (char *)ws;
    float *tw = (float *)p; p += 256;
    float *A = (float *)p; p += ru(n * 4);
    float *Bf = (float *)p; p += ru(n * 4);
    float *Cf = grad ? (float *)p : nullptr;
    if (grad) p += ru(n * 4);
    void *dlog = grad ? p : nullptr;
    const cudaDataType_t ty = cuda_type(dt);
    const float one = 1.0f, zero = 0.0f;
    /* logits [BT,V] in fp32, materialised */
    TRY(gemm_status(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)V, (int)BT, (int)H, &one,
                                 weight, ty, (int)H, hidden, ty, (int)H, &zero, A, CUDA_R_32F,
                                 (int)V, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)));
    TRY(ce_core(A, SBK_F32, A, Bf, Cf, tw, target, loss_rows, loss, dlog, dt, BT, V, s));
    if (dh)
        TRY(gemm_status(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)H, (int)BT, (int)V,
                                     &one, weight, ty, (int)H, dlog, ty, (int)V, &zero, dh, ty,
                                     (int)H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)));
    if (dw)
        TRY(gemm_status(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_T, (int)H, (int)V, (int)BT,
                                     &one, hidden, ty, (int)H, dlog, ty, (int)V, &zero, dw, ty,
                                     (int)H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)));
    return cudaSuccess;
}
