/* sbk_common.cuh - device helpers shared by the solbench kernels: element
 * conversion, 16-byte vector I/O, block reductions, row holders. */
#ifndef SOLBOOK_BENCH_KERNELS_SBK_COMMON_CUH
#define SOLBOOK_BENCH_KERNELS_SBK_COMMON_CUH

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "sbk_types.h"

namespace sbk {

typedef __nv_bfloat16 bf16;
typedef __half f16;

template <typename T> __device__ __forceinline__ float tof(T v);
template <> __device__ __forceinline__ float tof<float>(float v) { return v; }
template <> __device__ __forceinline__ float tof<f16>(f16 v) { return __half2float(v); }
template <> __device__ __forceinline__ float tof<bf16>(bf16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T fromf(float v);
template <> __device__ __forceinline__ float fromf<float>(float v) { return v; }
template <> __device__ __forceinline__ f16 fromf<f16>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ bf16 fromf<bf16>(float v) { return __float2bfloat16_rn(v); }

/* A held 16-byte vector of T as floats, for a pass over a row kept in
 * registers. For bf16 the widening is two integer ops a pair, written as
 * volatile PTX so that the compiler cannot keep the first pass's floats
 * live into the next pass instead of redoing them: it did, and a row of 8
 * vectors a thread took 101 registers against 60 for fp16. */
template <typename T> __device__ __forceinline__ void unpack_held(const uint4 &u, float *x)
{
    const T *e = reinterpret_cast<const T *>(&u);
#pragma unroll
    for (int i = 0; i < 16 / (int)sizeof(T); i++) x[i] = tof<T>(e[i]);
}
template <> __device__ __forceinline__ void unpack_held<bf16>(const uint4 &u, float *x)
{
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int q = 0; q < 4; q++) {
        unsigned lo, hi;
        asm volatile("shl.b32 %0, %2, 16;\n\tand.b32 %1, %2, 0xffff0000;" : "=r"(lo), "=r"(hi) : "r"(w[q]));
        x[2 * q] = __uint_as_float(lo);
        x[2 * q + 1] = __uint_as_float(hi);
    }
}

/* Elements of T in one 16-byte vector. */
template <typename T> struct vec { static constexpr int n = 16 / (int)sizeof(T); };

/* Loads / stores VW consecutive elements of T as float, with the widest
 * aligned accesses (16 bytes when VW * sizeof(T) is a multiple of 16). The
 * address must be aligned to min(16, VW * sizeof(T)). */
template <typename T, int VW> struct io {
    static constexpr int bytes = VW * (int)sizeof(T);
    static constexpr int per = 16 / (int)sizeof(T);
    /* the q-th 16-byte vector of f, packed to T / unpacked from T */
    __device__ __forceinline__ static uint4 pack(const float *f, int q)
    {
        uint4 u;
        T *e = reinterpret_cast<T *>(&u);
#pragma unroll
        for (int i = 0; i < per; i++) e[i] = fromf<T>(f[q * per + i]);
        return u;
    }
    __device__ __forceinline__ static void unpack(uint4 u, float *f, int q)
    {
        const T *e = reinterpret_cast<const T *>(&u);
#pragma unroll
        for (int i = 0; i < per; i++) f[q * per + i] = tof<T>(e[i]);
    }
    __device__ __forceinline__ static void load(const T *p, float *f)
    {
        if constexpr (bytes % 16 == 0) {
#pragma unroll
            for (int q = 0; q < bytes / 16; q++) unpack(reinterpret_cast<const uint4 *>(p)[q], f, q);
        } else if constexpr (bytes == 8) {
            uint2 u = *reinterpret_cast<const uint2 *>(p);
            const T *e = reinterpret_cast<const T *>(&u);
#pragma unroll
            for (int i = 0; i < VW; i++) f[i] = tof<T>(e[i]);
        } else {
#pragma unroll
            for (int i = 0; i < VW; i++) f[i] = tof<T>(p[i]);
        }
    }
    /* load, with the streaming hint (ld.global.cs: evict first) for an
     * input the kernel reads once */
    __device__ __forceinline__ static void load_stream(const T *p, float *f)
    {
        if constexpr (bytes % 16 == 0) {
#pragma unroll
            for (int q = 0; q < bytes / 16; q++) unpack(__ldcs(reinterpret_cast<const uint4 *>(p) + q), f, q);
        } else {
            load(p, f);
        }
    }
    /* store, with the streaming hint (st.global.cs: evict first) for an
     * output nothing in the kernel reads again, so that it does not push
     * the inputs still to be read out of L2 */
    __device__ __forceinline__ static void store_stream(T *p, const float *f)
    {
        if constexpr (bytes % 16 == 0) {
#pragma unroll
            for (int q = 0; q < bytes / 16; q++) __stcs(reinterpret_cast<uint4 *>(p) + q, pack(f, q));
        } else {
            store(p, f);
        }
    }
    __device__ __forceinline__ static void store(T *p, const float *f)
    {
        if constexpr (bytes % 16 == 0) {
#pragma unroll
            for (int q = 0; q < bytes / 16; q++) reinterpret_cast<uint4 *>(p)[q] = pack(f, q);
        } else if constexpr (bytes == 8) {
            uint2 u;
            T *e = reinterpret_cast<T *>(&u);
#pragma unroll
            for (int i = 0; i < VW; i++) e[i] = fromf<T>(f[i]);
            *reinterpret_cast<uint2 *>(p) = u;
        } else {
#pragma unroll
            for (int i = 0; i < VW; i++) p[i] = fromf<T>(f[i]);
        }
    }
};

/* 2^x with the SFU's ex2.approx.ftz (relative error about 2^-22): exp(v - c)
 * is fast_exp2(fmaf(v, LOG2E_F, -c * LOG2E_F)), one FFMA and one MUFU
 * op per element where __expf(v - c) takes an FADD, an FMUL and the MUFU.
 * The row kernels are issue-bound on the H100/H200 SFU rate otherwise. */
constexpr float LOG2E_F = 1.4426950408889634f;
__device__ __forceinline__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

struct op_sum { __device__ __forceinline__ float operator()(float a, float b) const { return a + b; } };
struct op_max { __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); } };

