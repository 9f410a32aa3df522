/* fused_rows.cu - the `fused` provider of the row ops: RMSNorm fwd/bwd,
 * fused add + RMSNorm (in place), LayerNorm fwd, Softmax fwd/bwd.
 * One block per row; the row is held in registers when it fits
 * (sbk::row_regs), else re-read (sbk::row_mem). The RMSNorm forward may
 * also split a row over a thread block cluster, slices in shared memory,
 * and the backward walks rows in one wave of blocks (see each kernel).
 * fp32 math. */
#include <cuda/ptx>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbk_common.cuh"
#include "sbk_cuda.h"

using namespace sbk;

namespace {

/* The sum of a row whose C slices are held by the C blocks of a cluster
 * (C = 1: the block's own sum). Each block's part goes to red[par] in its
 * shared memory; after one cluster barrier every block adds the C parts in
 * rank order, so all get the same total. red[par] is written again two
 * rows on, after every block has passed the next row's barrier, so after
 * it has read this row's parts. */
__device__ __forceinline__ float cluster_row_sum(float part, int C, float *red, int par)
{
    if (C == 1) return part;
    if (threadIdx.x == 0) red[par] = part;
    cluster_barrier();
    float t = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    for (int q = 0; q < C; q++) t += *cl.map_shared_rank(&red[par], q);
#endif
    return t;
}

/* One block a row, or a cluster of C blocks a row (Hopper on), each block
 * holding a slice of S = N / C columns (ROW: in registers, in shared
 * memory, or left in memory and read twice); the weight is read (from L2)
 * in the output pass: loading it with the row instead (in registers) was
 * within 0.4% either way (H100, examples/h100/rmsnorm-fwd-plans/). */
template <typename T, typename TW, class ROW>
__global__ void __launch_bounds__(512) rmsnorm_fwd_k(const T *__restrict__ x, const TW *__restrict__ w,
                              T *__restrict__ y, int64_t N, float eps, int C, int hints)
{
    constexpr int VW = ROW::VW;
    __shared__ float red[1];
    const int64_t S = N / C, col0 = (int64_t)(blockIdx.x % (unsigned)C) * S;
    const int64_t off = (int64_t)(blockIdx.x / (unsigned)C) * N + col0;
    ROW xr;
    if constexpr (ROW::in_regs)
        xr.load(x + off, S, !(hints & SBK_FWD_PLAIN_LOAD));
    else
        xr.load(x + off, S);
    float ss = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) ss += v[i] * v[i];
    });
    const float rs = rsqrtf(cluster_row_sum(block_sum(ss), C, red, 0) / (float)N + eps);
    xr.each([&](int64_t j, const float *v, int) {
        float wf[VW], o[VW];
        io<TW, VW>::load(w + col0 + j, wf);
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = v[i] * rs * wf[i];
        if (hints & SBK_FWD_PLAIN_STORE)
            io<T, VW>::store(y + off + j, o);
        else
            io<T, VW>::store_stream(y + off + j, o);
    });
    if (C > 1) cluster_barrier(); /* no block leaves while another may still read its red */
}

/* The backward's arithmetic on VW elements, shared by its three row
 * holders: the two row sums (x^2 and dy w x), then dx and the dw partial. */
template <int VW>
__device__ __forceinline__ void rms_bwd_sums(const float *xv, const float *g, const float *wf, float &ss, float &gx)
{
#pragma unroll
    for (int i = 0; i < VW; i++) {
        ss += xv[i] * xv[i];
        gx += g[i] * wf[i] * xv[i];
    }
}
template <int VW>
__device__ __forceinline__ void rms_bwd_out(const float *xv, const float *g, const float *wf, float rs, float c,
                                            float *o, float *dw)
{
#pragma unroll
    for (int i = 0; i < VW; i++) {
        o[i] = rs * (g[i] * wf[i] - c * xv[i]);
        dw[i] += g[i] * xv[i] * rs;
    }
}

/* The same vector of x, dy (from shared memory) and w (from global). */
template <typename T, typename TW, int VW>
__device__ __forceinline__ void rms_bwd_smem_load(const uint4 *sx, const uint4 *sg, const TW *w, int idx, float *xv,
                                                  float *g, float *wf)
{
    io<T, VW>::load(reinterpret_cast<const T *>(sx + idx), xv);
    io<T, VW>::load(reinterpret_cast<const T *>(sg + idx), g);
    io<TW, VW>::load(w + (int64_t)idx * VW, wf);
}

/* The backward in one wave of G blocks (a few per SM); block g handles
 * rows g, g + G, ... and keeps its dw partial sums in registers until the
 * end, when they go to partial[g, :]. x and dy rows go through shared
 * memory, double-buffered: the next row's cp.async copies are issued before
 * the current row is reduced, so every block always has a row in flight
 * (row_regs with the same prefetch needed 77 registers a thread and ran one
 * 448-thread block per SM: ncu, H100, 4096 x 7168, 22% warps active, 61%
 * of DRAM bandwidth). Thread t owns vectors t + k * blockDim.x, k < SLOTS,
 * in the copies, the reads and the accumulators. */
template <typename T, typename TW, int SLOTS, int NBUF = 2>
__global__ void __launch_bounds__(256) rmsnorm_bwd_smem_k(const T *__restrict__ dy, const T *__restrict__ x,
                                                          const TW *__restrict__ w, T *__restrict__ dx,
                                                          float *__restrict__ partial, int64_t M, int64_t N,
                                                          float eps, int /* cluster: 1 */)
{
    pdl_launch_dependents(); /* the column sum may take the SMs as blocks finish */
    constexpr int VW = vec<T>::n;
    const int nvec = (int)(N / VW);
    uint4 *sm = dyn_smem(); /* [buffer 0: x | dy][buffer 1: x | dy], nvec vectors each (NBUF 1: one buffer) */
    float acc[SLOTS * VW];
#pragma unroll
    for (int i = 0; i < SLOTS * VW; i++) acc[i] = 0.0f;
    const int64_t G = gridDim.x;
    auto issue = [&](int b, int64_t r) {
        uint4 *sx = sm + (size_t)b * 2 * nvec, *sg = sx + nvec;
        const T *xr = x + r * N, *gr = dy + r * N;
#pragma unroll
        for (int k = 0; k < SLOTS; k++) {
            const int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                cp_async16(sx + idx, xr + (int64_t)idx * VW);
                cp_async16(sg + idx, gr + (int64_t)idx * VW);
            }
        }
        cp_async_commit();
    };
    int b = 0;
    if (NBUF == 2 && (int64_t)blockIdx.x < M) issue(0, blockIdx.x);
    for (int64_t r = blockIdx.x; r < M; r += G, b ^= NBUF - 1) {
        if (NBUF == 1) {
            /* one buffer: the row is fetched once the thread has read its
             * vectors of the last one (each thread reads only what it copied) */
            issue(0, r);
            cp_async_wait<0>();
        } else if (r + G < M) {
            issue(b ^ 1, r + G);
            cp_async_wait<1>(); /* this row's group done, the next one in flight */
        } else {
            cp_async_wait<0>();
        }
        const uint4 *sx = sm + (size_t)b * 2 * nvec, *sg = sx + nvec;
        const int64_t off = r * N;
        float ss = 0.0f, gx = 0.0f;
#pragma unroll
        for (int k = 0; k < SLOTS; k++) {
            const int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                float xv[VW], g[VW], wf[VW];
                rms_bwd_smem_load<T, TW, VW>(sx, sg, w, idx, xv, g, wf);
                rms_bwd_sums<VW>(xv, g, wf, ss, gx);
            }
        }
        const float2 sums = block_sum2(ss, gx);
        const float rs = rsqrtf(sums.x / (float)N + eps);
        const float c = rs * rs * sums.y / (float)N;
#pragma unroll
        for (int k = 0; k < SLOTS; k++) {
            const int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                float xv[VW], g[VW], wf[VW], o[VW];
                rms_bwd_smem_load<T, TW, VW>(sx, sg, w, idx, xv, g, wf);
                rms_bwd_out<VW>(xv, g, wf, rs, c, o, acc + k * VW);
                io<T, VW>::store_stream(dx + off + (int64_t)idx * VW, o);
            }
        }
    }
    float *prow = partial + (int64_t)blockIdx.x * N;
#pragma unroll
    for (int k = 0; k < SLOTS; k++) {
        const int idx = (int)threadIdx.x + k * (int)blockDim.x;
        if (idx < nvec) io<float, VW>::store(prow + (int64_t)idx * VW, acc + k * VW);
    }
}

/* Rows too long for one block's shared memory, split over a thread block
 * cluster (Hopper on): block q of a cluster of C holds columns [q S, (q+1) S)
 * of every row the cluster handles (S = N / C), double-buffered in shared
 * memory as in rmsnorm_bwd_smem_k, and keeps the dw partial sums of those
 * columns in registers. The two row sums are added across the cluster
 * through distributed shared memory, in rank order, so every block gets the
 * same rs and c. Cluster k handles rows k, k + K, ... (K clusters) and
 * stores its dw partials in partial[k, :]. Before, such rows were read
 * twice from memory and the dw partials read-modified-written in device
 * memory for every row: 21% of the copy ceiling at 2048 x 32768 bf16 on
 * the H100, half the speed of torch.compile. */
