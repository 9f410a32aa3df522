/* fused_ce.cu - the `fused` provider of cross entropy and of fused linear
 * cross entropy (FLCE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbk_common.cuh"
#include "sbk_cuda.h"

using namespace sbk;

namespace {

/* count of targets that are not SBK_IGNORE_INDEX -> *nvalid */
__global__ void __launch_bounds__(1024) count_valid_k(const int64_t *__restrict__ target, int64_t M,
                                                      int *__restrict__ nvalid)
{
    pdl_launch_dependents(); /* the rows may start: they wait for the count before using it */
    float c = 0.0f;
    int64_t n = 0;
    for (int64_t r = threadIdx.x; r < M; r += blockDim.x) n += target[r] != SBK_IGNORE_INDEX;
    c = (float)n; /* exact: per-thread counts stay far below 2^24 in any real case */
    c = block_sum(c);
    if (threadIdx.x == 0) *nvalid = (int)(c + 0.5f);
}

/* dx of an ignored row (or of its slice): n zeros */
template <typename TO, int VW> __device__ __forceinline__ void ce_zero(TO *d, int64_t n)
{
    float z[VW];
#pragma unroll
    for (int i = 0; i < VW; i++) z[i] = 0.0f;
    for (int64_t j = (int64_t)threadIdx.x * VW; j < n; j += (int64_t)blockDim.x * VW) io<TO, VW>::store(d + j, z);
}

/* The block's max of a row held on chip, and its sum of exponentials
 * against that max (*s). */
template <class ROW> __device__ __forceinline__ float ce_max_sum(const ROW &xr, float *s)
{
    constexpr int VW = ROW::VW;
    float m = -INFINITY, sum = 0.0f;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) m = fmaxf(m, v[i]);
    });
    m = block_max(m);
    const float mb = m * LOG2E_F;
    xr.each([&](int64_t, const float *v, int) {
#pragma unroll
        for (int i = 0; i < VW; i++) sum += fast_exp2(fmaf(v[i], LOG2E_F, -mb));
    });
    *s = block_sum(sum);
    return m;
}

/* A thread's online max and sum of exponentials over a row read once:
 * VW more values v into (*m, *s), the sum kept against the running max. */
template <int VW> __device__ __forceinline__ void ce_online_add(const float *v, float *m, float *s)
{
    float vm = v[0];
#pragma unroll
    for (int i = 1; i < VW; i++) vm = fmaxf(vm, v[i]);
    const float nm = fmaxf(*m, vm), nmb = nm * LOG2E_F;
    float add = 0.0f;
#pragma unroll
    for (int i = 0; i < VW; i++) add += fast_exp2(fmaf(v[i], LOG2E_F, -nmb));
    *s = (*m == -INFINITY ? 0.0f : *s * fast_exp2((*m - nm) * LOG2E_F)) + add;
    *m = nm;
}

/* Reduction over a team of TEAM consecutive threads of a 256-thread block
 * (TEAM 32 to 256, a power of two; every thread of the block calls it, and
 * every thread gets its team's result), or over the whole block (TEAM 0). */
template <int TEAM, class Op> __device__ __forceinline__ float team_reduce(float v, Op op, float identity)
{
    if constexpr (TEAM == 0) {
        return block_reduce(v, op, identity);
    } else {
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
        if constexpr (TEAM > 32) {
            __shared__ float sh[8];
            const int wid = threadIdx.x >> 5, first = wid / (TEAM / 32) * (TEAM / 32);
            __syncthreads(); /* an earlier call may still be reading sh */
            if ((threadIdx.x & 31) == 0) sh[wid] = v;
            __syncthreads();
            v = sh[first];
#pragma unroll
            for (int k = 1; k < TEAM / 32; k++) v = op(v, sh[first + k]);
        }
        return v;
    }
}

/* The team's (the block's: TEAM 0) max of the threads' online pairs; *s
 * becomes the team's sum against it. */
template <int TEAM = 0> __device__ __forceinline__ float ce_online_block(float m, float *s)
{
    const float gm = team_reduce<TEAM>(m, op_max(), -INFINITY);
    *s = team_reduce<TEAM>(m == -INFINITY ? 0.0f : *s * fast_exp2((m - gm) * LOG2E_F), op_sum(), 0.0f);
    return gm;
}

/* The gradient pass: d[j] = exp(x[j] - lse) / n, less 1 / n at column t
 * (t outside the row: no onehot here). */
template <typename TO, class ROW>
__device__ __forceinline__ void ce_grad(const ROW &xr, TO *d, int64_t t, float lse, const int *__restrict__ nvalid)
{
    constexpr int VW = ROW::VW;
    const float n = (float)*nvalid, inv = 1.0f / n;
    const float c = lse * LOG2E_F + __log2f(n);
    xr.each([&](int64_t j, const float *v, int) {
        float o[VW];
#pragma unroll
        for (int i = 0; i < VW; i++) o[i] = fast_exp2(fmaf(v[i], LOG2E_F, -c));
        if (t >= j && t < j + VW) {
#pragma unroll
            for (int i = 0; i < VW; i++)
                if (j + i == t) o[i] -= inv;
        }
        io<TO, VW>::store(d + j, o);
    });
}