/* Reduction over the block (blockDim.x a multiple of 32, at most 1024);
 * every thread gets the result. Safe to call repeatedly. */
template <class Op>
__device__ __forceinline__ float block_reduce(float v, Op op, float identity)
{
    __shared__ float sh[32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int nw = (int)(blockDim.x >> 5);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads(); /* an earlier call may still be reading sh */
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    v = lane < nw ? sh[lane] : identity;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float block_sum(float v) { return block_reduce(v, op_sum(), 0.0f); }

/* Two sums over the block in one pass (one pair of barriers, not two). */
__device__ __forceinline__ float2 block_sum2(float a, float b)
{
    __shared__ float2 sh2[32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const int nw = (int)(blockDim.x >> 5);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    __syncthreads(); /* an earlier call may still be reading sh2 */
    if (lane == 0) sh2[wid] = make_float2(a, b);
    __syncthreads();
    float2 v = lane < nw ? sh2[lane] : make_float2(0.0f, 0.0f);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, o);
        v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
    }
    return v;
}
__device__ __forceinline__ float block_max(float v) { return block_reduce(v, op_max(), -INFINITY); }

/* A row held in registers: thread t keeps the 16-byte vectors t, t + bs,
 * ..., MAXV of them, as raw bits (4 registers each). Needs N a multiple of
 * vec<T>::n, a 16-byte aligned row, and N <= MAXV * bs * vec<T>::n. */
template <typename T, int MAXV> struct row_regs {
    static constexpr int VW = vec<T>::n;
    static constexpr bool in_regs = true;
    static constexpr bool on_chip = true; /* passes over the row cost no memory traffic */
    static constexpr int SLOTS = MAXV;
    uint4 v[MAXV];
    int nvec;
    /* stream: with the streaming hint (ld.global.cs, evict first: the row
     * is read once), else a plain read-only load (the RMSNorm backward's
     * register layout, see there); a constant at every call */
    __device__ __forceinline__ void load(const T *row, int64_t N, bool stream = true)
    {
        nvec = (int)(N / VW);
        const uint4 *p = reinterpret_cast<const uint4 *>(row);
#pragma unroll
        for (int k = 0; k < MAXV; k++) {
            int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) v[k] = stream ? __ldcs(p + idx) : p[idx];
        }
    }
    /* f(j, x, k): x = elements j .. j+VW-1 as float, held in v[k] (k is a
     * compile-time constant after unrolling) */
    template <class F> __device__ __forceinline__ void each(F f) const
    {
#pragma unroll
        for (int k = 0; k < MAXV; k++) {
            int idx = (int)threadIdx.x + k * (int)blockDim.x;
            if (idx < nvec) {
                float x[VW];
                unpack_held<T>(v[k], x);
                f((int64_t)idx * VW, x, k);
            }
        }
    }
};