template <typename T, typename TW, int SLOTS>
__global__ void __launch_bounds__(256) rmsnorm_bwd_split_k(const T *__restrict__ dy, const T *__restrict__ x,
                                                           const TW *__restrict__ w, T *__restrict__ dx,
                                                           float *__restrict__ partial, int64_t M, int64_t N,
                                                           float eps, int C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* never launched there: the host picks it on Hopper on */
#else
    pdl_launch_dependents(); /* the column sum may take the SMs as blocks finish */
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    __shared__ float2 red[2]; /* this block's two row sums, for rows of either parity */
    constexpr int VW = vec<T>::n;
    const int64_t S = N / C, col0 = (int64_t)cl.block_rank() * S;
    const int nvec = (int)(S / VW);
    const int64_t K = gridDim.x / C, k0 = blockIdx.x / C;
    uint4 *sm = dyn_smem(); /* [buffer 0: x | dy][buffer 1: x | dy], nvec vectors each */
    float acc[SLOTS * VW];
#pragma unroll
    for (int i = 0; i < SLOTS * VW; i++) acc[i] = 0.0f;
    const TW *ws = w + col0;
    auto issue = [&](int b, int64_t r) {
        uint4 *sx = sm + (size_t)b * 2 * nvec, *sg = sx + nvec;
        const T *xr = x + r * N + col0, *gr = dy + r * N + col0;
#pragma unroll
        for (int k = 0; k < SLOTS; k++) {
            const int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                cp_async16(sx + idx, xr + (int64_t)idx * VW);
                cp_async16(sg + idx, gr + (int64_t)idx * VW);
            }
        }
        cp_async_commit();
    };
    int b = 0;
    if (k0 < M) issue(0, k0);
    for (int64_t r = k0; r < M; r += K, b ^= 1) {
        if (r + K < M) {
            issue(b ^ 1, r + K);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        const uint4 *sx = sm + (size_t)b * 2 * nvec, *sg = sx + nvec;
        float ss = 0.0f, gx = 0.0f;
#pragma unroll
        for (int k = 0; k < SLOTS; k++) {
            const int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                float xv[VW], g[VW], wf[VW];
                rms_bwd_smem_load<T, TW, VW>(sx, sg, ws, idx, xv, g, wf);
                rms_bwd_sums<VW>(xv, g, wf, ss, gx);
            }
        }
        const float2 part = block_sum2(ss, gx);
        if (threadIdx.x == 0) red[b] = part;
        /* one cluster barrier a row: red[b] is written again two rows on,
         * after every block has passed the next row's barrier, so after it
         * has read this row's sums */
        cl.sync();
        float2 sums = make_float2(0.0f, 0.0f);
        for (int q = 0; q < C; q++) {
            const float2 o = *cl.map_shared_rank(&red[b], q);
            sums.x += o.x;
            sums.y += o.y;
        }
        const float rs = rsqrtf(sums.x / (float)N + eps);
        const float c = rs * rs * sums.y / (float)N;
        const int64_t off = r * N + col0;
#pragma unroll
        for (int k = 0; k < SLOTS; k++) {
            const int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                float xv[VW], g[VW], wf[VW], o[VW];
                rms_bwd_smem_load<T, TW, VW>(sx, sg, ws, idx, xv, g, wf);
                rms_bwd_out<VW>(xv, g, wf, rs, c, o, acc + k * VW);
                io<T, VW>::store_stream(dx + off + (int64_t)idx * VW, o);
            }
        }
    }
    float *prow = partial + k0 * N + col0;
#pragma unroll
    for (int k = 0; k < SLOTS; k++) {
        const int idx = (int)threadIdx.x + k * (int)blockDim.x;
        if (idx < nvec) io<float, VW>::store(prow + (int64_t)idx * VW, acc + k * VW);
    }
    cl.sync(); /* no block leaves while another may still read its red */
#endif
}

/* Rows held in registers (row_regs, MAXV vectors of x and of dy per
 * thread): block g handles rows g, g + G, ... and keeps its dw partial sums
 * in registers. PF: the next row's x and dy are loaded into a second pair
 * of holders before the current row is reduced (only where that still
 * leaves three 256-thread blocks per SM: H100, 16384 x 4096 bf16, 90% of
 * the copy ceiling against 80% through shared memory; with 448-thread
 * blocks at 7168 it ran one block per SM and 65%). */
template <typename T, typename TW, int MAXV, bool PF>
__global__ void __launch_bounds__(512) rmsnorm_bwd_regs_k(const T *__restrict__ dy, const T *__restrict__ x,
                                                          const TW *__restrict__ w, T *__restrict__ dx,
                                                          float *__restrict__ partial, int64_t M, int64_t N,
                                                          float eps, int /* cluster: 1 */)
{
    pdl_launch_dependents(); /* the column sum may take the SMs as blocks finish */
    typedef row_regs<T, MAXV> ROW;
    constexpr int VW = ROW::VW;
    /* fp32 rows: plain loads of x and dy and a plain store of dx, not the
     * streaming hints of the other row kernels. Behind st.global.cs ptxas
     * left each weight load after the previous store (77 registers against
     * 86), and with the hints fp32 rows of 7168 and 8192 took 1.02-1.09x
     * the time on an H100 and 1.26-1.28x on an H200. 16-bit rows keep the
     * hints: plain they took 0.98-1.02x (examples/h100/stream-hints/,
     * examples/h200/stream-hints/). */
    constexpr bool stream = sizeof(T) < 4;
    float acc[MAXV * VW];
#pragma unroll
    for (int i = 0; i < MAXV * VW; i++) acc[i] = 0.0f;
    const int64_t G = gridDim.x;
    auto step = [&](const ROW &xr, const ROW &gr, int64_t r) {
        const int64_t off = r * N;
        float ss = 0.0f, gx = 0.0f;
        gr.each([&](int64_t j, const float *g, int k) {
            float wf[VW], xv[VW];
            io<TW, VW>::load(w + j, wf);
            row_at(xr, k, x + off, j, xv);
            rms_bwd_sums<VW>(xv, g, wf, ss, gx);
        });
        const float2 sums = block_sum2(ss, gx);
        const float rs = rsqrtf(sums.x / (float)N + eps);
        const float c = rs * rs * sums.y / (float)N;
        gr.each([&](int64_t j, const float *g, int k) {
            float wf[VW], xv[VW], o[VW];
            io<TW, VW>::load(w + j, wf);
            row_at(xr, k, x + off, j, xv);
            rms_bwd_out<VW>(xv, g, wf, rs, c, o, acc + k * VW);
            if constexpr (stream)
                io<T, VW>::store_stream(dx + off + j, o);
            else
                io<T, VW>::store(dx + off + j, o);
        });
    };
    ROW xa, ga;
    if constexpr (PF) {
        ROW xb, gb;
        int64_t r = blockIdx.x;
        if (r < M) {
            xa.load(x + r * N, N, stream);
            ga.load(dy + r * N, N, stream);
        }
        for (; r < M; r += 2 * G) {
            if (r + G < M) {
                xb.load(x + (r + G) * N, N, stream);
                gb.load(dy + (r + G) * N, N, stream);
            }
            step(xa, ga, r);
            if (r + G >= M) break;
            if (r + 2 * G < M) {
                xa.load(x + (r + 2 * G) * N, N, stream);
                ga.load(dy + (r + 2 * G) * N, N, stream);
            }
            step(xb, gb, r + G);
        }
    } else {
        for (int64_t r = blockIdx.x; r < M; r += G) {
            xa.load(x + r * N, N, stream);
            ga.load(dy + r * N, N, stream);
            step(xa, ga, r);
        }
    }
    float *prow = partial + (int64_t)blockIdx.x * N;
#pragma unroll
    for (int k = 0; k < MAXV; k++) {
        int64_t idx = threadIdx.x + (int64_t)k * blockDim.x;
        if (idx * VW < N) io<float, VW>::store(prow + idx * VW, acc + k * VW);
    }
}

/* Rows too long for registers (row_mem): block g handles rows g, g + G,
 * ...; x is re-read from L1/L2 in each pass, and the dw partial sums are
 * read-modified-written in partial[g, :] by the thread that owns them. */
template <typename T, typename TW, class ROW>
__global__ void __launch_bounds__(512) rmsnorm_bwd_mem_k(const T *__restrict__ dy, const T *__restrict__ x,
                                                         const TW *__restrict__ w, T *__restrict__ dx,
                                                         float *__restrict__ partial, int64_t M, int64_t N,
                                                         float eps, int /* cluster: 1 */)
{
    pdl_launch_dependents(); /* the column sum may take the SMs as blocks finish */
    constexpr int VW = ROW::VW;
    float *prow = partial + (int64_t)blockIdx.x * N;
    bool first = true;
    for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
        const int64_t off = r * N;
        ROW gr;
        gr.load(dy + off, N);
        float ss = 0.0f, gx = 0.0f;
        gr.each([&](int64_t j, const float *g, int) {
            float wf[VW], xv[VW];
            io<TW, VW>::load(w + j, wf);
            io<T, VW>::load(x + off + j, xv);
            rms_bwd_sums<VW>(xv, g, wf, ss, gx);
        });
        const float2 sums = block_sum2(ss, gx);
        const float rs = rsqrtf(sums.x / (float)N + eps);
        const float c = rs * rs * sums.y / (float)N;
        gr.each([&](int64_t j, const float *g, int) {
            float wf[VW], xv[VW], o[VW];
            io<TW, VW>::load(w + j, wf);
            io<T, VW>::load(x + off + j, xv);
#pragma unroll
            for (int i = 0; i < VW; i++) {
                o[i] = rs * (g[i] * wf[i] - c * xv[i]);
                float p = first ? 0.0f : prow[j + i];
                prow[j + i] = p + g[i] * xv[i] * rs;
            }
            io<T, VW>::store_stream(dx + off + j, o);
        });
        first = false;
    }
}