/* One block per row: loss_rows[r] = lse - x[t]; when dx != NULL, dx =
 * (softmax - onehot) / nvalid. Ignored rows: loss 0, dx 0, the row is not
 * read. A row held on chip (registers or shared memory) takes its max first and then one exp per
 * element for the sum; a row in memory is read once for an online max/sum
 * instead of twice. The gradient folds 1/nvalid into the exponent,
 * exp(v - lse) / n = 2^(v log2e - (lse log2e + log2 n)), one FFMA and one
 * MUFU op per element, and the onehot is applied once, by the thread that
 * holds the target. */
template <typename TI, typename TO, class ROW>
__global__ void __launch_bounds__(512) ce_row_k(const TI *x, const int64_t *__restrict__ target,
                                                float *__restrict__ loss_rows, TO *dx, int64_t V,
                                                const int *__restrict__ nvalid, int /* C: 1 */, int pdl)
{
    constexpr int VW = ROW::VW;
    if (pdl) pdl_launch_dependents(); /* the mean may be scheduled with the last wave */
    const int64_t r = blockIdx.x, off = r * V;
    const int64_t t = target[r];
    if (t == SBK_IGNORE_INDEX) {
        pdl_wait();
        if (threadIdx.x == 0) loss_rows[r] = 0.0f;
        if (dx) ce_zero<TO, VW>(dx + off, V);
        return;
    }
    ROW xr;
    xr.load(x + off, V);
    /* the target's logit, read before the reductions: in place, the
     * gradient pass after them may overwrite it */
    const float xt = threadIdx.x == 0 ? tof<TI>(x[off + t]) : 0.0f;
    float m = -INFINITY, s = 0.0f;
    if constexpr (ROW::on_chip) {
        m = ce_max_sum(xr, &s);
    } else {
        xr.each([&](int64_t, const float *v, int) { ce_online_add<VW>(v, &m, &s); });
        m = ce_online_block(m, &s);
    }
    const float lse = m + __logf(s);
    /* the row is read and reduced; from here on the count of valid rows,
     * written by the kernel before, is needed */
    pdl_wait();
    if (threadIdx.x == 0) loss_rows[r] = lse - xt;
    if (dx) ce_grad(xr, dx + off, t, lse, nvalid);
}

/* A row split over a cluster of C blocks (Hopper on), block q holding
 * columns [q S, (q+1) S) (S = V / C) in its shared memory, so that a row
 * too long for one block's shared memory, or so long that one block's
 * copy would leave a single row in flight an SM, is still read from memory
 * once when the gradient is written. Each block reduces its slice to a
 * max and a sum of exponentials against that max; the C pairs are
 * combined through distributed shared memory after one cluster barrier,
 * in rank order, so every block gets the same lse. The block whose slice
 * holds the target writes the row's loss and the onehot term. */
template <typename TI, typename TO>
__global__ void __launch_bounds__(512) ce_cluster_k(const TI *x, const int64_t *__restrict__ target,
                                                    float *__restrict__ loss_rows, TO *dx, int64_t V,
                                                    const int *__restrict__ nvalid, int C, int pdl)
{
    using ROW = row_smem<TI>;
    constexpr int VW = ROW::VW;
    __shared__ float part[2];
    if (pdl) pdl_launch_dependents();
    const int64_t r = blockIdx.x / (unsigned)C, S = V / C, col0 = (int64_t)(blockIdx.x % (unsigned)C) * S;
    const int64_t off = r * V + col0, t = target[r];
    if (t == SBK_IGNORE_INDEX) { /* every block of the cluster has this row: none waits at a barrier */
        pdl_wait();
        if (col0 == 0 && threadIdx.x == 0) loss_rows[r] = 0.0f;
        if (dx) ce_zero<TO, VW>(dx + off, S);
        return;
    }
    ROW xr;
    xr.load(x + off, S);
    const int64_t tl = t - col0; /* the target's column in this slice, if it is here */
    const bool mine = tl >= 0 && tl < S;
    const float xt = mine && threadIdx.x == 0 ? tof<TI>(x[off + tl]) : 0.0f;
    float sum;
    const float m = ce_max_sum(xr, &sum);
    if (threadIdx.x == 0) {
        part[0] = m;
        part[1] = sum;
    }
    cluster_barrier();
    float gm = -INFINITY, gs = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    for (int q = 0; q < C; q++) gm = fmaxf(gm, *cl.map_shared_rank(&part[0], q));
    for (int q = 0; q < C; q++) {
        const float *pq = cl.map_shared_rank(part, q);
        gs += pq[1] * fast_exp2((pq[0] - gm) * LOG2E_F);
    }
#endif
    const float lse = gm + __logf(gs);
    pdl_wait();
    if (mine && threadIdx.x == 0) loss_rows[r] = lse - xt;
    if (dx) ce_grad(xr, dx + off, tl, lse, nvalid);
    cluster_barrier(); /* no block leaves while another may still read its part */
}

/* loss = sum(loss_rows) / nvalid, one block, fixed order: deterministic. */
__global__ void __launch_bounds__(1024) mean_loss_k(const float *__restrict__ loss_rows, int64_t M,
                                                    const int *__restrict__ nvalid, float *loss)
{
    pdl_wait(); /* every row's loss written */
    float s = 0.0f;
    for (int64_t r = threadIdx.x; r < M; r += blockDim.x) s += loss_rows[r];
    s = block_sum(s);
    if (threadIdx.x == 0) *loss = *nvalid > 0 ? s / (float)*nvalid : 0.0f;
}

