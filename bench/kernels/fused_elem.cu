/* fused_elem.cu - the `fused` provider of the elementwise ops: RoPE (HF
 * rotate_half convention) forward and backward, SwiGLU forward and backward.
 * 16-byte vectors where sizes and alignment allow, else single elements. */
#include "sbk_common.cuh"
#include "sbk_cuda.h"

using namespace sbk;

namespace {

/* One work item = VW elements of the first half of a head and the VW
 * matching elements of the second half. Items are numbered token-major:
 * item = (token * (Hq + Hk) + head) * npair + p. */
template <typename T, int VW>
__global__ void __launch_bounds__(256) rope_k(const T *__restrict__ q, const T *__restrict__ k,
                       const T *__restrict__ cs, const T *__restrict__ sn,
                       T *__restrict__ qo, T *__restrict__ ko, int64_t items,
                       int64_t T_, int64_t Hq, int64_t Hk, int64_t D, int inverse)
{
    const int64_t half = D / 2, npair = half / VW, heads = Hq + Hk;
    for (int64_t it = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; it < items;
         it += (int64_t)gridDim.x * blockDim.x) {
        const int64_t p = it % npair, th = it / npair;
        const int64_t h = th % heads, tok = th / heads, t = tok % T_;
        const T *src;
        T *dst;
        if (h < Hq) {
            src = q + (tok * Hq + h) * D;
            dst = qo + (tok * Hq + h) * D;
        } else {
            src = k + (tok * Hk + (h - Hq)) * D;
            dst = ko + (tok * Hk + (h - Hq)) * D;
        }
        const int64_t i0 = p * VW;
        float x1[VW], x2[VW], c1[VW], c2[VW], s1[VW], s2[VW], o1[VW], o2[VW];
        io<T, VW>::load(src + i0, x1);
        io<T, VW>::load(src + half + i0, x2);
        io<T, VW>::load(cs + t * D + i0, c1);
        io<T, VW>::load(cs + t * D + half + i0, c2);
        io<T, VW>::load(sn + t * D + i0, s1);
        io<T, VW>::load(sn + t * D + half + i0, s2);
        if (!inverse) {
#pragma unroll
            for (int i = 0; i < VW; i++) {
                o1[i] = x1[i] * c1[i] - x2[i] * s1[i];
                o2[i] = x2[i] * c2[i] + x1[i] * s2[i];
            }
        } else {
#pragma unroll
            for (int i = 0; i < VW; i++) {
                o1[i] = x1[i] * c1[i] + x2[i] * s2[i];
                o2[i] = x2[i] * c2[i] - x1[i] * s1[i];
            }
        }
        io<T, VW>::store(dst + i0, o1);
        io<T, VW>::store(dst + half + i0, o2);
    }
}

template <typename T, int VW>
__global__ void __launch_bounds__(256) swiglu_fwd_k(const T *__restrict__ a, const T *__restrict__ b,
                             T *__restrict__ c, int64_t nvec)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec;
         i += (int64_t)gridDim.x * blockDim.x) {
        float av[VW], bv[VW], o[VW];
        io<T, VW>::load_stream(a + i * VW, av);
        io<T, VW>::load_stream(b + i * VW, bv);
#pragma unroll
        for (int e = 0; e < VW; e++) o[e] = av[e] / (1.0f + __expf(-av[e])) * bv[e];
        io<T, VW>::store_stream(c + i * VW, o);
    }
}

template <typename T, int VW>
__global__ void __launch_bounds__(256) swiglu_bwd_k(const T *__restrict__ dc, const T *__restrict__ a,
                             const T *__restrict__ b, T *__restrict__ da,
                             T *__restrict__ db, int64_t nvec)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec;
         i += (int64_t)gridDim.x * blockDim.x) {
        float g[VW], av[VW], bv[VW], oa[VW], ob[VW];
        io<T, VW>::load_stream(dc + i * VW, g);
        io<T, VW>::load_stream(a + i * VW, av);
        io<T, VW>::load_stream(b + i * VW, bv);
#pragma unroll
        for (int e = 0; e < VW; e++) {
            float s = 1.0f / (1.0f + __expf(-av[e]));
            ob[e] = g[e] * av[e] * s;
            oa[e] = g[e] * bv[e] * s * (1.0f + av[e] * (1.0f - s));
        }
        io<T, VW>::store_stream(da + i * VW, oa);
        io<T, VW>::store_stream(db + i * VW, ob);
    }
}

