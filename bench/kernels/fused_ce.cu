/* fused_ce.cu - the `fused` provider of cross entropy and of fused linear
 * cross entropy (FLCE). */
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
                                                const int *__restrict__ nvalid, int pdl)
{
    constexpr int VW = ROW::VW;
    if (pdl) pdl_launch_dependents(); /* the mean may be scheduled with the last wave */
    const int64_t r = blockIdx.x, off = r * V;
    const int64_t t = target[r];
    if (t == SBK_IGNORE_INDEX) {
        pdl_wait();
        if (threadIdx.x == 0) loss_rows[r] = 0.0f;
        if (dx) {
            float z[VW];
#pragma unroll
            for (int i = 0; i < VW; i++) z[i] = 0.0f;
            for (int64_t j = (int64_t)threadIdx.x * VW; j < V; j += (int64_t)blockDim.x * VW)
                io<TO, VW>::store(dx + off + j, z);
        }
        return;
    }
    ROW xr;
    xr.load(x + off, V);
    /* the target's logit, read before the reductions: in place, the
     * gradient pass after them may overwrite it */
    const float xt = threadIdx.x == 0 ? tof<TI>(x[off + t]) : 0.0f;
    float m = -INFINITY, s = 0.0f;
    if constexpr (ROW::on_chip) {
        xr.each([&](int64_t, const float *v, int) {
#pragma unroll
            for (int i = 0; i < VW; i++) m = fmaxf(m, v[i]);
        });
        m = block_max(m);
        const float mb = m * LOG2E_F;
        xr.each([&](int64_t, const float *v, int) {
#pragma unroll
            for (int i = 0; i < VW; i++) s += fast_exp2(fmaf(v[i], LOG2E_F, -mb));
        });
        s = block_sum(s);
    } else {
        xr.each([&](int64_t, const float *v, int) {
            float vm = v[0];
#pragma unroll
            for (int i = 1; i < VW; i++) vm = fmaxf(vm, v[i]);
            const float nm = fmaxf(m, vm), nmb = nm * LOG2E_F;
            float add = 0.0f;
#pragma unroll
            for (int i = 0; i < VW; i++) add += fast_exp2(fmaf(v[i], LOG2E_F, -nmb));
            s = (m == -INFINITY ? 0.0f : s * fast_exp2((m - nm) * LOG2E_F)) + add;
            m = nm;
        });
        const float gm = block_max(m);
        s = m == -INFINITY ? 0.0f : s * fast_exp2((m - gm) * LOG2E_F);
        s = block_sum(s);
        m = gm;
    }
    const float lse = m + __logf(s);
    /* the row is read and reduced; from here on the count of valid rows,
     * written by the kernel before, is needed */
    pdl_wait();
    if (threadIdx.x == 0) loss_rows[r] = lse - xt;
    if (dx) {
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
            io<TO, VW>::store(dx + off + j, o);
        });
    }
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

/* ROW for a row of V elements of TI written as TO: the vector width of the
 * narrower type decides, so both sides stay aligned. pdl: launched as the
 * dependent of count_valid_k (launch_pdl), which is right only when the
 * kernel before wrote nothing but the count: the rows are read before
 * pdl_wait. FLCE's logits come from the GEMM just before, so it passes 0. */
template <typename TI, typename TO>
cudaError_t ce_launch(const TI *x, const int64_t *target, float *loss_rows, TO *dx, int64_t M,
                      int64_t V, const int *nvalid, bool pdl, cudaStream_t s)
{
    const int p = pdl ? 1 : 0;
    int threads;
    size_t smem;
    const bool al = aligned16(x) && (dx == nullptr || aligned16(dx));
    /* rows that fit go through shared memory: a block holds its row with a
     * few registers, so eight 24 KiB rows per SM are in flight where
     * row_regs fits three (ncu, H100, bf16 V=12288: 26% warps active, 70%
     * of DRAM bandwidth, long-scoreboard stalls), and a row too long for
     * registers is read from memory once instead of twice */
    if (pick_row_smem(V, (int)sizeof(TI), al, row_smem_limit(), &threads, &smem)) {
        cudaError_t e = allow_smem(ce_row_k<TI, TO, row_smem<TI>>, smem);
        if (e != cudaSuccess) return e;
        if (!pdl) {
            ce_row_k<TI, TO, row_smem<TI>><<<(unsigned)M, threads, smem, s>>>(x, target, loss_rows, dx, V, nvalid, p);
            return launch_status();
        }
        return launch_pdl(ce_row_k<TI, TO, row_smem<TI>>, dim3((unsigned)M), dim3(threads), smem, s, x, target,
                          loss_rows, dx, V, nvalid, p);
    }
    /* the vector width is the input's; for a wider output (fp32 in, bf16
     * out: 4 elements = 8 bytes) io<> uses the matching access width */
    int maxv = pick_row_layout(V, (int)sizeof(TI), al, 1, &threads);
    typedef TI T;
    cudaError_t e = cudaSuccess;
    SBK_DISPATCH_ROW(maxv,
        if (!pdl) {
            ce_row_k<TI, TO, ROW><<<(unsigned)M, threads, 0, s>>>(x, target, loss_rows, dx, V, nvalid, p);
            e = launch_status();
        } else {
            e = launch_pdl(ce_row_k<TI, TO, ROW>, dim3((unsigned)M), dim3(threads), 0, s, x, target, loss_rows, dx,
                           V, nvalid, p);
        });
    return e;
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

} /* namespace */

extern "C" cudaError_t sbk_cross_entropy(const void *logits, const int64_t *target,
                                         float *loss_rows, float *loss, void *dx,
                                         void *workspace, int64_t M, int64_t V, sbk_dtype dt,
                                         cudaStream_t s)
{
    if (M <= 0 || V <= 0 || M > 0x7fffffff) return cudaErrorInvalidValue;
    int *nvalid = (int *)workspace;
    count_valid_k<<<1, 1024, 0, s>>>(target, M, nvalid);
    cudaError_t e = launch_status();
    if (e != cudaSuccess) return e;
    SBK_DISPATCH_T(dt, e = ce_launch<T, T>((const T *)logits, target, loss_rows, (T *)dx, M, V,
                                           nvalid, true, s));
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

extern "C" size_t sbk_flce_workspace(int64_t BT, int64_t H, int64_t V, int64_t chunk,
                                     sbk_dtype dt, int accum, int with_grad)
{
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
                                      int64_t chunk, sbk_dtype dt, int accum, cudaStream_t s)
{
    if (BT <= 0 || H <= 0 || V <= 0 || BT > 0x7fffffff || H > 0x7fffffff || V > 0x7fffffff)
        return cudaErrorInvalidValue;
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
                                                       grad ? (T *)dlog : (T *)nullptr, c, V, nvalid, false, s));
        } else {
            SBK_DISPATCH_T(dt, e = ce_launch<T, T>((const T *)logits, target + r0, loss_rows + r0,
                                                   grad ? (T *)dlog : (T *)nullptr, c, V, nvalid, false, s));
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