/* How a row of V elements of size esize is held: in one block's shared
 * memory, in registers or left in memory (pick_row_layout), read through
 * L2 (row_l2, 4 vectors in flight a thread: the online pass keeps the row
 * in L2 for the gradient's), or in slices over a cluster. */
enum ce_kind { CE_SMEM, CE_ROWS, CE_L2, CE_CLUSTER };
struct ce_layout {
    ce_kind kind;
    int maxv, threads, C;
    size_t smem;
};

/* The default (SBK_CE_ROW_AUTO), by case-by-case comparisons in one call
 * (examples/h200/ce-row/): a row of more than CE_L2_MIN bytes read for the
 * loss alone streams through L2 in one pass, 4 vectors in flight a thread
 * (H200, fp32 16384 x 32768: 0.663x the time of its 128 KiB row copied to
 * one block's shared memory, one block an SM; bf16 16384 x 128256: 0.959x
 * the row left in memory); with the gradient, a row too long for one
 * block's shared memory goes in slices of at most CE_SLICE_MAX bytes over
 * the fewest blocks of a cluster (bf16 4096 and 16384 x 128256, 4 slices:
 * 0.890x and 0.900x the row read twice from memory; 8 slices of 32 KiB:
 * 0.917x and 0.932x). A row that fits one block's shared memory stays
 * there with the gradient (fp32 16384 x 32768: l2 took 1.211x its time,
 * 4 slices 1.133x; DeepSeek-V3 widths, 12-32 KiB: slices 1.75-5x). */
#define CE_L2_MIN (64 * 1024)
#define CE_SLICE_MAX (64 * 1024)
static int ce_auto(int64_t V, int esize, bool whole, bool grad, size_t smem_limit)
{
    const int64_t bytes = V * esize, vw = 16 / esize;
    if (!whole) return SBK_CE_ROW_SMEM;
    if (!grad) return bytes > CE_L2_MIN ? SBK_CE_ROW_L2 : SBK_CE_ROW_SMEM;
    if ((size_t)bytes <= smem_limit) return SBK_CE_ROW_SMEM;
    for (int C = 2; C <= 8; C *= 2)
        if (V % (C * vw) == 0 && bytes / C <= CE_SLICE_MAX) return SBK_CE_ROW_CLUSTER(C);
    return SBK_CE_ROW_SMEM;
}

static ce_layout ce_pick(int plan, int64_t V, int esize, bool al, bool grad)
{
    ce_layout L = {CE_ROWS, 0, 0, 1, 0};
    const int vw = 16 / esize;
    const bool whole = al && V % vw == 0;
    const size_t limit = row_smem_limit(); /* one device query a launch */
    if (plan == SBK_CE_ROW_AUTO) plan = ce_auto(V, esize, whole, grad, limit);
    if (plan > SBK_CE_ROW_CLUSTER(1)) {
        const int C = plan - SBK_CE_ROW_CLUSTER(0);
        if (whole && V % ((int64_t)C * vw) == 0 && sm90_or_newer() &&
            pick_row_smem(V / C, esize, al, limit, &L.threads, &L.smem)) {
            L.kind = CE_CLUSTER;
            L.C = C;
            return L;
        }
    }
    if (plan == SBK_CE_ROW_L2 && whole) {
        const int64_t want = (V / vw + 3) / 4;
        L.kind = CE_L2;
        L.threads = want >= 512 ? 512 : (int)((want + 31) / 32 * 32);
        return L;
    }
    if (plan != SBK_CE_ROW_REGS && pick_row_smem(V, esize, al, limit, &L.threads, &L.smem)) {
        L.kind = CE_SMEM;
        return L;
    }
    L.maxv = pick_row_layout(V, esize, al, 1, &L.threads);
    return L;
}

template <class K, typename TI, typename TO>
static cudaError_t ce_go(K kernel, const ce_layout &L, int64_t M, bool pdl, cudaStream_t s, const TI *x,
                         const int64_t *target, float *loss_rows, TO *dx, int64_t V, const int *nvalid)
{
    cudaError_t e = allow_smem(kernel, L.smem);
    if (e != cudaSuccess) return e;
    const int p = pdl ? 1 : 0;
    cluster_launch cl(M * L.C, L.threads, L.smem, L.C, s, pdl);
    return cudaLaunchKernelEx(&cl.cfg, kernel, x, target, loss_rows, dx, V, nvalid, L.C, p);
}

/* A row of V elements of TI written as TO, held as `plan` says (the
 * vector width is the input's; for a wider output, fp32 in and bf16 out,
 * io<> uses the matching access width). pdl: launched as the dependent of
 * count_valid_k (launch_pdl), which is right only when the kernel before
 * wrote nothing but the count: the rows are read before pdl_wait. FLCE's
 * logits come from the GEMM just before, so it passes false. */