/* VW elements of T as loaded, for a kernel that loads several items
 * before it computes any: whole 16-byte vectors stay packed until get()
 * widens them (unpack_held), so that a held bf16 vector costs 4 registers
 * rather than 8; else (VW elements that are not whole vectors) floats. */
template <typename T, int VW> struct held {
    static constexpr bool packed = VW * (int)sizeof(T) % 16 == 0;
    static constexpr int nq = packed ? VW * (int)sizeof(T) / 16 : 1;
    uint4 q[nq];
    float f[packed ? 1 : VW];
    __device__ __forceinline__ void load(const T *p)
    {
        if constexpr (packed) {
#pragma unroll
            for (int i = 0; i < nq; i++) q[i] = reinterpret_cast<const uint4 *>(p)[i];
        } else {
            io<T, VW>::load(p, f);
        }
    }
    /* with the streaming hint (ld.global.cs) for an input read once */
    __device__ __forceinline__ void load_stream(const T *p)
    {
        if constexpr (packed) {
#pragma unroll
            for (int i = 0; i < nq; i++) q[i] = __ldcs(reinterpret_cast<const uint4 *>(p) + i);
        } else {
            io<T, VW>::load(p, f);
        }
    }
    __device__ __forceinline__ void get(float *x) const
    {
        if constexpr (packed) {
#pragma unroll
            for (int i = 0; i < nq; i++) unpack_held<T>(q[i], x + i * (16 / (int)sizeof(T)));
        } else {
#pragma unroll
            for (int i = 0; i < VW; i++) x[i] = f[i];
        }
    }
};

/* The fallback: the row stays in memory and each pass re-reads it (from L2
 * when it is still there), VW elements at a time. */
template <typename T, int VW_> struct row_mem {
    static constexpr int VW = VW_;
    static constexpr bool in_regs = false;
    static constexpr bool on_chip = false;
    static constexpr int SLOTS = 1;
    const T *row;
    int64_t nvec;
    __device__ __forceinline__ void load(const T *r, int64_t N) { row = r; nvec = N / VW; }
    template <class F> __device__ __forceinline__ void each(F f) const
    {
        for (int64_t idx = threadIdx.x; idx < nvec; idx += blockDim.x) {
            float x[VW];
            io<T, VW>::load(row + idx * VW, x);
            f(idx * VW, x, 0);
        }
    }
};

/* A row left in memory and read in each of its P passes the way
 * torch.compile's Triton reduction reads it (examples/h100/rmsnorm-fwd-ncu/):
 * every pass but the last with an L2 evict-last policy, so that the row is
 * still in L2 for the next, the last with evict-first (ld.global.cs); Q
 * 16-byte vectors a thread in flight at a time. Registers stay few, so
 * more blocks fit an SM than with row_regs. The default for wide rows on
 * cards with much DRAM bandwidth an SM (sbk_row_l2_default,
 * docs/KERNELS.md). Needs N a multiple of vec<T>::n and a 16-byte aligned
 * row. */