/* Drops a 128-byte line from L2 without writing it back (sm_80 on): its
 * contents become undefined. */
__device__ __forceinline__ void l2_discard_line(const void *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
#endif
}

/* dw[j] = sum over g of partial[g, j]: a block of 32 columns x 32 groups of
 * partial rows (coalesced 128-byte reads per warp); each thread sums the
 * rows g = ty, ty + 32, ... and the 32 sums of a column are added in shared
 * memory in a fixed order, so the result does not depend on timing.
 * The partials are scratch, written by the kernel just before and still in
 * L2: with `discard` (every row of partial a whole number of 128-byte
 * lines, so that each line is read by one warp alone), each warp drops the
 * lines it has read from L2 once it has read them, so that they are never
 * written back to DRAM. */
template <typename TW>
__global__ void __launch_bounds__(1024) column_sum_k(const float *__restrict__ partial,
                                                     TW *__restrict__ dw, int64_t G, int64_t N, int discard)
{
    __shared__ float sh[32][33];
    pdl_wait(); /* the partials of the kernel before, complete */
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    const int64_t j = (int64_t)blockIdx.x * 32 + tx;
    /* four independent accumulators keep four loads in flight per thread;
     * the order of the adds is still fixed */
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    if (j < N) {
        int64_t g = ty;
        for (; g + 96 < G; g += 128) {
            s0 += partial[g * N + j];
            s1 += partial[(g + 32) * N + j];
            s2 += partial[(g + 64) * N + j];
            s3 += partial[(g + 96) * N + j];
        }
        for (; g < G; g += 32) s0 += partial[g * N + j];
    }
    const float s = (s0 + s1) + (s2 + s3);
    sh[ty][tx] = s;
    if (discard) {
        __syncwarp(); /* every lane's reads of the warp's lines are done (their values added) */
        for (int64_t g = ty + 32 * tx; g < G; g += 32 * 32) l2_discard_line(partial + g * N + blockIdx.x * 32);
    }
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
        io<T, VW>::store_stream(res_out + off + j, s);
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
        io<T, VW>::store_stream(x_out + off + j, o);
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
        io<T, VW>::store_stream(y + off + j, o);
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
    /* exp(v - m) = 2^(v log2e - m log2e): one FFMA and one MUFU op, and
     * the division by the sum folds into the exponent of the output pass */
    const float mb = m * LOG2E_F;
    float s = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) s += fast_exp2(fmaf(v[i], LOG2E_F, -mb));
    });
    const float c = mb + __log2f(block_sum(s));
    xr.each([&](int64_t j, const float *v, int) {
        float o[VW];
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = fast_exp2(fmaf(v[i], LOG2E_F, -c));
        io<T, VW>::store_stream(y + off + j, o);
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
        io<T, VW>::store_stream(dx + off + j, o);
    });
}

/* The softmax backward with dy and y read through L2 (row_l2, Q vectors
 * of each in flight a thread): the dot product's pass keeps both rows in
 * L2 (evict-last), the pass that writes dx reads them evict-first. */
template <typename T, int Q>
__global__ void __launch_bounds__(512) softmax_bwd_l2_k(const T *__restrict__ dy, const T *__restrict__ y,
                                                        T *__restrict__ dx, int64_t N)
{
    constexpr int VW = row_l2<T, Q>::VW;
    const int64_t off = (int64_t)blockIdx.x * N;
    row_l2<T, Q> gr, yr;
    gr.load(dy + off, N);
    yr.load(y + off, N);
    float d = 0.0f;
    gr.each_with(yr, [&](int64_t, const float *g, const float *yv) {
#pragma unroll
        for (int i = 0; i < VW; i++) d += g[i] * yv[i];
    });
    d = block_sum(d);
    gr.each_with(yr, [&](int64_t j, const float *g, const float *yv) {
        float o[VW];
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = yv[i] * (g[i] - d);
        io<T, VW>::store_stream(dx + off + j, o);
    });
}

/* Rows copied into shared memory by the copy engine (cp.async.bulk, one
 * mbarrier a stage; Hopper on), for the persistent RMSNorm backward below
 * (the forward does not use it: through the same ring, one wave of blocks,
 * it takes 1.085-1.179x the time of its row held in registers a block a
 * row on an H200, examples/h200/rmsnorm-fwd-bulk/):
 * a block walks rows g, g + G, ... and keeps the next `stages` - 1 of them
 * in flight while it reduces one. One thread issues a row's copies (one
 * instruction an array, not one a 16-byte vector a thread as cp.async
 * takes), and nothing waits for a copy but the barrier of its stage. The
 * dynamic shared memory is BULK_HEAD bytes of barriers, then the stages
 * (stage_bytes each); their number follows from its size. */
#define BULK_HEAD 128
#define BULK_MAX_STAGES (BULK_HEAD / 8)
struct bulk_ring {
    uint64_t *bar;
    unsigned char *buf;
    uint32_t stage_bytes;
    int stages;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* every thread of the block calls it (it ends with a block barrier) */
    __device__ __forceinline__ bulk_ring(unsigned char *smem, uint32_t stage) : bar((uint64_t *)smem), buf(smem + BULK_HEAD), stage_bytes(stage)
    {
        uint32_t total;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(total));
        stages = (int)((total - BULK_HEAD) / stage);
        if (stages > BULK_MAX_STAGES) stages = BULK_MAX_STAGES;
        if (threadIdx.x == 0) {
            for (int s = 0; s < stages; s++) cuda::ptx::mbarrier_init(bar + s, 1);
            /* the barriers' initialisation visible to the copy engine */
            cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
        }
        __syncthreads();
    }
    /* Item i's copies (thread 0 alone): `bytes` from a, then `bytes` from
     * b, into the stage i % stages. Its previous item must have been read
     * by every thread that reads it (a block barrier in between). */
    __device__ __forceinline__ void fetch(int64_t i, const void *a, const void *b, uint32_t bytes)
    {
        const int s = (int)(i % stages);
        unsigned char *d = buf + (size_t)s * stage_bytes;
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             bar + s, 2 * bytes);
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, d, a, bytes, bar + s);
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, d + bytes, b, bytes, bar + s);
    }
    /* Item i's stage, once its copies have landed (every thread). */
    __device__ __forceinline__ const uint4 *wait(int64_t i) const
    {
        const int s = (int)(i % stages);
        const uint32_t parity = (uint32_t)((i / stages) & 1);
        while (!cuda::ptx::mbarrier_try_wait_parity(bar + s, parity)) {
        }
        return reinterpret_cast<const uint4 *>(buf + (size_t)s * stage_bytes);
    }
    /* the rows of this block: g, g + G, ... below M */
    __device__ __forceinline__ static int64_t rows_of_block(int64_t M)
    {
        return M > (int64_t)blockIdx.x ? (M - 1 - (int64_t)blockIdx.x) / (int64_t)gridDim.x + 1 : 0;
    }
#endif
};


/* The RMSNorm backward over one wave of THREADS-thread blocks, rows of x and
 * dy through a bulk_ring (layout "bulk"): as rmsnorm_bwd_smem_k, but the
 * copies of the next `stages` - 1 rows are in flight, issued by one
 * thread, and each thread keeps its vectors of the row in registers
 * between the two passes. */
template <typename T, typename TW, int MAXV, int THREADS>
__global__ void __launch_bounds__(THREADS) rmsnorm_bwd_bulk_k(const T *__restrict__ dy, const T *__restrict__ x,
                                                          const TW *__restrict__ w, T *__restrict__ dx,
                                                          float *__restrict__ partial, int64_t M, int64_t N,
                                                          float eps, int /* cluster: 1 */)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    pdl_launch_dependents(); /* the column sum may take the SMs as blocks finish */
    constexpr int VW = vec<T>::n;
    extern __shared__ __align__(128) unsigned char bulk_smem[];
    const int nvec = (int)(N / VW);
    const uint32_t rowb = (uint32_t)(N * (int64_t)sizeof(T));
    bulk_ring ring(bulk_smem, 2 * rowb);
    const int64_t G = gridDim.x, rows = bulk_ring::rows_of_block(M);
    auto fetch = [&](int64_t i) {
        const int64_t off = (blockIdx.x + i * G) * N;
        ring.fetch(i, x + off, dy + off, rowb);
    };
    if (threadIdx.x == 0)
        for (int64_t i = 0; i < rows && i < ring.stages; i++) fetch(i);
    float acc[MAXV * VW];