template <typename TI, typename TO>
cudaError_t ce_launch(const TI *x, const int64_t *target, float *loss_rows, TO *dx, int64_t M,
                      int64_t V, const int *nvalid, bool pdl, int plan, cudaStream_t s)
{
    const bool al = aligned16(x) && (dx == nullptr || aligned16(dx));
    const ce_layout L = ce_pick(plan, V, (int)sizeof(TI), al, dx != nullptr);
    cudaError_t e = cudaSuccess;
    switch (L.kind) {
    case CE_CLUSTER:
        e = ce_go(ce_cluster_k<TI, TO>, L, M, pdl, s, x, target, loss_rows, dx, V, nvalid);
        break;
    case CE_SMEM:
        e = ce_go(ce_row_k<TI, TO, row_smem<TI>>, L, M, pdl, s, x, target, loss_rows, dx, V, nvalid);
        break;
    case CE_L2: /* one pass (evict-first) for the loss alone, two with the gradient */
        if (dx)
            e = ce_go(ce_row_k<TI, TO, row_l2<TI, 4, 2>>, L, M, pdl, s, x, target, loss_rows, dx, V, nvalid);
        else
            e = ce_go(ce_row_k<TI, TO, row_l2<TI, 4, 1>>, L, M, pdl, s, x, target, loss_rows, dx, V, nvalid);
        break;
    case CE_ROWS: {
        typedef TI T;
        SBK_DISPATCH_ROW(L.maxv, e = ce_go(ce_row_k<TI, TO, ROW>, L, M, pdl, s, x, target, loss_rows, dx, V,
                                           nvalid));
        break;
    }
    }
    return e != cudaSuccess ? e : launch_status();
}

cudaDataType_t cuda_type(sbk_dtype dt)
{
    return dt == SBK_F32 ? CUDA_R_32F : (dt == SBK_F16 ? CUDA_R_16F : CUDA_R_16BF);
}

template <typename TW>
__global__ void downcast_k(const float *__restrict__ in, TW *__restrict__ out, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        out[i] = fromf<TW>(in[i]);
}

cudaError_t gemm_status(cublasStatus_t st)
{
    if (st == CUBLAS_STATUS_SUCCESS) return cudaGetLastError();
    return st == CUBLAS_STATUS_INVALID_VALUE ? cudaErrorInvalidValue : cudaErrorUnknown;
}

size_t round_up(size_t n) { return (n + 255) / 256 * 256; }

/* ---- FLCE over slices of the vocabulary (SBK_FLCE_ACCUM_VOCAB) ---------- */

/* A row of a slice of fp32 logits read from memory by a team of TEAM
 * threads (256 / TEAM rows a block): a slice is a few thousand columns, too
 * short to keep a whole block busy, and its rows are many. The row's
 * interface is the one-row kernels' (each), so ce_grad serves both. */
template <int VW_, int TEAM> struct slice_row {
    static constexpr int VW = VW_;
    const float *row;
    int64_t n;
    int lane;
    template <class F> __device__ __forceinline__ void each(F f) const
    {
        for (int64_t j = (int64_t)lane * VW; j < n; j += (int64_t)TEAM * VW) {
            float x[VW];
            io<float, VW>::load(row + j, x);
            f(j, x, 0);
        }
    }
};

/* Row r of a slice [BT, Vc] (columns v0 .. v0 + Vc - 1): its max and sum of
 * exponentials, merged into the row's running pair (run_m, run_s), slices
 * in order so that the result does not depend on timing, and the target's
 * logit when the target is in the slice. Ignored rows (and rows past BT)
 * read nothing but still take part in the team's reductions. */
template <int VW, int TEAM>
__global__ void __launch_bounds__(256) flce_slice_lse_k(const float *__restrict__ logits, int64_t Vc, int64_t v0,
                                                        int64_t BT, const int64_t *__restrict__ target,
                                                        float *__restrict__ run_m, float *__restrict__ run_s,
                                                        float *__restrict__ xt, int first)
{
    const int64_t r = (int64_t)blockIdx.x * (256 / TEAM) + threadIdx.x / TEAM;
    const int64_t t = r < BT ? target[r] : SBK_IGNORE_INDEX;
    const slice_row<VW, TEAM> xr = {logits + r * Vc, Vc, (int)(threadIdx.x % TEAM)};
    float m = -INFINITY, s = 0.0f;
    if (t != SBK_IGNORE_INDEX) xr.each([&](int64_t, const float *v, int) { ce_online_add<VW>(v, &m, &s); });
    m = ce_online_block<TEAM>(m, &s);
    if (t == SBK_IGNORE_INDEX || xr.lane != 0) return;
    if (first) {
        run_m[r] = m;
        run_s[r] = s;
    } else {
        const float om = run_m[r], nm = fmaxf(om, m);
        run_s[r] = run_s[r] * fast_exp2((om - nm) * LOG2E_F) + s * fast_exp2((m - nm) * LOG2E_F);
        run_m[r] = nm;
    }
    if (t >= v0 && t < v0 + Vc) xt[r] = logits[r * Vc + (t - v0)];
}

/* After the last slice: lse[r] = m + ln s (over run_m) and the row's loss. */
__global__ void flce_slice_loss_k(const int64_t *__restrict__ target, float *__restrict__ run_m,
                                  const float *__restrict__ run_s, const float *__restrict__ xt,
                                  float *__restrict__ loss_rows, int64_t BT)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < BT; r += (int64_t)gridDim.x * blockDim.x) {
        if (target[r] == SBK_IGNORE_INDEX) {
            loss_rows[r] = 0.0f;
            continue;
        }
        const float lse = run_m[r] + __logf(run_s[r]);
        run_m[r] = lse;
        loss_rows[r] = lse - xt[r];
    }
}

/* The slice's dlogits [BT, Vc] (TO) from its fp32 logits and each row's
 * lse: the one-row kernel's gradient pass, the onehot where the target
 * falls in the slice; zeros for ignored rows. No reduction: a team may
 * leave early. */