template <typename T, int Q, int P = 2> struct row_l2 {
    static constexpr int VW = vec<T>::n;
    static constexpr bool in_regs = false;
    static constexpr bool on_chip = false;
    static constexpr int SLOTS = 1;
    const uint4 *row;
    int nvec;
    mutable int pass;
    __device__ __forceinline__ void load(const T *r, int64_t N)
    {
        row = reinterpret_cast<const uint4 *>(r);
        nvec = (int)(N / VW);
        pass = 0;
    }
    __device__ __forceinline__ static uint4 load_keep(const uint4 *p, uint64_t pol)
    {
        uint4 u;
        asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
                     : "l"(p), "l"(pol));
        return u;
    }
    /* A pass begins: true (with the evict-last policy in pol) unless it is
     * the last, which reads with evict-first. */
    __device__ __forceinline__ bool begin_pass(uint64_t &pol) const
    {
        const bool keep = pass++ < P - 1;
        pol = 0;
        if (keep) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
        return keep;
    }
    __device__ __forceinline__ static uint4 fetch(const uint4 *p, bool keep, uint64_t pol)
    {
        return keep ? load_keep(p, pol) : __ldcs(p);
    }
    template <class F> __device__ __forceinline__ void each(F f) const
    {
        uint64_t pol;
        const bool keep = begin_pass(pol);
        const int step = (int)blockDim.x;
        for (int idx = (int)threadIdx.x; idx < nvec; idx += Q * step) {
            uint4 u[Q];
#pragma unroll
            for (int q = 0; q < Q; q++)
                if (idx + q * step < nvec) u[q] = fetch(row + idx + q * step, keep, pol);
#pragma unroll
            for (int q = 0; q < Q; q++)
                if (idx + q * step < nvec) {
                    float x[VW];
                    unpack_held<T>(u[q], x);
                    f((int64_t)(idx + q * step) * VW, x, 0);
                }
        }
    }
    /* Two rows of the same length in step (the softmax backward's dy and
     * y): Q vectors of each in flight a thread; f(j, a, b) with a from
     * this row and b from o. A pass of both. */
    template <class F> __device__ __forceinline__ void each_with(const row_l2 &o, F f) const
    {
        uint64_t pol;
        const bool keep = begin_pass(pol);
        o.pass++;
        const int step = (int)blockDim.x;
        for (int idx = (int)threadIdx.x; idx < nvec; idx += Q * step) {
            uint4 u[Q], w[Q];
#pragma unroll
            for (int q = 0; q < Q; q++)
                if (idx + q * step < nvec) {
                    u[q] = fetch(row + idx + q * step, keep, pol);
                    w[q] = fetch(o.row + idx + q * step, keep, pol);
                }
#pragma unroll
            for (int q = 0; q < Q; q++)
                if (idx + q * step < nvec) {
                    float a[VW], b[VW];
                    unpack_held<T>(u[q], a);
                    unpack_held<T>(w[q], b);
                    f((int64_t)(idx + q * step) * VW, a, b);
                }
        }
    }
};

/* cp.async (sm_80+): 16-byte copies from global to shared memory that
 * bypass the registers, so a block can have a whole row (or the next one)
 * in flight at the cost of shared memory rather than registers. After
 * cp_async_wait<n>, the issuing thread sees its own copies; other threads'
 * copies need a barrier as well. */
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ uint4 *dyn_smem()
{
    extern __shared__ uint4 sbk_dyn_smem[];
    return sbk_dyn_smem;
}

/* A row in dynamic shared memory (N * sizeof(T) bytes, 16-byte aligned
 * row, N a multiple of vec<T>::n): loaded with cp.async, then read back
 * from shared memory on every pass. Thread t owns vectors t, t + bs, ...
 * both when copying and when reading, so no barrier is needed. Registers
 * stay few, so more blocks (rows in flight) fit on an SM than with
 * row_regs. */
template <typename T> struct row_smem {
    static constexpr int VW = vec<T>::n;
    static constexpr bool in_regs = false;
    static constexpr bool on_chip = true;
    static constexpr int SLOTS = 1;
    const uint4 *buf;
    int nvec;
    __device__ __forceinline__ void load(const T *row, int64_t N)
    {
        uint4 *b = dyn_smem();
        nvec = (int)(N / VW);
        for (int idx = threadIdx.x; idx < nvec; idx += blockDim.x) cp_async16(b + idx, row + (int64_t)idx * VW);
        cp_async_commit();
        cp_async_wait<0>();
        buf = b;
    }
    template <class F> __device__ __forceinline__ void each(F f) const
    {
        for (int idx = threadIdx.x; idx < nvec; idx += blockDim.x) {
            const uint4 u = buf[idx];
            const T *e = reinterpret_cast<const T *>(&u);
            float x[VW];
#pragma unroll
            for (int i = 0; i < VW; i++) x[i] = tof<T>(e[i]);
            f((int64_t)idx * VW, x, 0);
        }
    }
};

/* Whether one row of N elements of size esize goes to row_smem: aligned,
 * whole vectors, and at most `limit` bytes (see row_smem_limit). Threads:
 * 256, or fewer for a short row; *bytes: the dynamic shared memory. */