#pragma unroll
    for (int i = 0; i < MAXV * VW; i++) acc[i] = 0.0f;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t off = (blockIdx.x + i * G) * N;
        const uint4 *sx = ring.wait(i), *sg = sx + nvec;
        uint4 xq[MAXV], gq[MAXV];
        float ss = 0.0f, gx = 0.0f;
#pragma unroll
        for (int k = 0; k < MAXV; k++) {
            const int idx = (int)threadIdx.x + k * THREADS;
            if (idx < nvec) {
                float xv[VW], g[VW], wf[VW];
                xq[k] = sx[idx];
                gq[k] = sg[idx];
                unpack_held<T>(xq[k], xv);
                unpack_held<T>(gq[k], g);
                io<TW, VW>::load(w + (int64_t)idx * VW, wf);
                rms_bwd_sums<VW>(xv, g, wf, ss, gx);
            }
        }
        const float2 sums = block_sum2(ss, gx);
        if (threadIdx.x == 0 && i + ring.stages < rows) fetch(i + ring.stages);
        const float rs = rsqrtf(sums.x / (float)N + eps);
        const float c = rs * rs * sums.y / (float)N;
#pragma unroll
        for (int k = 0; k < MAXV; k++) {
            const int idx = (int)threadIdx.x + k * THREADS;
            if (idx < nvec) {
                float xv[VW], g[VW], wf[VW], o[VW];
                unpack_held<T>(xq[k], xv);
                unpack_held<T>(gq[k], g);
                io<TW, VW>::load(w + (int64_t)idx * VW, wf);
                rms_bwd_out<VW>(xv, g, wf, rs, c, o, acc + k * VW);
                io<T, VW>::store_stream(dx + off + (int64_t)idx * VW, o);
            }
        }
    }
    float *prow = partial + (int64_t)blockIdx.x * N;
#pragma unroll
    for (int k = 0; k < MAXV; k++) {
        const int idx = (int)threadIdx.x + k * THREADS;
        if (idx < nvec) io<float, VW>::store(prow + (int64_t)idx * VW, acc + k * VW);
    }
#endif
}

bool rows_ok(int64_t M, int64_t N) { return M > 0 && N > 0 && M <= 0x7fffffff && N <= 0x7fffffff; }

} /* namespace */


/* The card's DRAM bandwidth an SM by its datasheet figures (memory clock,
 * double data rate, bus width; GB/s): H200 37, H100 SXM 25. 0 without a
 * device. What the layouts that keep more bytes in flight an SM (the
 * backward's bulk ring, the wide fp32 rows read through L2) need to gain. */
static double dram_gbps_per_sm(void)
{
    int dev, sms = 0, khz = 0, bits = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess || sms < 1) {
        (void)cudaGetLastError();
        return 0.0;
    }
    return (double)khz * 1e3 * 2.0 * (bits / 8.0) / 1e9 / sms;
}

/* maxv of a row read through L2 (row_l2), Q vectors in flight a thread:
 * the RMSNorm forward's l2 plans, the LayerNorm forward and the softmax
 * backward under SOLBENCH_ROW_VECTORS=l2v2|l2v4|l2fit (pick_row_layout's
 * values are -1 .. 8) */
#define ROW_L2(q) (-10 - (q))

/* The block of a row of nvec vectors read through L2, Q at a time a
 * thread: 512 threads (fewer for a short row), or with `fit` the fewest
 * warps whose threads hold Q vectors each. */
static int row_l2_threads(int64_t nvec, int q, bool fit)
{
    const int64_t want = fit ? (nvec + q - 1) / q : nvec;
    return want >= 512 ? 512 : (int)((want + 31) / 32 * 32);
}

/* The forward's kernel for a plan: its slice in shared memory, or in the
 * register layout maxv (pick_row_layout's: 1..8 in registers, -1 or 0 in
 * memory). */
static cudaError_t rmsnorm_fwd_kernel(sbk_dtype dt, sbk_dtype wdt, bool smem, int maxv, const void **fn)
{
    if (maxv <= ROW_L2(1)) {
        switch (maxv) {
        case ROW_L2(1):
            SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, *fn = (const void *)rmsnorm_fwd_k<T, TW, row_l2<T, 1>>));
            break;
        case ROW_L2(2):
            SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, *fn = (const void *)rmsnorm_fwd_k<T, TW, row_l2<T, 2>>));
            break;
        default:
            SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, *fn = (const void *)rmsnorm_fwd_k<T, TW, row_l2<T, 4>>));
            break;
        }
    } else if (smem) {
        SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, *fn = (const void *)rmsnorm_fwd_k<T, TW, row_smem<T>>));
    } else {
        SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, SBK_DISPATCH_ROW(maxv,
            *fn = (const void *)rmsnorm_fwd_k<T, TW, ROW>)));
    }
    return cudaSuccess;
}

/* The bulk kernel's block: 256 threads for rows of up to 512 16-byte
 * vectors, else 512, each thread holding at most BULK_MAXV vectors of a
 * row (bf16 rows up to 16384, fp32 up to 8192): more threads keep the
 * vectors a thread, and so its registers, few enough for two blocks an SM
 * (4 vectors at 256 threads took 101 registers in the backward). */
#define BULK_MAXV 4
static int bulk_threads(int64_t nvec) { return nvec <= 512 ? 256 : 512; }
static int bulk_maxv(int64_t nvec) { return (int)((nvec + bulk_threads(nvec) - 1) / bulk_threads(nvec)); }
#define BULK_DISPATCH_M(th, maxv, K)                                       \
    ((maxv) <= 1   ? (const void *)K<T, TW, 1, th>                         \
     : (maxv) == 2 ? (const void *)K<T, TW, 2, th>                         \
     : (maxv) == 3 ? (const void *)K<T, TW, 3, th>                         \
                   : (const void *)K<T, TW, 4, th>)
#define BULK_DISPATCH(nvec, K) \
    (bulk_threads(nvec) == 256 ? BULK_DISPATCH_M(256, bulk_maxv(nvec), K) : BULK_DISPATCH_M(512, bulk_maxv(nvec), K))
/* Stages of the bulk layout: S from the request ("bulk:S", 2 to
 * BULK_MAX_STAGES), else as many as fit 64 KiB, at least 3 (H200, the
 * backward: at bf16 16384 x 8192, stages of 32 KiB, two took 1.011x the
 * time of the layout before and three 0.964x; at 16384 x 4096 and larger,
 * four of 16 KiB took 0.939-0.959x, three 0.979x at fp16 524288 x 4096);
 * 0 for a request that is not "bulk[:S]", -1 for a bad S. */
static int bulk_stages(const char *req, size_t stage_bytes)
{
    if (strncmp(req, "bulk", 4) != 0) return 0;
    if (req[4] == 0) {
        const size_t s = (64 * 1024) / stage_bytes;
        return s < 3 ? 3 : s > BULK_MAX_STAGES ? BULK_MAX_STAGES : (int)s;
    }
    if (req[4] != ':') return 0;
    char *end;
    const long v = strtol(req + 5, &end, 10);
    return *end || v < 2 || v > BULK_MAX_STAGES ? -1 : (int)v;
}

/* One wave of `per_sm` blocks an SM, at most `cap` blocks in all, evened
 * out so that every block walks the same number of rows give or take one. */
static int64_t even_wave(int64_t M, int64_t cap)
{
    if (M <= cap) return M < 1 ? 1 : M;
    const int64_t rows_each = (M + cap - 1) / cap;
    return (M + rows_each - 1) / rows_each;
}

/* The most 16-byte vectors of row data a thread of the one-row kernels
 * holds while a block of up to 512 threads can hold the row with fewer
 * (pick_row_layout_most): 4 by default, or 1, 2 or 8 (8: 256 threads
 * whenever they fit) from SOLBENCH_ROW_VECTORS, for experiments. Measured
 * on an H200 and an H100 (examples/h100|h200/row-vectors/, whose results
 * name the commit): on the H200, fp32 rows of 6144-8192
 * as 384-512 threads of 4 vectors instead of 192-256 of 8 took 0.953-0.995x the time (at 7168, LayerNorm's
 * kernel needs 40 registers against 58, so 42 warps an SM fit against 28),
 * pairs of bf16 rows of 7168 as 2 vectors each instead of 4 0.976x
 * (add+RMSNorm) and 1.011x (softmax backward, within the noise), while bf16
 * rows of 2-4 vectors spread to 1-2 lost 7-26%; on the H100, 0.986-1.001x
 * throughout. Read once per case, where the op is prepared (the forward's
 * plan, the other ops' state), not at each timed launch. */
extern "C" int sbk_row_vectors(void)
{
    const char *v = getenv("SOLBENCH_ROW_VECTORS"); /* checked by sbk_row_vectors_env_check */
    if (v && (!strcmp(v, "l2v2") || !strcmp(v, "l2v4"))) return -(v[3] - '0');
    if (v && !strcmp(v, "l2fit")) return SBK_ROW_L2FIT;
    return v && (!strcmp(v, "1") || !strcmp(v, "2") || !strcmp(v, "8")) ? atoi(v) : 4;
}

