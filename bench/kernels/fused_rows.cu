/* fused_rows.cu - the `fused` provider of the row ops: RMSNorm fwd/bwd,
 * fused add + RMSNorm (in place), LayerNorm fwd, Softmax fwd/bwd.
 * One block per row; the row is held in registers when it fits
 * (sbk::row_regs), else re-read (sbk::row_mem). fp32 math. */
#include "sbk_common.cuh"
#include "sbk_cuda.h"

using namespace sbk;

namespace {

template <typename T, typename TW, class ROW>
__global__ void __launch_bounds__(512) rmsnorm_fwd_k(const T *__restrict__ x, const TW *__restrict__ w,
                              T *__restrict__ y, int64_t N, float eps)
{
    constexpr int VW = ROW::VW;
    const int64_t off = (int64_t)blockIdx.x * N;
    ROW xr;
    xr.load(x + off, N);
    float ss = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) ss += v[i] * v[i];
    });
    const float rs = rsqrtf(block_sum(ss) / (float)N + eps);
    xr.each([&](int64_t j, const float *v, int) {
        float wf[VW], o[VW];
        io<TW, VW>::load(w + j, wf);
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = v[i] * rs * wf[i];
        io<T, VW>::store(y + off + j, o);
    });
}

/* Block g handles rows g, g + G, ...; its dw partial sums go to
 * partial[g, :]: in registers (ACC = true: row_regs with few vectors) or
 * read-modified-written in memory by the same thread (ACC = false). */
template <typename T, typename TW, class ROW, bool ACC>
__global__ void __launch_bounds__(512) rmsnorm_bwd_k(const T *__restrict__ dy, const T *__restrict__ x,
                              const TW *__restrict__ w, T *__restrict__ dx,
                              float *__restrict__ partial, int64_t M, int64_t N,
                              float eps)
{
    constexpr int VW = ROW::VW;
    constexpr int NACC = ACC ? ROW::SLOTS * VW : 1;
    float acc[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++) acc[i] = 0.0f;
    float *prow = partial + (int64_t)blockIdx.x * N;
    bool first = true;
    for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
        const int64_t off = r * N;
        ROW xr, gr;
        xr.load(x + off, N);
        gr.load(dy + off, N);
        float ss = 0.0f, gx = 0.0f;
        xr.each([&](int64_t, const float *v, int) {
#pragma unroll
            for (int i = 0; i < VW; i++) ss += v[i] * v[i];
        });
        /* g * w * x, with x read again from the holder */
        gr.each([&](int64_t j, const float *g, int k) {
            float wf[VW], xv[VW];
            io<TW, VW>::load(w + j, wf);
            row_at(xr, k, x + off, j, xv);
#pragma unroll
            for (int i = 0; i < VW; i++) gx += g[i] * wf[i] * xv[i];
        });
        const float rs = rsqrtf(block_sum(ss) / (float)N + eps);
        const float c = rs * rs * block_sum(gx) / (float)N;
        gr.each([&](int64_t j, const float *g, int k) {
            float wf[VW], xv[VW], o[VW];
            io<TW, VW>::load(w + j, wf);
            row_at(xr, k, x + off, j, xv);
#pragma unroll
            for (int i = 0; i < VW; i++) o[i] = rs * (g[i] * wf[i] - c * xv[i]);
            io<T, VW>::store(dx + off + j, o);
            if constexpr (ACC) {
#pragma unroll
                for (int i = 0; i < VW; i++) acc[k * VW + i] += g[i] * xv[i] * rs;
            } else {
                for (int i = 0; i < VW; i++) {
                    float p = first ? 0.0f : prow[j + i];
                    prow[j + i] = p + g[i] * xv[i] * rs;
                }
            }
        });
        first = false;
    }
    if constexpr (ACC) {
#pragma unroll
        for (int k = 0; k < ROW::SLOTS; k++) {
            int64_t idx = threadIdx.x + (int64_t)k * blockDim.x;
            if (idx * VW < N) io<float, VW>::store(prow + idx * VW, acc + k * VW);
        }
    }
}

/* dw[j] = sum over g of partial[g, j]: a block of 32 columns x 32 groups of
 * partial rows (coalesced 128-byte reads per warp); each thread sums the
 * rows g = ty, ty + 32, ... and the 32 sums of a column are added in shared
 * memory in a fixed order, so the result does not depend on timing. */
template <typename TW>
__global__ void __launch_bounds__(1024) column_sum_k(const float *__restrict__ partial,
                                                     TW *__restrict__ dw, int64_t G, int64_t N)
{
    __shared__ float sh[32][33];
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    const int64_t j = (int64_t)blockIdx.x * 32 + tx;
    float s = 0.0f;
    if (j < N)
        for (int64_t g = ty; g < G; g += 32) s += partial[g * N + j];
    sh[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && j < N) {
        float t = 0.0f;
        for (int k = 0; k < 32; k++) t += sh[k][tx];
        dw[j] = fromf<TW>(t);
    }
}