static inline bool pick_row_smem(int64_t N, int esize, bool aligned, size_t limit, int *threads, size_t *bytes)
{
    const int vw = 16 / esize;
    if (!aligned || N % vw != 0 || (size_t)N * (size_t)esize > limit) return false;
    const int64_t nvec = N / vw;
    *threads = nvec >= 256 ? 256 : (int)((nvec + 31) / 32 * 32);
    *bytes = (size_t)N * (size_t)esize;
    return true;
}

/* The largest row row_smem takes on the current device: what one block may
 * opt in to (227 KiB on H100/H200, 163 KiB on A100) less 1 KiB for the
 * reductions' static shared memory, or 48 KiB when the device cannot be
 * asked. */
static inline size_t row_smem_limit(void)
{
    int dev, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess || v <= 2048) {
        (void)cudaGetLastError();
        return 48 * 1024;
    }
    return (size_t)v - 1024;
}

/* Above 48 KiB of shared memory, static and dynamic together, a kernel
 * must opt in; the reductions' static arrays take up to 512 bytes, so ask
 * from 46 KiB of dynamic memory on. */
static inline cudaError_t allow_smem(const void *kernel, size_t bytes)
{
    if (bytes <= 46 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}
template <class K> static inline cudaError_t allow_smem(K *kernel, size_t bytes)
{
    return allow_smem((const void *)kernel, bytes);
}

/* Elements j .. j+VW-1 of a second row held like the first: from its
 * registers (slot k of the same thread) or from memory at mem + j. */
template <class ROW, typename T>
__device__ __forceinline__ void row_at(const ROW &r, int k, const T *mem, int64_t j, float *out)
{
    if constexpr (ROW::in_regs) {
        unpack_held<T>(r.v[k], out);
    } else {
        (void)k;
        io<T, ROW::VW>::load(mem + j, out);
    }
}

/* Picks how a row of N elements (element size esize) is held by a block of
 * at most 512 threads (the kernels' launch bound, so up to 128 registers
 * per thread), when `rows` such rows are held at once: returns MAXV in
 * {1,2,4,8} with MAXV * rows <= 8 (at most 32 registers of row data per
 * thread) and the block size (a multiple of 32): the fewest vectors a
 * thread that fit 256 threads, unless that is more than `most` vectors of
 * row data a thread (MAXV * rows) and 512 threads can hold the row in
 * fewer: then the fewest that fit 512 (most = 8: 256 threads whenever they
 * fit); -1 for a longer row (row_mem with 16-byte vectors, 512 threads); 0
 * for N not a multiple of the vector width or a misaligned pointer
 * (row_mem with single elements, 256 threads). */
static inline int pick_row_layout_most(int64_t N, int esize, bool aligned, int rows, int most, int *threads)
{
    const int vw = 16 / esize;
    if (!aligned || N % vw != 0) { *threads = 256; return 0; }
    const int64_t nvec = N / vw;
    int pick[2] = {0, 0}, bs_of[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        const int64_t limit = pass == 0 ? 256 : 512;
        for (int maxv = 1; maxv * rows <= 8; maxv *= 2) {
            int64_t bs = (nvec + maxv - 1) / maxv;
            bs = (bs + 31) / 32 * 32;
            if (bs <= limit) { pick[pass] = maxv; bs_of[pass] = (int)bs; break; }
        }
    }
    const int p = pick[0] > 0 && (pick[0] * rows <= most || pick[1] == pick[0]) ? 0 : 1;
    if (pick[p] == 0) { *threads = 512; return -1; }
    *threads = bs_of[p];
    return pick[p];
}
/* At most 8 vectors: 256 threads whenever they fit. */
static inline int pick_row_layout(int64_t N, int esize, bool aligned, int rows, int *threads)
{
    return pick_row_layout_most(N, esize, aligned, rows, 8, threads);
}

static inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

static inline cudaError_t launch_status(void) { return cudaGetLastError(); }

/* Programmatic dependent launch (Hopper on): a kernel launched with
 * launch_pdl may be scheduled while the kernel before it on the stream is
 * still running, once every block of that one has called
 * pdl_launch_dependents (or exited), so the gap between two short kernels
 * of one op (a launch's latency, a few microseconds against tens for the
 * op) is hidden. The dependent kernel must call pdl_wait, which returns
 * once the kernel before it has completed and its writes are visible,
 * before it reads them; it calls it on every path, so that its own
 * completion implies its predecessor's. On older cards the launch is an
 * ordinary one and both calls compile to nothing. */
__device__ __forceinline__ void pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_launch_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
/* Whether the current device is Hopper or newer (programmatic dependent
 * launch, thread block clusters); false without a device. */
static inline bool sm90_or_newer(void)
{
    int dev, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return major >= 9;
}
static inline bool pdl_available(void) { return sm90_or_newer(); }
template <typename... KArgs, typename... Args>
static inline cudaError_t launch_pdl(void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t smem, cudaStream_t s,
                                     Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = pdl_available() ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/* A barrier over the thread block cluster (Hopper on; clusters are never
 * launched on older cards). */
__device__ __forceinline__ void cluster_barrier()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::this_cluster().sync();
#else
    __trap();
#endif
}

/* A launch of `blocks` blocks in clusters of C (C = 1: no cluster
 * attribute), for the occupancy query and for the launch itself; with
 * pdl, as launch_pdl's programmatic dependent where the card has it. */
struct cluster_launch {
    cudaLaunchAttribute attr[2];
    cudaLaunchConfig_t cfg;
    cluster_launch(int64_t blocks, int threads, size_t smem, int C, cudaStream_t s, bool pdl = false)
        : attr{}, cfg{}
    {
        unsigned n = 0;
        if (C > 1) {
            attr[n].id = cudaLaunchAttributeClusterDimension;
            attr[n].val.clusterDim.x = (unsigned)C;
            attr[n].val.clusterDim.y = 1;
            attr[n].val.clusterDim.z = 1;
            n++;
        }
        if (pdl && pdl_available()) {
            attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[n].val.programmaticStreamSerializationAllowed = 1;
            n++;
        }
        cfg.gridDim = dim3((unsigned)blocks);
        cfg.blockDim = dim3((unsigned)threads);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = s;
        cfg.attrs = attr;
        cfg.numAttrs = n;
    }
};

} /* namespace sbk */