extern "C" int sbk_row_vectors_env_check(char *bad, size_t n)
{
    const char *v = getenv("SOLBENCH_ROW_VECTORS");
    if (!v || !strcmp(v, "1") || !strcmp(v, "2") || !strcmp(v, "4") || !strcmp(v, "8") || !strcmp(v, "l2v2") ||
        !strcmp(v, "l2v4") || !strcmp(v, "l2fit"))
        return 0;
    snprintf(bad, n,
             "SOLBENCH_ROW_VECTORS=%s: 1, 2, 4 or 8 (the most row vectors a thread while 512 threads can hold fewer), "
             "l2v2, l2v4 or l2fit", v);
    return -1;
}

/* Wide rows read through L2 by default (row_l2, 4 vectors in flight a
 * thread) on cards of at least ROW_L2_AUTO_GBPS_PER_SM GB/s of DRAM an SM,
 * from ROW_L2_AUTO_ROWS rows: the RMSNorm forward at fp32 N = 4096-8192
 * and 16-bit 6144-8192, and the fp32 LayerNorm forward at 4096-8192, both
 * as l2fit (4 vectors a thread, as few warps as hold the row so). Measured case by case in one call against the row held in
 * registers (examples/h200|h100/rmsnorm-fwd-plans/, layernorm-l2/): on an
 * H200, RMSNorm l2fit 0.967-0.984x the time at fp32 16384 and 131072 x
 * 4096 and 16384 and 65536 x 6144, bf16 16384 x 6144 and 8192 and 65536
 * x 7168 and 8192, fp16 65536 x 8192 (the evidence run takes every such
 * case at 0.957-0.986x the time of the register row's), and 512-thread blocks
 * (l2v4) 0.966-0.980x at fp32 7168 and 8192 but 1.017x at 4096 x 7168 and
 * 1.03-1.33x where a thread held fewer than 4 vectors (fp32 4096, 6144;
 * 16-bit); LayerNorm l2v4 0.967-0.985x at fp32 16384 and 65536 x 6144 and
 * 7168 and 16384 x 8192, 1.185x at 65536 x 4096 and 1.512x at bf16 65536
 * x 8192 (l2v2 1.158x); LayerNorm l2fit 0.965-0.976x at fp32 16384 and
 * 131072 x 4096, 16384 and 65536 x 6144, 16384 x 7168 and 8192 (as l2v4
 * where the row needs 448-512 threads anyway;
 * examples/h200/layernorm-l2/486bc36-l2fit-torch.txt). On an H100, l2v4 at fp32 6144-8192: 0.992-1.011x (1.009-1.011x
 * at 4096 x 7168), so the H100 keeps registers. The RMSNorm forward's L2
 * row needs 32 registers a thread against the register row's 40 where the
 * weight has the input's dtype, so more blocks fit an SM (256 threads: 8
 * against 6); with an fp32 weight (16-bit input), and in the LayerNorm,
 * both need 40, and those gained too: why is not profiled. */
#define ROW_L2_AUTO_GBPS_PER_SM 30.0
#define ROW_L2_AUTO_ROWS 16384
extern "C" int sbk_row_l2_default(sbk_rows_kernel k, int64_t M, int64_t N, sbk_dtype dt, double gbps_per_sm)
{
    const size_t es = sbk_dtype_size(dt);
    int64_t lo = 0;
    if (k == SBK_ROWS_RMSNORM_FWD) lo = es == 4 ? 4096 : 6144;
    else if (k == SBK_ROWS_LAYERNORM && es == 4) lo = 4096;
    if (lo == 0 || es == 0 || N < lo || N > 8192 || N % (int64_t)(16 / es) != 0 || M < ROW_L2_AUTO_ROWS ||
        gbps_per_sm < ROW_L2_AUTO_GBPS_PER_SM)
        return 0;
    return 4;
}

extern "C" int sbk_rows_most(sbk_rows_kernel k, int64_t M, int64_t N, sbk_dtype dt)
{
    if (getenv("SOLBENCH_ROW_VECTORS")) return sbk_row_vectors();
    const int q = sbk_row_l2_default(k, M, N, dt, dram_gbps_per_sm());
    return q ? SBK_ROW_L2FIT : 4;
}

/* The cap a negative `most` (l2vQ) leaves the kernels that have no l2 row. */
static int row_cap(int most) { return most < 0 ? 4 : most; }

/* How a one-row kernel holds a row of N: pick_row_layout's maxv with at
 * most `most` vectors of row data a thread (sbk_row_vectors), rows of x and
 * residual (add+RMSNorm) or of dy and y (softmax backward) held two at a
 * time; ROWS_SMEM for the softmax forward's row in shared memory (*smem
 * bytes). */
#define ROWS_SMEM 100
static int rows_pick(sbk_rows_kernel k, int64_t N, int esize, bool al, int most, int *threads, size_t *smem)
{
    *smem = 0;
    if (k == SBK_ROWS_SOFTMAX_FWD && pick_row_smem(N, esize, al, row_smem_limit(), threads, smem))
        return ROWS_SMEM;
    if (most < 0 && (k == SBK_ROWS_LAYERNORM || k == SBK_ROWS_SOFTMAX_BWD) && al && N % (16 / esize) == 0) {
        /* l2fit: 4 vectors in flight a thread, of one row or 2 of each of two */
        const int q = most != SBK_ROW_L2FIT ? -most : k == SBK_ROWS_SOFTMAX_BWD ? 2 : 4;
        *threads = row_l2_threads(N / (16 / esize), q, most == SBK_ROW_L2FIT);
        return ROW_L2(q);
    }
    const int rows = k == SBK_ROWS_ADD_RMSNORM || k == SBK_ROWS_SOFTMAX_BWD ? 2 : 1;
    return pick_row_layout_most(N, esize, al, rows, row_cap(most), threads);
}

extern "C" void sbk_rows_layout_name(sbk_rows_kernel k, int64_t N, sbk_dtype dt, int most, char *buf, size_t n)
{
    int threads;
    size_t smem;
    const int maxv = rows_pick(k, N, (int)sbk_dtype_size(dt), true, most, &threads, &smem);
    (void)cudaGetLastError(); /* no device (the CPU path): row_smem_limit's query failed */
    if (maxv == ROWS_SMEM)
        snprintf(buf, n, "smem threads=%d smem_bytes=%zu", threads, smem);
    else if (maxv <= ROW_L2(1))
        snprintf(buf, n, "l2v%d threads=%d", -10 - maxv, threads);
    else if (maxv > 0)
        snprintf(buf, n, "registers threads=%d vectors=%d", threads, maxv);
    else
        snprintf(buf, n, "memory threads=%d", threads);
}

/* Slices of a row too long for registers, split over a cluster and held in
 * shared memory, at most this long: H100, 2048 x 65536 bf16, slices of
 * 32 KiB (4 blocks a row) took 204 us against 249 with 64 KiB slices, 258
 * with the whole 128 KiB row in one block and 276 with the row read twice
 * from memory (examples/h100/rmsnorm-fwd-plans/). */
#define SBK_RMSNORM_FWD_SLICE_MAX (32 * 1024)

/* The measured default: the whole row in registers when it fits (block
 * or smem did no better at any width that fits, and cluster splits of
 * such rows did worse); else, on Hopper, the fewest blocks a row whose
 * slices fit SBK_RMSNORM_FWD_SLICE_MAX in shared memory; else the row in
 * memory. */
static void rmsnorm_fwd_auto(int64_t N, int esize, bool clusters, int *C, bool *smem)
{
    int threads;
    *C = 1;
    *smem = false;
    if (pick_row_layout(N, esize, true, 1, &threads) > 0 || !clusters) return;
    for (int c = 2; c <= 8; c *= 2)
        if (N % ((int64_t)c * (16 / esize)) == 0 && N / c * esize <= SBK_RMSNORM_FWD_SLICE_MAX) {
            *C = c;
            *smem = true;
            return;
        }
}

/* The hints of a plan request ("/cs", "/plain-load", "/plain-store" or
 * "/plain" after the layout) into *hints, the layout into buf. */
static const struct {
    const char *name;
    int bits;
} fwd_hints_names[] = {{"cs", 0},
                       {"plain-load", SBK_FWD_PLAIN_LOAD},
                       {"plain-store", SBK_FWD_PLAIN_STORE},
                       {"plain", SBK_FWD_PLAIN_LOAD | SBK_FWD_PLAIN_STORE}};

static int fwd_hints_split(const char *request, char *buf, size_t n, int *hints)
{
    *hints = 0;
    const char *r = request ? request : "";
    const char *slash = strchr(r, '/');
    const size_t len = slash ? (size_t)(slash - r) : strlen(r);
    if (len >= n) return -1;
    memcpy(buf, r, len);
    buf[len] = 0;
    if (!slash) return 0;
    for (size_t i = 0; i < sizeof fwd_hints_names / sizeof fwd_hints_names[0]; i++)
        if (strcmp(slash + 1, fwd_hints_names[i].name) == 0) {
            *hints = fwd_hints_names[i].bits;
            return 0;
        }
    return -1;
}