template <typename TO, int VW, int TEAM>
__global__ void __launch_bounds__(256) flce_slice_grad_k(const float *__restrict__ logits, TO *__restrict__ dlog,
                                                         int64_t Vc, int64_t v0, int64_t BT,
                                                         const int64_t *__restrict__ target,
                                                         const float *__restrict__ lse, const int *__restrict__ nvalid)
{
    const int64_t r = (int64_t)blockIdx.x * (256 / TEAM) + threadIdx.x / TEAM;
    if (r >= BT) return;
    const int64_t t = target[r];
    const int lane = (int)(threadIdx.x % TEAM);
    if (t == SBK_IGNORE_INDEX) {
        float z[VW] = {};
        for (int64_t j = (int64_t)lane * VW; j < Vc; j += (int64_t)TEAM * VW) io<TO, VW>::store(dlog + r * Vc + j, z);
        return;
    }
    const slice_row<VW, TEAM> xr = {logits + r * Vc, Vc, lane};
    ce_grad(xr, dlog + r * Vc, t - v0, lse[r], nvalid);
}

/* A slice's kernels: whole 16-byte vectors of fp32 when the width allows
 * (4 columns a vector), and the smallest team, from a warp to the block,
 * that reads the row in at most 8 vectors a thread. */
template <class F> cudaError_t slice_dispatch(int64_t Vc, const F &f)
{
    const int vw = Vc % 4 == 0 ? 4 : 1;
    int team = 32;
    while (team < 256 && Vc > (int64_t)team * vw * 8) team *= 2;
#define SLICE_TEAMS(VW)                                  \
    switch (team) {                                      \
    case 32: return f.template go<VW, 32>();             \
    case 64: return f.template go<VW, 64>();             \
    case 128: return f.template go<VW, 128>();           \
    default: return f.template go<VW, 256>();            \
    }
    if (vw == 4) SLICE_TEAMS(4)
    SLICE_TEAMS(1)
#undef SLICE_TEAMS
}

/* 256-thread blocks of 256 / team rows each, for BT rows */
unsigned slice_blocks(int64_t BT, int team) { return (unsigned)((BT + 256 / team - 1) / (256 / team)); }

struct slice_lse_launch {
    const float *logits;
    int64_t Vc, v0, BT;
    const int64_t *target;
    float *run_m, *run_s, *xt;
    int first;
    cudaStream_t s;
    template <int VW, int TEAM> cudaError_t go() const
    {
        flce_slice_lse_k<VW, TEAM><<<slice_blocks(BT, TEAM), 256, 0, s>>>(logits, Vc, v0, BT, target, run_m, run_s, xt, first);
        return launch_status();
    }
};

template <typename TO> struct slice_grad_launch {
    const float *logits;
    TO *dlog;
    int64_t Vc, v0, BT;
    const int64_t *target;
    const float *lse;
    const int *nvalid;
    cudaStream_t s;
    template <int VW, int TEAM> cudaError_t go() const
    {
        flce_slice_grad_k<TO, VW, TEAM><<<slice_blocks(BT, TEAM), 256, 0, s>>>(logits, dlog, Vc, v0, BT, target, lse, nvalid);
        return launch_status();
    }
};

/* logits [BT, c] (fp32) = hidden [BT, H] x W[v0 .. v0 + c)^T */
cudaError_t slice_logits(cublasHandle_t handle, const void *hidden, const void *weight, float *logits, int64_t BT,
                         int64_t H, int64_t v0, int64_t c, sbk_dtype dt)
{
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType_t ty = cuda_type(dt);
    return gemm_status(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)c, (int)BT, (int)H, &one,
                                    (const char *)weight + (size_t)v0 * H * sbk_dtype_size(dt), ty, (int)H, hidden,
                                    ty, (int)H, &zero, logits, CUDA_R_32F, (int)c, CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT));
}

/* The scratch of the vocabulary slices, in order: fp32 logits [BT, Vc] |
 * nvalid | run_m, run_s, xt [BT] each | with a gradient: dlogits [BT, Vc]
 * in dt | an fp32 dH accumulator [BT, H] unless dt is fp32 (dH itself
 * then). */
struct vocab_scratch {
    float *logits, *run_m, *run_s, *xt, *dh32;
    int *nvalid;
    void *dlog;
    size_t bytes;
};

vocab_scratch vocab_layout(void *ws, int64_t BT, int64_t H, int64_t Vc, sbk_dtype dt, bool grad)
{
    /* offsets first, so that a size-only call (ws NULL) does no pointer
     * arithmetic on a null pointer */
    vocab_scratch v = {};
    size_t off = 0;
    auto take = [&](size_t n) {
        char *at = ws ? (char *)ws + off : nullptr;
        off += n;
        return at;
    };
    v.logits = (float *)take(round_up((size_t)BT * Vc * 4));
    v.nvalid = (int *)take(SBK_CE_WORKSPACE_BYTES);
    v.run_m = (float *)take(round_up((size_t)BT * 4));
    v.run_s = (float *)take(round_up((size_t)BT * 4));
    v.xt = (float *)take(round_up((size_t)BT * 4));
    if (grad) {
        v.dlog = take(round_up((size_t)BT * Vc * sbk_dtype_size(dt)));
        if (dt != SBK_F32) v.dh32 = (float *)take(round_up((size_t)BT * H * 4));
    }
    v.bytes = off;
    return v;
}