/* Grid for a grid-stride loop over n items: enough blocks to fill the
 * device several times over, capped. */
unsigned grid_for(int64_t n, int threads)
{
    int64_t blocks = (n + threads - 1) / threads;
    const int64_t cap = 132 * 32;
    return (unsigned)(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

} /* namespace */

extern "C" cudaError_t sbk_rope(const void *q, const void *k, const void *cos_t,
                                const void *sin_t, void *q_out, void *k_out, int64_t B,
                                int64_t T_, int64_t Hq, int64_t Hk, int64_t D, int inverse,
                                sbk_dtype dt, cudaStream_t s)
{
    if (B <= 0 || T_ <= 0 || Hq <= 0 || Hk <= 0 || D <= 0 || D % 2) return cudaErrorInvalidValue;
    const int64_t half = D / 2;
    const int vw = 16 / (int)sbk_dtype_size(dt);
    const bool vec_ok = half % vw == 0 && aligned16(q) && aligned16(k) && aligned16(cos_t) &&
                        aligned16(sin_t) && aligned16(q_out) && aligned16(k_out);
    SBK_DISPATCH_T(dt,
        if (vec_ok) {
            constexpr int VW = vec<T>::n;
            int64_t items = B * T_ * (Hq + Hk) * (half / VW);
            rope_k<T, VW><<<grid_for(items, 256), 256, 0, s>>>(
                (const T *)q, (const T *)k, (const T *)cos_t, (const T *)sin_t, (T *)q_out,
                (T *)k_out, items, T_, Hq, Hk, D, inverse);
        } else {
            int64_t items = B * T_ * (Hq + Hk) * half;
            rope_k<T, 1><<<grid_for(items, 256), 256, 0, s>>>(
                (const T *)q, (const T *)k, (const T *)cos_t, (const T *)sin_t, (T *)q_out,
                (T *)k_out, items, T_, Hq, Hk, D, inverse);
        });
    return launch_status();
}

extern "C" cudaError_t sbk_swiglu_fwd(const void *a, const void *b, void *c, int64_t n,
                                      sbk_dtype dt, cudaStream_t s)
{
    if (n <= 0) return cudaErrorInvalidValue;
    const int vw = 16 / (int)sbk_dtype_size(dt);
    const bool vec_ok = n % vw == 0 && aligned16(a) && aligned16(b) && aligned16(c);
    SBK_DISPATCH_T(dt,
        if (vec_ok) {
            constexpr int VW = vec<T>::n;
            swiglu_fwd_k<T, VW><<<grid_for(n / VW, 256), 256, 0, s>>>(
                (const T *)a, (const T *)b, (T *)c, n / VW);
        } else {
            swiglu_fwd_k<T, 1><<<grid_for(n, 256), 256, 0, s>>>(
                (const T *)a, (const T *)b, (T *)c, n);
        });
    return launch_status();
}

extern "C" cudaError_t sbk_swiglu_bwd(const void *dc, const void *a, const void *b, void *da,
                                      void *db, int64_t n, sbk_dtype dt, cudaStream_t s)
{
    if (n <= 0) return cudaErrorInvalidValue;
    const int vw = 16 / (int)sbk_dtype_size(dt);
    const bool vec_ok = n % vw == 0 && aligned16(dc) && aligned16(a) && aligned16(b) &&
                        aligned16(da) && aligned16(db);
    SBK_DISPATCH_T(dt,
        if (vec_ok) {
            constexpr int VW = vec<T>::n;
            swiglu_bwd_k<T, VW><<<grid_for(n / VW, 256), 256, 0, s>>>(
                (const T *)dc, (const T *)a, (const T *)b, (T *)da, (T *)db, n / VW);
        } else {
            swiglu_bwd_k<T, 1><<<grid_for(n, 256), 256, 0, s>>>(
                (const T *)dc, (const T *)a, (const T *)b, (T *)da, (T *)db, n);
        });
    return launch_status();
}