/* The l2 layouts' requests: "l2" (4 vectors in flight a thread), "l2v1",
 * "l2v2", "l2v4" (blocks of 512 threads), "l2fit" (4 vectors a thread,
 * and as few warps as hold the row that way, up to 512 threads); Q, or 0
 * for another request. */
static int fwd_l2_request(const char *r, bool *fit)
{
    *fit = strcmp(r, "l2fit") == 0;
    if (strcmp(r, "l2") == 0 || strcmp(r, "l2v4") == 0 || *fit) return 4;
    if (strcmp(r, "l2v1") == 0) return 1;
    if (strcmp(r, "l2v2") == 0) return 2;
    return 0;
}

extern "C" int sbk_rmsnorm_fwd_plan_make(int64_t M, int64_t N, sbk_dtype dt, sbk_dtype wdt, const char *request,
                                         sbk_rmsnorm_fwd_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->cluster = 1;
    if (!rows_ok(M, N) || sbk_dtype_size(dt) == 0 || (wdt != dt && wdt != SBK_F32)) return -1;
    char layout[32];
    if (fwd_hints_split(request, layout, sizeof layout, &plan->hints) != 0) return -1;
    request = layout;
    const bool clusters = sm90_or_newer();
    const int esize = (int)sbk_dtype_size(dt);
    bool smem = false;
    int C = 1, l2 = 0;
    bool l2_fit = false;
    if (!request || !*request || strcmp(request, "auto") == 0) {
        rmsnorm_fwd_auto(N, esize, clusters, &C, &smem);
        l2 = sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, M, N, dt, dram_gbps_per_sm());
        l2_fit = l2 > 0; /* l2fit: 0.967-0.984x the time where l2v4 lost (fp32 4096, 6144; 16-bit) */
    } else {
        const char *colon = strchr(request, ':');
        const size_t kl = colon ? (size_t)(colon - request) : strlen(request);
        if (kl == 5 && strncmp(request, "block", 5) == 0) smem = false;
        else if (kl == 4 && strncmp(request, "smem", 4) == 0) smem = true;
        else if (!colon && (l2 = fwd_l2_request(request, &l2_fit)) > 0) smem = false;
        else return -1;
        if (colon) {
            char *end;
            const long c = strtol(colon + 1, &end, 10);
            if (*end || (c != 1 && c != 2 && c != 4 && c != 8)) return -1;
            C = (int)c;
        }
    }
    if (C > 1 && !clusters) return -1;
    plan->cluster = C;
    plan->smem = smem;
    const int64_t S = N / C;
    if (N % ((int64_t)C * (16 / esize)) != 0) {
        if (C > 1 || smem || l2) return -1;
        plan->maxv = 0; /* single elements, in memory */
        plan->threads = 256;
    } else if (l2) {
        plan->maxv = ROW_L2(l2);
        plan->threads = row_l2_threads(N / (16 / esize), l2, l2_fit);
    } else if (smem) {
        if (!pick_row_smem(S, esize, true, row_smem_limit(), &plan->threads, &plan->smem_bytes)) return -1;
    } else {
        plan->maxv = pick_row_layout_most(S, esize, true, 1, row_cap(sbk_row_vectors()), &plan->threads);
        if (C > 1 && plan->maxv <= 0) return -1; /* a split row's slices stay on chip */
    }
    const void *fn;
    if (rmsnorm_fwd_kernel(dt, wdt, smem, plan->maxv, &fn) != cudaSuccess) return -1;
    (void)allow_smem(fn, plan->smem_bytes);
    (void)cudaGetLastError(); /* no device (the CPU path): nothing to allow */
    return 0;
}

extern "C" void sbk_rmsnorm_fwd_plan_name(const sbk_rmsnorm_fwd_plan *plan, char *buf, size_t n)
{
    const char *h = "";
    for (size_t i = 1; i < sizeof fwd_hints_names / sizeof fwd_hints_names[0]; i++)
        if (plan->hints == fwd_hints_names[i].bits) h = fwd_hints_names[i].name;
    char hints[32] = "";
    if (*h) snprintf(hints, sizeof hints, " hints=%s", h);
    if (plan->maxv <= ROW_L2(1))
        snprintf(buf, n, "l2v%d threads=%d%s", -10 - plan->maxv, plan->threads, hints);
    else if (plan->smem)
        snprintf(buf, n, "smem:%d threads=%d smem_bytes=%zu%s", plan->cluster, plan->threads, plan->smem_bytes, hints);
    else if (plan->maxv > 0)
        snprintf(buf, n, "block:%d threads=%d vectors=%d%s", plan->cluster, plan->threads, plan->maxv, hints);
    else
        snprintf(buf, n, "block:%d threads=%d in memory%s", plan->cluster, plan->threads, hints);
}

extern "C" cudaError_t sbk_rmsnorm_fwd(const void *x, const void *w, void *y, int64_t M, int64_t N, float eps,
                                       sbk_dtype dt, sbk_dtype wdt, const sbk_rmsnorm_fwd_plan *plan,
                                       cudaStream_t s)
{
    if (!rows_ok(M, N) || (plan && plan->cluster < 1)) return cudaErrorInvalidValue;
    const bool al = aligned16(x) && aligned16(y) && aligned16(w);
    sbk_rmsnorm_fwd_plan whole;
    if (!plan || !al) {
        /* no plan, or misaligned pointers: one block a row, as it fits */
        memset(&whole, 0, sizeof whole);
        whole.cluster = 1;
        whole.maxv = pick_row_layout_most(N, (int)sbk_dtype_size(dt), al, 1, row_cap(sbk_row_vectors()), &whole.threads);
        plan = &whole;
    }
    const void *fn;
    cudaError_t e = rmsnorm_fwd_kernel(dt, wdt, plan->smem, plan->maxv, &fn);
    if (e != cudaSuccess) return e;
    int C = plan->cluster, hints = plan->hints;
    void *args[] = {(void *)&x, (void *)&w, (void *)&y, (void *)&N, (void *)&eps, (void *)&C, (void *)&hints};
    cluster_launch launch(M * C, plan->threads, plan->smem_bytes, C, s);
    return cudaLaunchKernelExC(&launch.cfg, fn, args);
}

/* The launch shape of the backward: the kernel, its block size, its
 * dynamic shared memory, its cluster size (1: none) and the layout's name.
 * On Hopper, rows of up to 32 KiB of x and dy through the bulk ring when
 * the walk is long enough (rmsnorm_bwd_bulk_auto); else short rows in registers with the next row prefetched (blocks of at most
 * 256 threads); then shared memory (double-buffered x and dy) up to
 * SBK_RMSNORM_BWD_SMEM_MAX bytes, so that two or more blocks fit on an SM;
 * longer rows, up to 8 vectors a thread, through one shared-memory buffer
 * (fp32) or in registers (x and dy, MAXV <= 4 vectors each; 16-bit types);
 * rows longer still split over a cluster of 2, 4 or 8 blocks, each a slice
 * as short as the shared-memory kernel's (Hopper on; `clusters` says
 * whether the card has them); the rest in memory. */
#define SBK_RMSNORM_BWD_SMEM_MAX (96 * 1024)
template <typename T, typename TW>
static const void *rmsnorm_bwd_smem_fn(int64_t nvec, bool split)
{
    switch ((nvec + 255) / 256) {
    case 1: return split ? (const void *)rmsnorm_bwd_split_k<T, TW, 1> : (const void *)rmsnorm_bwd_smem_k<T, TW, 1>;
    case 2: return split ? (const void *)rmsnorm_bwd_split_k<T, TW, 2> : (const void *)rmsnorm_bwd_smem_k<T, TW, 2>;
    case 3: return split ? (const void *)rmsnorm_bwd_split_k<T, TW, 3> : (const void *)rmsnorm_bwd_smem_k<T, TW, 3>;
    case 4: return split ? (const void *)rmsnorm_bwd_split_k<T, TW, 4> : (const void *)rmsnorm_bwd_smem_k<T, TW, 4>;
    case 5: return split ? (const void *)rmsnorm_bwd_split_k<T, TW, 5> : (const void *)rmsnorm_bwd_smem_k<T, TW, 5>;
    default: return split ? (const void *)rmsnorm_bwd_split_k<T, TW, 6> : (const void *)rmsnorm_bwd_smem_k<T, TW, 6>;
    }
}
/* The default takes the bulk layout (rmsnorm_bwd_bulk_k) on cards with
 * at least BULK_AUTO_GBPS_PER_SM of DRAM bandwidth an SM (the H200: 37;
 * the H100 SXM: 25), for rows of x and dy of at most BULK_AUTO_STAGE_MAX
 * bytes together (bf16 8192, fp32 4096: three stages leave room for two
 * blocks an SM) but not 16-bit rows of 6144, when every block walks at
 * least BULK_AUTO_ROWS rows. Measured at the memory-bound preset's
 * shapes against the evidence runs of the register and shared-memory
 * layouts (other cards of the same kind; examples/h200/rmsnorm-bwd-bulk/ and
 * examples/h100/rmsnorm-bwd-bulk/ say which): on an H200, 0.921-0.960x the
 * time at 16-bit 16384 to 524288 x 4096 and 0.983-0.988x at 8192 x 4096,
 * 0.920-0.991x at 16-bit 7168 and 8192 (1.004x once), 0.974-0.991x at fp32 4096,
 * but 0.981-1.030x at 16-bit 6144 (768 vectors on 512 threads: half of
 * them hold one); in the same run as those layouts (plan_compare.py),
 * 0.939-0.959x at 16384, 65536 and 524288 x 4096, but 1.007-1.056x at 4096 x 4096
 * (11 rows a block at four stages) and 1.047-1.094x at 2048 x 4096 (6): the stages filled
 * at the start and drained at the end cost more than they gain on a short
 * walk. On an H100: 1.007-1.045x at 16-bit 4096, 0.923-1.015x at 7168
 * and 8192, 0.978-1.001x at fp32 4096 and 1.044-1.114x at 16-bit 6144: with less
 * bandwidth an SM, the row held in registers feeds its DRAM well enough. */