/* FLCE with no dW accumulator: the vocabulary in slices of Vc columns.
 * Pass one: each slice's logits (one GEMM over all rows) folded into each
 * row's running max and sum; then the rows' losses and the mean. Pass two
 * (with a gradient): each slice's logits again, its dlogits, dH (+)= dlogits
 * x W_slice in fp32 and dW_slice = dlogits^T x hidden, one GEMM that sums
 * over all BT rows in fp32 and rounds to dt once. The price is the second
 * logits GEMM; the gain is V x H x 4 bytes of accumulator. */
cudaError_t flce_vocab(cublasHandle_t handle, const void *hidden, const void *weight, const int64_t *target,
                       float *loss_rows, float *loss, void *dh, void *dw, void *workspace, int64_t BT, int64_t H,
                       int64_t V, int64_t Vc, sbk_dtype dt, cudaStream_t s)
{
    const bool grad = dh != nullptr || dw != nullptr;
    const vocab_scratch w = vocab_layout(workspace, BT, H, Vc, dt, grad);
    const cudaDataType_t ty = cuda_type(dt);
    const size_t es = sbk_dtype_size(dt);
    const float one = 1.0f, zero = 0.0f;
    cudaError_t e;
    count_valid_k<<<1, 1024, 0, s>>>(target, BT, w.nvalid);
    if ((e = launch_status()) != cudaSuccess) return e;
    for (int64_t v0 = 0; v0 < V; v0 += Vc) {
        const int64_t c = V - v0 < Vc ? V - v0 : Vc;
        if ((e = slice_logits(handle, hidden, weight, w.logits, BT, H, v0, c, dt)) != cudaSuccess) return e;
        const slice_lse_launch L = {w.logits, c, v0, BT, target, w.run_m, w.run_s, w.xt, v0 == 0, s};
        if ((e = slice_dispatch(c, L)) != cudaSuccess) return e;
    }
    flce_slice_loss_k<<<(unsigned)((BT + 255) / 256), 256, 0, s>>>(target, w.run_m, w.run_s, w.xt, loss_rows, BT);
    if ((e = launch_status()) != cudaSuccess) return e;
    mean_loss_k<<<1, 1024, 0, s>>>(loss_rows, BT, w.nvalid, loss);
    if ((e = launch_status()) != cudaSuccess || !grad) return e;
    float *dh_acc = dt == SBK_F32 ? (float *)dh : w.dh32;
    for (int64_t v0 = 0; v0 < V; v0 += Vc) {
        const int64_t c = V - v0 < Vc ? V - v0 : Vc;
        const char *w_c = (const char *)weight + (size_t)v0 * H * es;
        if ((e = slice_logits(handle, hidden, weight, w.logits, BT, H, v0, c, dt)) != cudaSuccess) return e;
        SBK_DISPATCH_T(dt, e = slice_dispatch(c, slice_grad_launch<T>{w.logits, (T *)w.dlog, c, v0, BT, target,
                                                                         w.run_m, w.nvalid, s}));
        if (e != cudaSuccess) return e;
        /* dH [BT,H] (+)= dlogits [BT,c] x W_slice [c,H], fp32 across slices */
        if (dh) {
            e = gemm_status(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)H, (int)BT, (int)c, &one, w_c, ty,
                                         (int)H, w.dlog, ty, (int)c, v0 == 0 ? &zero : &one, dh_acc, CUDA_R_32F,
                                         (int)H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            if (e != cudaSuccess) return e;
        }
        /* dW_slice [c,H] = dlogits^T [c,BT] x hidden [BT,H], straight into dw */
        if (dw) {
            e = gemm_status(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_T, (int)H, (int)c, (int)BT, &one, hidden, ty,
                                         (int)H, w.dlog, ty, (int)c, &zero, (char *)dw + (size_t)v0 * H * es, ty,
                                         (int)H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            if (e != cudaSuccess) return e;
        }
    }
    if (dh && dt != SBK_F32) {
        SBK_DISPATCH_T(dt, downcast_k<T><<<132 * 8, 256, 0, s>>>(w.dh32, (T *)dh, BT * H));
        e = launch_status();
    }
    return e;
}

} /* namespace */

/* SOLBENCH_CE_ROW: auto (unset), smem, regs, l2 or cluster:C (C = 2, 4
 * or 8), for experiments. */
extern "C" int sbk_ce_row_plan(char *bad, size_t n)
{
    const char *v = getenv("SOLBENCH_CE_ROW");
    if (!v || !strcmp(v, "auto")) return SBK_CE_ROW_AUTO;
    if (!strcmp(v, "smem")) return SBK_CE_ROW_SMEM;
    if (!strcmp(v, "regs")) return SBK_CE_ROW_REGS;
    if (!strcmp(v, "l2")) return SBK_CE_ROW_L2;
    if (!strcmp(v, "cluster:2") || !strcmp(v, "cluster:4") || !strcmp(v, "cluster:8"))
        return SBK_CE_ROW_CLUSTER(v[8] - '0');
    snprintf(bad, n, "SOLBENCH_CE_ROW=%s: auto, smem, regs, l2, cluster:2, cluster:4 or cluster:8", v);
    return -1;
}

extern "C" int sbk_ce_row_default(int64_t V, sbk_dtype dt, int grad, size_t smem_limit)
{
    const int esize = (int)sbk_dtype_size(dt);
    return esize ? ce_auto(V, esize, V % (16 / esize) == 0, grad != 0, smem_limit) : SBK_CE_ROW_SMEM;
}