template <typename T, typename TW, class ROW>
__global__ void __launch_bounds__(512) add_rmsnorm_k(const T *x, const T *res, const TW *__restrict__ w,
                              T *x_out, T *res_out, int64_t N, float eps)
{
    constexpr int VW = ROW::VW;
    const int64_t off = (int64_t)blockIdx.x * N;
    ROW xr, rr;
    xr.load(x + off, N);
    rr.load(res + off, N);
    float ss = 0.0f;
    /* pass 1: res_out = T(x + res); sum of squares of the rounded values */
    xr.each([&](int64_t j, const float *a, int k) {
        float b[VW], s[VW];
        row_at(rr, k, res + off, j, b);
#pragma unroll
        for (int i = 0; i < VW; i++) {
            s[i] = tof<T>(fromf<T>(a[i] + b[i]));
            ss += s[i] * s[i];
        }
        io<T, VW>::store(res_out + off + j, s);
    });
    const float rs = rsqrtf(block_sum(ss) / (float)N + eps);
    /* pass 2: x_out = T(res_out * rs * w); the sum is rebuilt from the
     * registers, or read back from res_out by the thread that wrote it */
    xr.each([&](int64_t j, const float *a, int k) {
        float s[VW], wf[VW], o[VW];
        if constexpr (ROW::in_regs) {
            float b[VW];
            row_at(rr, k, res + off, j, b);
#pragma unroll
            for (int i = 0; i < VW; i++) s[i] = tof<T>(fromf<T>(a[i] + b[i]));
        } else {
            (void)a;
            (void)k;
            io<T, VW>::load(res_out + off + j, s);
        }
        io<TW, VW>::load(w + j, wf);
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = s[i] * rs * wf[i];
        io<T, VW>::store(x_out + off + j, o);
    });
}

template <typename T, typename TW, class ROW>
__global__ void __launch_bounds__(512) layernorm_fwd_k(const T *__restrict__ x, const TW *__restrict__ w,
                                const TW *__restrict__ b, T *__restrict__ y,
                                int64_t N, float eps)
{
    constexpr int VW = ROW::VW;
    const int64_t off = (int64_t)blockIdx.x * N;
    ROW xr;
    xr.load(x + off, N);
    float s = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) s += v[i];
    });
    const float mean = block_sum(s) / (float)N;
    float q = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) q += (v[i] - mean) * (v[i] - mean);
    });
    const float rs = rsqrtf(block_sum(q) / (float)N + eps);
    xr.each([&](int64_t j, const float *v, int) {
        float wf[VW], bf[VW], o[VW];
        io<TW, VW>::load(w + j, wf);
        io<TW, VW>::load(b + j, bf);
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = (v[i] - mean) * rs * wf[i] + bf[i];
        io<T, VW>::store(y + off + j, o);
    });
}

template <typename T, class ROW>
__global__ void __launch_bounds__(512) softmax_fwd_k(const T *__restrict__ x, T *__restrict__ y, int64_t N)
{
    constexpr int VW = ROW::VW;
    const int64_t off = (int64_t)blockIdx.x * N;
    ROW xr;
    xr.load(x + off, N);
    float m = -INFINITY;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) m = fmaxf(m, v[i]);
    });
    m = block_max(m);
    float s = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) s += __expf(v[i] - m);
    });
    const float inv = 1.0f / block_sum(s);
    xr.each([&](int64_t j, const float *v, int) {
        float o[VW];
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = __expf(v[i] - m) * inv;
        io<T, VW>::store(y + off + j, o);
    });
}

template <typename T, class ROW>
__global__ void __launch_bounds__(512) softmax_bwd_k(const T *__restrict__ dy, const T *__restrict__ y,
                              T *__restrict__ dx, int64_t N)
{
    constexpr int VW = ROW::VW;
    const int64_t off = (int64_t)blockIdx.x * N;
    ROW yr, gr;
    yr.load(y + off, N);
    gr.load(dy + off, N);
    float d = 0.0f;
    gr.each([&](int64_t j, const float *g, int k) {
        float yv[VW];
        row_at(yr, k, y + off, j, yv);
#pragma unroll
        for (int i = 0; i < VW; i++) d += g[i] * yv[i];
    });
    d = block_sum(d);
    gr.each([&](int64_t j, const float *g, int k) {
        float yv[VW], o[VW];
        row_at(yr, k, y + off, j, yv);
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = yv[i] * (g[i] - d);
        io<T, VW>::store(dx + off + j, o);
    });
}

bool rows_ok(int64_t M, int64_t N) { return M > 0 && N > 0 && M <= 0x7fffffff && N <= 0x7fffffff; }

} /* namespace */

extern "C" cudaError_t sbk_rmsnorm_fwd(const void *x, const void *w, void *y, int64_t M,
                                       int64_t N, float eps, sbk_dtype dt, sbk_dtype wdt,
                                       cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    int maxv = pick_row_layout(N, (int)sbk_dtype_size(dt),
                               aligned16(x) && aligned16(y) && aligned16(w), 1, &threads);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, SBK_DISPATCH_ROW(maxv,
        rmsnorm_fwd_k<T, TW, ROW><<<(unsigned)M, threads, 0, s>>>(
            (const T *)x, (const TW *)w, (T *)y, N, eps))));
    return launch_status();
}