#define BULK_AUTO_GBPS_PER_SM 30.0
#define BULK_AUTO_STAGE_MAX (32 * 1024)
#define BULK_AUTO_ROWS 12
template <typename T, typename TW>
static bool rmsnorm_bwd_bulk_auto(int64_t M, int64_t N, const void *fn, int threads, size_t smem)
{
    int dev, sms = 0, per_sm = 0;
    if (2 * (size_t)N * sizeof(T) > BULK_AUTO_STAGE_MAX || (sizeof(T) == 2 && N == 6144) ||
        allow_smem(fn, smem) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess || per_sm < 1 ||
        sms < 1) {
        (void)cudaGetLastError();
        return false;
    }
    int64_t blocks = (int64_t)sms * per_sm;
    if (blocks > SBK_RMSNORM_BWD_MAX_BLOCKS) blocks = SBK_RMSNORM_BWD_MAX_BLOCKS;
    return dram_gbps_per_sm() >= BULK_AUTO_GBPS_PER_SM && M >= BULK_AUTO_ROWS * blocks;
}

template <typename T, typename TW>
static void rmsnorm_bwd_shape(int64_t M, int64_t N, bool aligned, bool clusters, int *threads, size_t *smem,
                              const void **fn, int *cluster, const char **kind)
{
    const int vw = vec<T>::n;
    const size_t smem_vecs = SBK_RMSNORM_BWD_SMEM_MAX / (16 * 4);
    *smem = 0;
    *cluster = 1;
    const char *lay = getenv("SOLBENCH_RMSNORM_BWD_LAYOUT"); /* checked by sbk_rmsnorm_bwd_env_check */
    const bool by_default = !lay || strcmp(lay, "auto") == 0;
    const size_t stage = 2 * (size_t)N * sizeof(T);
    const int stages = bulk_stages(by_default ? "bulk" : lay, stage);
    if (stages > 0 && clusters && aligned && N % vw == 0 && bulk_maxv(N / vw) <= BULK_MAXV) {
        *threads = bulk_threads(N / vw);
        *smem = BULK_HEAD + (size_t)stages * stage;
        *fn = BULK_DISPATCH(N / vw, rmsnorm_bwd_bulk_k);
        *kind = "bulk";
        if (!by_default || rmsnorm_bwd_bulk_auto<T, TW>(M, N, *fn, *threads, *smem)) return;
        *smem = 0;
    }
    *kind = "regs+prefetch";
    /* registers with the prefetch while the block stays at 256 threads */
    const int pf_maxv = pick_row_layout(N, (int)sizeof(T), aligned, 4, threads);
    if (pf_maxv > 0 && *threads <= 256) {
        *fn = pf_maxv == 1 ? (const void *)rmsnorm_bwd_regs_k<T, TW, 1, true>
                           : (const void *)rmsnorm_bwd_regs_k<T, TW, 2, true>;
        return;
    }
    if (aligned && N % vw == 0 && (size_t)(N / vw) <= smem_vecs) {
        *threads = 256;
        *smem = (size_t)(N / vw) * 16 * 4;
        *fn = rmsnorm_bwd_smem_fn<T, TW>(N / vw, false);
        *kind = "smem2";
        return;
    }
    const int maxv = pick_row_layout(N, (int)sizeof(T), aligned, 2, threads);
    /* Rows too long for the double buffer that fit registers (bf16 N <=
     * 16384, fp32 N <= 8192) stay in registers, one block of up to 512
     * threads an SM. One shared-memory buffer (smem1, three blocks an SM)
     * was the fp32 default while the register kernel carried the streaming
     * hints; without them, registers took 0.99-1.01x its time at fp32 7168
     * and 0.92-0.96x at 8192 on an H200 (examples/h200/stream-hints/,
     * examples/h100/stream-hints/ for the H100). A cluster split took
     * 1.07-1.29x (examples/h200/rmsnorm-bwd-layouts/).
     * SOLBENCH_RMSNORM_BWD_LAYOUT=regs|smem1|split names one, for comparison. */
    const bool want_split = lay && strcmp(lay, "split") == 0;
    const bool want_smem1 = lay && strcmp(lay, "smem1") == 0;
    if (maxv > 0 && want_smem1 && (N / vw + 255) / 256 <= 8) {
        *threads = 256;
        *smem = (size_t)(N / vw) * 16 * 2;
        *fn = (N / vw + 255) / 256 <= 7 ? (const void *)rmsnorm_bwd_smem_k<T, TW, 7, 1>
                                        : (const void *)rmsnorm_bwd_smem_k<T, TW, 8, 1>;
        *kind = "smem1";
        return;
    }
    if ((maxv == -1 || (maxv > 0 && want_split)) && clusters) { /* maxv > 0: aligned, N % vw == 0 */
        for (int c = 2; c <= 8; c *= 2) {
            if (N % ((int64_t)c * vw) != 0 || (size_t)(N / c / vw) > smem_vecs) continue;
            *threads = 256;
            *smem = (size_t)(N / c / vw) * 16 * 4;
            *fn = rmsnorm_bwd_smem_fn<T, TW>(N / c / vw, true);
            *cluster = c;
            *kind = "split";
            return;
        }
    }
    *kind = maxv > 0 ? "regs" : "mem";
    switch (maxv) {
    case 1: *fn = (const void *)rmsnorm_bwd_regs_k<T, TW, 1, false>; break;
    case 2: *fn = (const void *)rmsnorm_bwd_regs_k<T, TW, 2, false>; break;
    case 4: *fn = (const void *)rmsnorm_bwd_regs_k<T, TW, 4, false>; break;
    case -1: *fn = (const void *)rmsnorm_bwd_mem_k<T, TW, row_mem<T, vec<T>::n>>; break;
    default: *fn = (const void *)rmsnorm_bwd_mem_k<T, TW, row_mem<T, 1>>; break;
    }
}

static cudaError_t rmsnorm_bwd_fn(int64_t M, int64_t N, bool aligned, sbk_dtype dt, sbk_dtype wdt, int *threads,
                                  size_t *smem, const void **fn, int *cluster, const char **kind = nullptr)
{
    const bool clusters = sm90_or_newer();
    const char *k;
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt,
        rmsnorm_bwd_shape<T, TW>(M, N, aligned, clusters, threads, smem, fn, cluster, &k)));
    if (kind) *kind = k;
    return allow_smem(*fn, *smem);
}

/* Whether the partials' lines may be dropped from L2 after the column sum:
 * whole 128-byte lines, and not under SOLBENCH_RMSNORM_BWD_DISCARD=0 (the
 * launch also needs the partials 128-byte aligned). */
static bool rmsnorm_bwd_discard(int64_t N)
{
    const char *keep = getenv("SOLBENCH_RMSNORM_BWD_DISCARD");
    return N % 32 == 0 && !(keep && strcmp(keep, "0") == 0);
}

extern "C" int sbk_rmsnorm_bwd_env_check(char *bad, size_t n)
{
    const char *lay = getenv("SOLBENCH_RMSNORM_BWD_LAYOUT"), *dis = getenv("SOLBENCH_RMSNORM_BWD_DISCARD");
    if (lay && strcmp(lay, "auto") && strcmp(lay, "regs") && strcmp(lay, "smem1") && strcmp(lay, "split") &&
        bulk_stages(lay, 1) <= 0) {
        snprintf(bad, n, "SOLBENCH_RMSNORM_BWD_LAYOUT=%s: expected auto, regs, smem1, split, bulk or bulk:S (S stages, 2 to %d)",
                 lay, BULK_MAX_STAGES);
        return -1;
    }
    if (dis && strcmp(dis, "0") && strcmp(dis, "1")) {
        snprintf(bad, n, "SOLBENCH_RMSNORM_BWD_DISCARD=%s: expected 0 or 1", dis);
        return -1;
    }
    return 0;
}

/* One wave: as many blocks (clusters, for a split row) of the plan's
 * kernel as fit on the card at once, at most SBK_RMSNORM_BWD_MAX_BLOCKS,
 * then evened out so every block walks the same number of rows give or
 * take one. Fewer partial rows of dw mean less to write and sum. */