extern "C" void sbk_ce_row_name(int plan, int64_t V, sbk_dtype dt, int grad, char *buf, size_t n)
{
    const ce_layout L = ce_pick(plan, V, (int)sbk_dtype_size(dt), true, grad != 0);
    (void)cudaGetLastError(); /* no device (the CPU path): the queries failed */
    switch (L.kind) {
    case CE_CLUSTER:
        snprintf(buf, n, "cluster:%d threads=%d smem_bytes=%zu", L.C, L.threads, L.smem);
        break;
    case CE_SMEM:
        snprintf(buf, n, "smem threads=%d smem_bytes=%zu", L.threads, L.smem);
        break;
    case CE_L2:
        snprintf(buf, n, "l2v4 threads=%d", L.threads);
        break;
    case CE_ROWS:
        if (L.maxv > 0)
            snprintf(buf, n, "registers threads=%d vectors=%d", L.threads, L.maxv);
        else
            snprintf(buf, n, "memory threads=%d", L.threads);
        break;
    }
}

extern "C" cudaError_t sbk_cross_entropy(const void *logits, const int64_t *target,
                                         float *loss_rows, float *loss, void *dx,
                                         void *workspace, int64_t M, int64_t V, sbk_dtype dt,
                                         int row_plan, cudaStream_t s)
{
    if (M <= 0 || V <= 0 || M > 0x7fffffff) return cudaErrorInvalidValue;
    int *nvalid = (int *)workspace;
    count_valid_k<<<1, 1024, 0, s>>>(target, M, nvalid);
    cudaError_t e = launch_status();
    if (e != cudaSuccess) return e;
    SBK_DISPATCH_T(dt, e = ce_launch<T, T>((const T *)logits, target, loss_rows, (T *)dx, M, V,
                                           nvalid, true, row_plan, s));
    if (e != cudaSuccess) return e;
    return launch_pdl(mean_loss_k, dim3(1), dim3(1024), 0, s, (const float *)loss_rows, M, (const int *)nvalid,
                      loss);
}

extern "C" int64_t sbk_flce_chunk_rows(int64_t BT, int64_t H, int64_t V, int64_t chunk, sbk_dtype dt,
                                       int accum)
{
    if (chunk > 0) return chunk < BT ? chunk : BT;
    /* Liger's rule: next power of two of ceil(BT / ceil(V / H)) */
    int64_t inc = (V + H - 1) / H;
    int64_t want = (BT + inc - 1) / inc, c = 1;
    while (c < want) c *= 2;
    /* at least the power of two of rows whose chunk scratch fits the
     * budget: fewer, larger GEMMs, and fewer passes over dW. In place
     * (input accumulation) the chunk is dt logits alone, kept small because
     * memory is the point of that mode; fp32 accumulation already spends
     * V x H x 4 bytes on dW, and its chunk holds fp32 logits and dt
     * dlogits. */
    const int64_t per_row = accum == SBK_FLCE_ACCUM_FP32 ? V * (4 + (int64_t)sbk_dtype_size(dt))
                                                         : V * (int64_t)sbk_dtype_size(dt);
    const int64_t budget_bytes = accum == SBK_FLCE_ACCUM_FP32 ? ((int64_t)1 << 30) : ((int64_t)1 << 27);
    int64_t budget = budget_bytes / per_row, b = 1;
    while (b * 2 <= budget) b *= 2;
    if (b > c) c = b;
    /* fp32 accumulation: one chunk of all BT rows needs no dW accumulator
     * (sbk_flce_fused); take it whenever it costs no more memory than the
     * chunks plus that accumulator */
    if (accum == SBK_FLCE_ACCUM_FP32 && c < BT && (BT - c) * per_row <= V * H * 4) c = BT;
    return c < BT ? c : BT;
}

extern "C" int sbk_flce_by_vocab(int accum, int with_grad)
{
    /* the loss alone with fp32 logits: slices cost no second GEMM there and
     * measured as fast as the row chunks (H200, B*T 1024-32768: 0.992-1.000x
     * the time, 1.030x at 2048; examples/h200/flce-vocab/) in about an
     * eighth of the scratch */
    return accum == SBK_FLCE_ACCUM_VOCAB || (accum == SBK_FLCE_ACCUM_FP32 && !with_grad);
}

extern "C" int64_t sbk_flce_slice_cols(int64_t BT, int64_t V, int64_t chunk, sbk_dtype dt, int with_grad)
{
    if (chunk > 0) return chunk < V ? chunk : V;
    /* the slice's fp32 logits and (with a gradient) its dt dlogits in
     * SBK_FLCE_SLICE_BUDGET bytes, whole 256-column steps, at least 1024
     * columns so that the GEMMs stay large */
    const int64_t per_col = BT * (4 + (with_grad ? (int64_t)sbk_dtype_size(dt) : 0));
    int64_t c = (int64_t)SBK_FLCE_SLICE_BUDGET / per_col / 256 * 256;
    if (c < 1024) c = 1024;
    return c < V ? c : V;
}