extern "C" int64_t sbk_rmsnorm_bwd_blocks(int64_t M) { return M < 512 ? M : 512; }

extern "C" cudaError_t sbk_rmsnorm_bwd(const void *dy, const void *x, const void *w,
                                       void *dx, void *dw, float *partial, int64_t M,
                                       int64_t N, float eps, sbk_dtype dt, sbk_dtype wdt,
                                       cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    const int64_t G = sbk_rmsnorm_bwd_blocks(M);
    int maxv = pick_row_layout(N, (int)sbk_dtype_size(dt),
                               aligned16(x) && aligned16(dy) && aligned16(dx) && aligned16(w),
                               2, &threads);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt,
        switch (maxv) {
        case 1: rmsnorm_bwd_k<T, TW, row_regs<T, 1>, true><<<(unsigned)G, threads, 0, s>>>(
                    (const T *)dy, (const T *)x, (const TW *)w, (T *)dx, partial, M, N, eps); break;
        case 2: rmsnorm_bwd_k<T, TW, row_regs<T, 2>, true><<<(unsigned)G, threads, 0, s>>>(
                    (const T *)dy, (const T *)x, (const TW *)w, (T *)dx, partial, M, N, eps); break;
        case 4: rmsnorm_bwd_k<T, TW, row_regs<T, 4>, true><<<(unsigned)G, threads, 0, s>>>(
                    (const T *)dy, (const T *)x, (const TW *)w, (T *)dx, partial, M, N, eps); break;
        case -1: rmsnorm_bwd_k<T, TW, row_mem<T, vec<T>::n>, false><<<(unsigned)G, threads, 0, s>>>(
                    (const T *)dy, (const T *)x, (const TW *)w, (T *)dx, partial, M, N, eps); break;
        default: rmsnorm_bwd_k<T, TW, row_mem<T, 1>, false><<<(unsigned)G, threads, 0, s>>>(
                    (const T *)dy, (const T *)x, (const TW *)w, (T *)dx, partial, M, N, eps); break;
        }
        cudaError_t e = launch_status();
        if (e != cudaSuccess) return e;
        column_sum_k<TW><<<(unsigned)((N + 31) / 32), 1024, 0, s>>>(partial, (TW *)dw, G, N)));
    return launch_status();
}

extern "C" cudaError_t sbk_add_rmsnorm(const void *x, const void *res, const void *w,
                                       void *x_out, void *res_out, int64_t M, int64_t N,
                                       float eps, sbk_dtype dt, sbk_dtype wdt,
                                       cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    int maxv = pick_row_layout(N, (int)sbk_dtype_size(dt),
                               aligned16(x) && aligned16(res) && aligned16(w) &&
                                   aligned16(x_out) && aligned16(res_out),
                               2, &threads);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, SBK_DISPATCH_ROW2(maxv,
        add_rmsnorm_k<T, TW, ROW><<<(unsigned)M, threads, 0, s>>>(
            (const T *)x, (const T *)res, (const TW *)w, (T *)x_out, (T *)res_out, N, eps))));
    return launch_status();
}

extern "C" cudaError_t sbk_layernorm_fwd(const void *x, const void *w, const void *b,
                                         void *y, int64_t M, int64_t N, float eps,
                                         sbk_dtype dt, sbk_dtype wdt, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    int maxv = pick_row_layout(N, (int)sbk_dtype_size(dt),
                               aligned16(x) && aligned16(y) && aligned16(w) && aligned16(b),
                               1, &threads);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, SBK_DISPATCH_ROW(maxv,
        layernorm_fwd_k<T, TW, ROW><<<(unsigned)M, threads, 0, s>>>(
            (const T *)x, (const TW *)w, (const TW *)b, (T *)y, N, eps))));
    return launch_status();
}

extern "C" cudaError_t sbk_softmax_fwd(const void *x, void *y, int64_t M, int64_t N,
                                       sbk_dtype dt, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    int maxv = pick_row_layout(N, (int)sbk_dtype_size(dt), aligned16(x) && aligned16(y),
                               1, &threads);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_ROW(maxv,
        softmax_fwd_k<T, ROW><<<(unsigned)M, threads, 0, s>>>((const T *)x, (T *)y, N)));
    return launch_status();
}

extern "C" cudaError_t sbk_softmax_bwd(const void *dy, const void *y, void *dx, int64_t M,
                                       int64_t N, sbk_dtype dt, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    int maxv = pick_row_layout(N, (int)sbk_dtype_size(dt),
                               aligned16(dy) && aligned16(y) && aligned16(dx), 2, &threads);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_ROW2(maxv,
        softmax_bwd_k<T, ROW><<<(unsigned)M, threads, 0, s>>>(
            (const T *)dy, (const T *)y, (T *)dx, N)));
    return launch_status();
}