static int64_t rmsnorm_bwd_wave(int64_t M, const sbk_rmsnorm_bwd_plan *p, bool shaped)
{
    int64_t cap = SBK_RMSNORM_BWD_MAX_BLOCKS;
    int dev, sms = 0, per_sm = 0;
    if (shaped && p->cluster > 1) {
        cluster_launch one(p->cluster, p->threads, p->smem, p->cluster, 0);
        int nc = 0;
        if (cudaOccupancyMaxActiveClusters(&nc, p->fn, &one.cfg) == cudaSuccess && nc > 0 &&
            (int64_t)nc * p->cluster <= SBK_RMSNORM_BWD_MAX_BLOCKS)
            cap = nc;
        else
            cap = SBK_RMSNORM_BWD_MAX_BLOCKS / p->cluster;
    } else if (shaped && cudaGetDevice(&dev) == cudaSuccess &&
               cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
               cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, p->fn, p->threads, p->smem) == cudaSuccess &&
               sms > 0 && per_sm > 0 && (int64_t)sms * per_sm < cap) {
        cap = (int64_t)sms * per_sm;
    }
    (void)cudaGetLastError(); /* no device (the CPU path): keep the cap */
    return even_wave(M, cap);
}

extern "C" int sbk_rmsnorm_bwd_plan_make(int64_t M, int64_t N, sbk_dtype dt, sbk_dtype wdt,
                                         sbk_rmsnorm_bwd_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (!rows_ok(M, N) || sbk_dtype_size(dt) == 0 || (wdt != dt && wdt != SBK_F32)) return -1;
    const char *kind = "unknown";
    const bool shaped = rmsnorm_bwd_fn(M, N, true, dt, wdt, &plan->threads, &plan->smem, &plan->fn,
                                       &plan->cluster, &kind) == cudaSuccess;
    (void)cudaGetLastError(); /* no device (the CPU path): the shape is still known */
    plan->blocks = rmsnorm_bwd_wave(M, plan, shaped);
    plan->discard = rmsnorm_bwd_discard(N);
    const int per = strcmp(kind, "bulk") == 0 ? (int)((plan->smem - BULK_HEAD) / (2 * (size_t)N * sbk_dtype_size(dt)))
                                              : plan->cluster; /* bulk: its stages */
    snprintf(plan->name, sizeof plan->name, "%s:%d threads=%d smem_bytes=%zu partials %s", kind, per, plan->threads,
             plan->smem, plan->discard ? "dropped from L2" : "written back");
    return 0;
}

extern "C" cudaError_t sbk_rmsnorm_bwd(const void *dy, const void *x, const void *w, void *dx, void *dw,
                                       float *partial, const sbk_rmsnorm_bwd_plan *plan, int64_t M, int64_t N,
                                       float eps, sbk_dtype dt, sbk_dtype wdt, cudaStream_t s)
{
    if (!rows_ok(M, N) || !plan || plan->blocks < 1 || plan->blocks > SBK_RMSNORM_BWD_MAX_BLOCKS || !plan->fn)
        return cudaErrorInvalidValue;
    int threads = plan->threads, C = plan->cluster;
    size_t smem = plan->smem;
    const void *fn = plan->fn;
    cudaError_t e;
    /* the plan is for aligned rows; misaligned pointers (rare) get their
     * own shape, looked up at the launch */
    if (!(aligned16(x) && aligned16(dy) && aligned16(dx) && aligned16(w)) &&
        (e = rmsnorm_bwd_fn(M, N, false, dt, wdt, &threads, &smem, &fn, &C)) != cudaSuccess)
        return e;
    /* G partial rows: G blocks, or G clusters of C blocks for a split row
     * (at most SBK_RMSNORM_BWD_MAX_BLOCKS / C of them) */
    int64_t G = plan->blocks;
    if (G * C > SBK_RMSNORM_BWD_MAX_BLOCKS) G = SBK_RMSNORM_BWD_MAX_BLOCKS / C;
    void *args[] = {(void *)&dy, (void *)&x, (void *)&w, (void *)&dx, (void *)&partial, (void *)&M, (void *)&N,
                    (void *)&eps, (void *)&C};
    cluster_launch launch(G * C, threads, smem, C, s);
    if ((e = cudaLaunchKernelExC(&launch.cfg, fn, args)) != cudaSuccess) return e;
    const int discard = plan->discard && ((uintptr_t)partial & 127) == 0 ? 1 : 0;
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt,
        e = launch_pdl(column_sum_k<TW>, dim3((unsigned)((N + 31) / 32)), dim3(1024), 0, s,
                       (const float *)partial, (TW *)dw, G, N, discard)));
    return e;
}

extern "C" cudaError_t sbk_add_rmsnorm(const void *x, const void *res, const void *w,
                                       void *x_out, void *res_out, int64_t M, int64_t N,
                                       float eps, sbk_dtype dt, sbk_dtype wdt,
                                       int most, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    size_t smem;
    int maxv = rows_pick(SBK_ROWS_ADD_RMSNORM, N, (int)sbk_dtype_size(dt),
                         aligned16(x) && aligned16(res) && aligned16(w) && aligned16(x_out) && aligned16(res_out),
                         most, &threads, &smem);
    SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, SBK_DISPATCH_ROW2(maxv,
        add_rmsnorm_k<T, TW, ROW><<<(unsigned)M, threads, 0, s>>>(
            (const T *)x, (const T *)res, (const TW *)w, (T *)x_out, (T *)res_out, N, eps))));
    return launch_status();
}

extern "C" cudaError_t sbk_layernorm_fwd(const void *x, const void *w, const void *b,
                                         void *y, int64_t M, int64_t N, float eps,
                                         sbk_dtype dt, sbk_dtype wdt, int most, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    size_t smem;
    int maxv = rows_pick(SBK_ROWS_LAYERNORM, N, (int)sbk_dtype_size(dt),
                         aligned16(x) && aligned16(y) && aligned16(w) && aligned16(b), most, &threads, &smem);
    if (maxv == ROW_L2(2)) {
        SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, layernorm_fwd_k<T, TW, row_l2<T, 2, 3>><<<(unsigned)M, threads, 0, s>>>(
            (const T *)x, (const TW *)w, (const TW *)b, (T *)y, N, eps)));
    } else if (maxv <= ROW_L2(1)) {
        SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, layernorm_fwd_k<T, TW, row_l2<T, 4, 3>><<<(unsigned)M, threads, 0, s>>>(
            (const T *)x, (const TW *)w, (const TW *)b, (T *)y, N, eps)));
    } else {
        SBK_DISPATCH_T(dt, SBK_DISPATCH_TW(dt, wdt, SBK_DISPATCH_ROW(maxv,
            layernorm_fwd_k<T, TW, ROW><<<(unsigned)M, threads, 0, s>>>(
                (const T *)x, (const TW *)w, (const TW *)b, (T *)y, N, eps))));
    }
    return launch_status();
}

extern "C" cudaError_t sbk_softmax_fwd(const void *x, void *y, int64_t M, int64_t N,
                                       sbk_dtype dt, int most, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    size_t smem;
    const bool al = aligned16(x) && aligned16(y);
    /* three passes over the row: from shared memory when it fits (more rows
     * in flight per SM than row_regs allows), as cross entropy */
    int maxv = rows_pick(SBK_ROWS_SOFTMAX_FWD, N, (int)sbk_dtype_size(dt), al, most, &threads, &smem);
    if (maxv == ROWS_SMEM) {
        cudaError_t e = cudaSuccess;
        SBK_DISPATCH_T(dt, e = allow_smem(softmax_fwd_k<T, row_smem<T>>, smem); if (e != cudaSuccess) return e;
                       softmax_fwd_k<T, row_smem<T>><<<(unsigned)M, threads, smem, s>>>((const T *)x, (T *)y, N));
        return launch_status();
    }
    SBK_DISPATCH_T(dt, SBK_DISPATCH_ROW(maxv,
        softmax_fwd_k<T, ROW><<<(unsigned)M, threads, 0, s>>>((const T *)x, (T *)y, N)));
    return launch_status();
}

extern "C" cudaError_t sbk_softmax_bwd(const void *dy, const void *y, void *dx, int64_t M,
                                       int64_t N, sbk_dtype dt, int most, cudaStream_t s)
{
    if (!rows_ok(M, N)) return cudaErrorInvalidValue;
    int threads;
    size_t smem;
    int maxv = rows_pick(SBK_ROWS_SOFTMAX_BWD, N, (int)sbk_dtype_size(dt), aligned16(dy) && aligned16(y) && aligned16(dx),
                         most, &threads, &smem);
    if (maxv == ROW_L2(2)) {
        SBK_DISPATCH_T(dt, softmax_bwd_l2_k<T, 2><<<(unsigned)M, threads, 0, s>>>((const T *)dy, (const T *)y, (T *)dx, N));
    } else if (maxv <= ROW_L2(1)) {
        SBK_DISPATCH_T(dt, softmax_bwd_l2_k<T, 4><<<(unsigned)M, threads, 0, s>>>((const T *)dy, (const T *)y, (T *)dx, N));
    } else {
        SBK_DISPATCH_T(dt, SBK_DISPATCH_ROW2(maxv,
            softmax_bwd_k<T, ROW><<<(unsigned)M, threads, 0, s>>>(
                (const T *)dy, (const T *)y, (T *)dx, N)));
    }
    return launch_status();
}