extern "C" size_t sbk_flce_workspace(int64_t BT, int64_t H, int64_t V, int64_t chunk,
                                     sbk_dtype dt, int accum, int with_grad)
{
    if (sbk_flce_by_vocab(accum, with_grad))
        return vocab_layout(nullptr, BT, H, sbk_flce_slice_cols(BT, V, chunk, dt, with_grad), dt, with_grad != 0).bytes;
    const int64_t C = sbk_flce_chunk_rows(BT, H, V, chunk, dt, accum);
    const size_t es = sbk_dtype_size(dt);
    if (accum != SBK_FLCE_ACCUM_FP32) return round_up((size_t)C * V * es) + SBK_CE_WORKSPACE_BYTES;
    /* the fp32 dW accumulator only when there are several chunks */
    return round_up((size_t)C * V * 4) + SBK_CE_WORKSPACE_BYTES +
           (with_grad ? round_up((size_t)C * V * es) + (C < BT ? round_up((size_t)V * H * 4) : 0) : 0);
}

extern "C" cudaError_t sbk_flce_fused(cublasHandle_t handle, const void *hidden,
                                      const void *weight, const int64_t *target,
                                      float *loss_rows, float *loss, void *dh, void *dw,
                                      void *workspace, int64_t BT, int64_t H, int64_t V,
                                      int64_t chunk, sbk_dtype dt, int accum, int row_plan, cudaStream_t s)
{
    if (BT <= 0 || H <= 0 || V <= 0 || BT > 0x7fffffff || H > 0x7fffffff || V > 0x7fffffff)
        return cudaErrorInvalidValue;
    const int grad = dh != nullptr || dw != nullptr;
    if (sbk_flce_by_vocab(accum, grad))
        return flce_vocab(handle, hidden, weight, target, loss_rows, loss, dh, dw, workspace, BT, H, V,
                          sbk_flce_slice_cols(BT, V, chunk, dt, grad), dt, s);
    const bool f32 = accum == SBK_FLCE_ACCUM_FP32;
    const int64_t C = sbk_flce_chunk_rows(BT, H, V, chunk, dt, accum);
    /* One chunk: the one dW GEMM sums in fp32 and rounds to dt once by
     * itself; the fp32 accumulator (V x H x 4 bytes, its write, read and
     * downcast) is needed only to carry sums across chunks. */
    const bool acc32 = f32 && C < BT;
    const size_t es = sbk_dtype_size(dt);
    /* scratch: logits (fp32, or dt in place) | nvalid | (fp32 with a
     * gradient) dlogits | dW fp32 */
    char *ws = (char *)workspace;
    void *logits = ws;
    ws += round_up((size_t)C * V * (f32 ? 4 : es));
    int *nvalid = (int *)ws;
    ws += SBK_CE_WORKSPACE_BYTES;
    void *dlog = f32 ? (void *)ws : logits;
    ws += round_up((size_t)C * V * es);
    float *dw32 = (float *)ws;
    const cudaDataType_t ty = cuda_type(dt);
    const float one = 1.0f, zero = 0.0f;
    cudaError_t e;

    count_valid_k<<<1, 1024, 0, s>>>(target, BT, nvalid);
    if ((e = launch_status()) != cudaSuccess) return e;
    for (int64_t r0 = 0; r0 < BT; r0 += C) {
        const int64_t c = BT - r0 < C ? BT - r0 : C;
        const char *h_c = (const char *)hidden + (size_t)r0 * H * es;
        /* logits[c,V] = h_c [c,H] x W^T, fp32 accumulation, stored fp32 or dt */
        e = gemm_status(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)V, (int)c, (int)H,
                                     &one, weight, ty, (int)H, h_c, ty, (int)H, &zero, logits,
                                     f32 ? CUDA_R_32F : ty, (int)V, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
        if (e != cudaSuccess) return e;
        const bool grad = dh != nullptr || dw != nullptr;
        /* in place when not f32: each element is read by the thread that
         * later writes its gradient, after the row's reductions */
        if (f32) {
            SBK_DISPATCH_T(dt, e = ce_launch<float, T>((const float *)logits, target + r0, loss_rows + r0,
                                                       grad ? (T *)dlog : (T *)nullptr, c, V, nvalid, false, row_plan, s));
        } else {
            SBK_DISPATCH_T(dt, e = ce_launch<T, T>((const T *)logits, target + r0, loss_rows + r0,
                                                   grad ? (T *)dlog : (T *)nullptr, c, V, nvalid, false, row_plan, s));
        }
        if (e != cudaSuccess) return e;
        /* dh rows [c,H] = dlogits [c,V] x W [V,H] */
        if (dh) {
            e = gemm_status(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)H, (int)c, (int)V,
                                         &one, weight, ty, (int)H, dlog, ty, (int)V, &zero,
                                         (char *)dh + (size_t)r0 * H * es, ty, (int)H,
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            if (e != cudaSuccess) return e;
        }
        /* dW [V,H] (+)= dlogits^T [V,c] x h_c [c,H], into the fp32
         * accumulator or straight into dw */
        if (dw) {
            const float *beta = r0 == 0 ? &zero : &one;
            e = gemm_status(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_T, (int)H, (int)V, (int)c,
                                         &one, h_c, ty, (int)H, dlog, ty, (int)V, beta, acc32 ? (void *)dw32 : dw,
                                         acc32 ? CUDA_R_32F : ty, (int)H, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT));
            if (e != cudaSuccess) return e;
        }
    }
    if (dw && acc32) {
        SBK_DISPATCH_T(dt, downcast_k<T><<<132 * 8, 256, 0, s>>>(dw32, (T *)dw, V * H));
        if ((e = launch_status()) != cudaSuccess) return e;
    }
    mean_loss_k<<<1, 1024, 0, s>>>(loss_rows, BT, nvalid, loss); /* after cuBLAS: an ordinary launch */
    return launch_status();
}
