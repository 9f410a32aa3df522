/* fused_elem.cu - the `fused` provider of the elementwise ops: RoPE (HF
 * rotate_half convention) forward and backward, SwiGLU forward and backward.
 * 16-byte vectors where sizes and alignment allow, else single elements. */
#include <stdio.h>
#include <string.h>

#include "sbk_common.cuh"
#include "sbk_cuda.h"

using namespace sbk;

namespace {

/* One RoPE work item = VW elements of the first half of a head and the VW
 * matching elements of the second half. Items are numbered token-major:
 * item = (token * (Hq + Hk) + head) * npair + p. The item's position comes
 * from three divisions; in 32 bits where every item number fits (narrow),
 * which is every shape of the presets, since a 64-bit division by a value
 * known only at run time is a long instruction sequence on the GPU. */
template <typename T, int VW> struct rope_op {
    const T *q, *k, *cs, *sn;
    T *qo, *ko;
    int64_t T_, Hq, Hk, D;
    int inverse, narrow;
    struct regs {
        held<T, VW> x1, x2, c1, c2, s1, s2;
        T *dst;
    };
    __device__ __forceinline__ void load(int64_t it, regs &r) const
    {
        const int64_t half = D / 2, heads = Hq + Hk;
        int64_t p, h, tok, t;
        if (narrow) {
            const uint32_t i = (uint32_t)it, np = (uint32_t)(half / VW), th = i / np;
            p = i - th * np;
            tok = th / (uint32_t)heads;
            h = th - (uint32_t)tok * (uint32_t)heads;
            t = (uint32_t)tok % (uint32_t)T_;
        } else {
            const int64_t np = half / VW, th = it / np;
            p = it % np;
            h = th % heads;
            tok = th / heads;
            t = tok % T_;
        }
        const T *src;
        if (h < Hq) {
            src = q + (tok * Hq + h) * D;
            r.dst = qo + (tok * Hq + h) * D;
        } else {
            src = k + (tok * Hk + (h - Hq)) * D;
            r.dst = ko + (tok * Hk + (h - Hq)) * D;
        }
        const int64_t i0 = p * VW;
        r.dst += i0;
        r.x1.load(src + i0);
        r.x2.load(src + half + i0);
        r.c1.load(cs + t * D + i0);
        r.c2.load(cs + t * D + half + i0);
        r.s1.load(sn + t * D + i0);
        r.s2.load(sn + t * D + half + i0);
    }
    __device__ __forceinline__ void finish(int64_t, const regs &r) const
    {
        float x1[VW], x2[VW], c1[VW], c2[VW], s1[VW], s2[VW], o1[VW], o2[VW];
        r.x1.get(x1);
        r.x2.get(x2);
        r.c1.get(c1);
        r.c2.get(c2);
        r.s1.get(s1);
        r.s2.get(s2);
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
        io<T, VW>::store(r.dst, o1);
        io<T, VW>::store(r.dst + D / 2, o2);
    }
};

/* c = silu(a) * b, VW elements an item */
template <typename T, int VW> struct swiglu_fwd_op {
    const T *a, *b;
    T *c;
    struct regs {
        held<T, VW> a, b;
    };
    __device__ __forceinline__ void load(int64_t i, regs &r) const
    {
        r.a.load_stream(a + i * VW);
        r.b.load_stream(b + i * VW);
    }
    __device__ __forceinline__ void finish(int64_t i, const regs &r) const
    {
        float av[VW], bv[VW], o[VW];
        r.a.get(av);
        r.b.get(bv);
#pragma unroll
        for (int e = 0; e < VW; e++) o[e] = av[e] / (1.0f + __expf(-av[e])) * bv[e];
        io<T, VW>::store_stream(c + i * VW, o);
    }
};

/* da, db from dc, a, b, VW elements an item */
template <typename T, int VW> struct swiglu_bwd_op {
    const T *dc, *a, *b;
    T *da, *db;
    struct regs {
        held<T, VW> g, a, b;
    };
    __device__ __forceinline__ void load(int64_t i, regs &r) const
    {
        r.g.load_stream(dc + i * VW);
        r.a.load_stream(a + i * VW);
        r.b.load_stream(b + i * VW);
    }
    __device__ __forceinline__ void finish(int64_t i, const regs &r) const
    {
        float g[VW], av[VW], bv[VW], oa[VW], ob[VW];
        r.g.get(g);
        r.a.get(av);
        r.b.get(bv);
#pragma unroll
        for (int e = 0; e < VW; e++) {
            float s = 1.0f / (1.0f + __expf(-av[e]));
            ob[e] = g[e] * av[e] * s;
            oa[e] = g[e] * bv[e] * s * (1.0f + av[e] * (1.0f - s));
        }
        io<T, VW>::store_stream(da + i * VW, oa);
        io<T, VW>::store_stream(db + i * VW, ob);
    }
};

/* An elementwise kernel over `items` items of Op: each thread loads U
 * items (all U before it computes any, so that U items' loads are in
 * flight at once), then computes and stores them. TILE: block b covers
 * items [b * blockDim * U, (b + 1) * blockDim * U), one pass, and the
 * grid covers every item; else a grid-stride loop over U items a pass. */
template <class Op, int U, bool TILE>
__global__ void __launch_bounds__(256) elem_k(const Op op, int64_t items)
{
    const int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    const int64_t ustep = TILE ? (int64_t)blockDim.x : nthreads;
    const int64_t pass = TILE ? items : nthreads * U;
    const int64_t first = TILE ? (int64_t)blockIdx.x * blockDim.x * U + threadIdx.x
                               : (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t i0 = first; i0 < items; i0 += pass) {
        typename Op::regs r[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (i0 + u * ustep < items) op.load(i0 + u * ustep, r[u]);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (i0 + u * ustep < items) op.finish(i0 + u * ustep, r[u]);
    }
}

/* The grid-stride loop's grid: enough blocks to fill an H100/H200 (132
 * SMs) several times over (32 blocks of 256 threads an SM), capped at that
 * many threads, fewer where there are fewer passes of work. */
unsigned stride_grid(int64_t items, int threads, int U)
{
    const int64_t per_block = (int64_t)threads * U;
    int64_t blocks = (items + per_block - 1) / per_block;
    const int64_t cap = (int64_t)132 * 32 * 256 / threads;
    return (unsigned)(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

template <class Op, int U>
cudaError_t elem_launch_u(const Op &op, int64_t items, const sbk_elem_plan *p, cudaStream_t s)
{
    if (!p->tile) {
        elem_k<Op, U, false><<<stride_grid(items, p->threads, U), p->threads, 0, s>>>(op, items);
        return launch_status();
    }
    const int64_t per_block = (int64_t)p->threads * U, blocks = (items + per_block - 1) / per_block;
    if (blocks > INT32_MAX)
        return cudaErrorInvalidConfiguration;
    elem_k<Op, U, true><<<(unsigned)blocks, p->threads, 0, s>>>(op, items);
    return launch_status();
}

/* Op's kernel as the plan says */
template <class Op>
cudaError_t elem_launch(const Op &op, int64_t items, const sbk_elem_plan *p, cudaStream_t s)
{
    switch (p->per_thread) {
    case 1: return elem_launch_u<Op, 1>(op, items, p, s);
    case 2: return elem_launch_u<Op, 2>(op, items, p, s);
    case 4: return elem_launch_u<Op, 4>(op, items, p, s);
    default: return cudaErrorInvalidValue;
    }
}

/* The single-element fallback (VW = 1, for sizes or addresses that are
 * not whole 16-byte vectors) runs the default plan whatever is asked. */
template <class Op>
cudaError_t elem_launch_single(sbk_elem_kernel k, const Op &op, int64_t items, cudaStream_t s)
{
    sbk_elem_plan p;
    sbk_elem_plan_make(k, NULL, &p);
    return elem_launch_u<Op, 1>(op, items, &p, s);
}

} /* namespace */

/* The defaults, measured (docs/KERNELS.md): SwiGLU as one tile of 256
 * items a block, a grid that covers them all; RoPE, whose cos/sin rows
 * each item reads again from L1/L2, as a grid-stride loop of 256-thread
 * blocks. Both an item a thread a pass. */
extern "C" int sbk_elem_plan_make(sbk_elem_kernel k, const char *req, sbk_elem_plan *p)
{
    *p = (sbk_elem_plan){k == SBK_ELEM_SWIGLU, 1, 256};
    if (!req || !*req || !strcmp(req, "auto"))
        return 0;
    sbk_elem_plan want = {0, 1, 256};
    const char *rest;
    if (!strncmp(req, "stride", 6)) {
        rest = req + 6;
    } else if (!strncmp(req, "tile", 4)) {
        want.tile = 1;
        rest = req + 4;
    } else {
        return -1;
    }
    if (*rest == ':') {
        if (rest[1] != '1' && rest[1] != '2' && rest[1] != '4')
            return -1;
        want.per_thread = rest[1] - '0';
        rest += 2;
    }
    if (!strcmp(rest, "/128"))
        want.threads = 128;
    else if (*rest && strcmp(rest, "/256"))
        return -1;
    *p = want;
    return 0;
}

extern "C" void sbk_elem_plan_name(const sbk_elem_plan *p, char *buf, size_t n)
{
    snprintf(buf, n, "%s:%d threads=%d", p->tile ? "tile" : "stride", p->per_thread, p->threads);
}

extern "C" cudaError_t sbk_rope(const void *q, const void *k, const void *cos_t,
                                const void *sin_t, void *q_out, void *k_out, int64_t B,
                                int64_t T_, int64_t Hq, int64_t Hk, int64_t D, int inverse,
                                sbk_dtype dt, const sbk_elem_plan *plan, cudaStream_t s)
{
    if (B <= 0 || T_ <= 0 || Hq <= 0 || Hk <= 0 || D <= 0 || D % 2) return cudaErrorInvalidValue;
    const int64_t half = D / 2;
    const int vw = 16 / (int)sbk_dtype_size(dt);
    const bool vec_ok = half % vw == 0 && aligned16(q) && aligned16(k) && aligned16(cos_t) &&
                        aligned16(sin_t) && aligned16(q_out) && aligned16(k_out);
    SBK_DISPATCH_T(dt,
        if (vec_ok) {
            constexpr int VW = vec<T>::n;
            const int64_t items = B * T_ * (Hq + Hk) * (half / VW);
            const rope_op<T, VW> op = {(const T *)q, (const T *)k, (const T *)cos_t, (const T *)sin_t,
                                       (T *)q_out, (T *)k_out, T_, Hq, Hk, D, inverse, items <= INT32_MAX};
            return elem_launch(op, items, plan, s);
        } else {
            const int64_t items = B * T_ * (Hq + Hk) * half;
            const rope_op<T, 1> op = {(const T *)q, (const T *)k, (const T *)cos_t, (const T *)sin_t,
                                      (T *)q_out, (T *)k_out, T_, Hq, Hk, D, inverse, items <= INT32_MAX};
            return elem_launch_single(SBK_ELEM_ROPE, op, items, s);
        });
    return cudaSuccess;
}

extern "C" cudaError_t sbk_swiglu_fwd(const void *a, const void *b, void *c, int64_t n,
                                      sbk_dtype dt, const sbk_elem_plan *plan, cudaStream_t s)
{
    if (n <= 0) return cudaErrorInvalidValue;
    const int vw = 16 / (int)sbk_dtype_size(dt);
    const bool vec_ok = n % vw == 0 && aligned16(a) && aligned16(b) && aligned16(c);
    SBK_DISPATCH_T(dt,
        if (vec_ok) {
            constexpr int VW = vec<T>::n;
            const swiglu_fwd_op<T, VW> op = {(const T *)a, (const T *)b, (T *)c};
            return elem_launch(op, n / VW, plan, s);
        } else {
            const swiglu_fwd_op<T, 1> op = {(const T *)a, (const T *)b, (T *)c};
            return elem_launch_single(SBK_ELEM_SWIGLU, op, n, s);
        });
    return cudaSuccess;
}

extern "C" cudaError_t sbk_swiglu_bwd(const void *dc, const void *a, const void *b, void *da,
                                      void *db, int64_t n, sbk_dtype dt, const sbk_elem_plan *plan,
                                      cudaStream_t s)
{
    if (n <= 0) return cudaErrorInvalidValue;
    const int vw = 16 / (int)sbk_dtype_size(dt);
    const bool vec_ok = n % vw == 0 && aligned16(dc) && aligned16(a) && aligned16(b) &&
                        aligned16(da) && aligned16(db);
    SBK_DISPATCH_T(dt,
        if (vec_ok) {
            constexpr int VW = vec<T>::n;
            const swiglu_bwd_op<T, VW> op = {(const T *)dc, (const T *)a, (const T *)b, (T *)da, (T *)db};
            return elem_launch(op, n / VW, plan, s);
        } else {
            const swiglu_bwd_op<T, 1> op = {(const T *)dc, (const T *)a, (const T *)b, (T *)da, (T *)db};
            return elem_launch_single(SBK_ELEM_SWIGLU, op, n, s);
        });
    return cudaSuccess;
}