/* Dispatch on dt (T) for a body using the type name T. */
#define SBK_DISPATCH_T(dt, ...)                                           \
    switch (dt) {                                                          \
    case SBK_F32: { typedef float T; __VA_ARGS__; break; }                \
    case SBK_F16: { typedef sbk::f16 T; __VA_ARGS__; break; }             \
    case SBK_BF16: { typedef sbk::bf16 T; __VA_ARGS__; break; }           \
    default: return cudaErrorInvalidValue;                                 \
    }

/* Dispatch on wdt (TW): the input type T or fp32. */
#define SBK_DISPATCH_TW(dt, wdt, ...)                                      \
    if ((wdt) == SBK_F32) { typedef float TW; __VA_ARGS__; }              \
    else if ((wdt) == (dt)) { typedef T TW; __VA_ARGS__; }                \
    else return cudaErrorInvalidValue;

/* Dispatch on the row layout (MAXV 1/2/4/8 in registers, -1 = row_mem of
 * vectors, 0 = row_mem of elements). */
#define SBK_DISPATCH_ROW(maxv, ...)                                        \
    switch (maxv) {                                                        \
    case 1: { typedef sbk::row_regs<T, 1> ROW; __VA_ARGS__; break; }      \
    case 2: { typedef sbk::row_regs<T, 2> ROW; __VA_ARGS__; break; }      \
    case 4: { typedef sbk::row_regs<T, 4> ROW; __VA_ARGS__; break; }      \
    case 8: { typedef sbk::row_regs<T, 8> ROW; __VA_ARGS__; break; }      \
    case -1: { typedef sbk::row_mem<T, sbk::vec<T>::n> ROW; __VA_ARGS__; break; } \
    default: { typedef sbk::row_mem<T, 1> ROW; __VA_ARGS__; break; }      \
    }

/* The same for kernels that hold two rows (MAXV <= 4). */
#define SBK_DISPATCH_ROW2(maxv, ...)                                       \
    switch (maxv) {                                                        \
    case 1: { typedef sbk::row_regs<T, 1> ROW; __VA_ARGS__; break; }      \
    case 2: { typedef sbk::row_regs<T, 2> ROW; __VA_ARGS__; break; }      \
    case 4: { typedef sbk::row_regs<T, 4> ROW; __VA_ARGS__; break; }      \
    case -1: { typedef sbk::row_mem<T, sbk::vec<T>::n> ROW; __VA_ARGS__; break; } \
    default: { typedef sbk::row_mem<T, 1> ROW; __VA_ARGS__; break; }      \
    }

#endif
