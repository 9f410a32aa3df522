// gemm_mma.cu - solbook-mma: a tiled WMMA GEMM (see gemm_mma.h).
#include "gemm_mma.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <type_traits>

namespace {

using namespace nvcuda;

constexpr int BM = SB_MMA_TILE_M, BN = SB_MMA_TILE_N, BK = SB_MMA_TILE_K;
constexpr int THREADS = 256;  // 8 warps: 2 along M (64 rows each) x 4 along N (32 cols each)
// Device-only helpers: the host compilation pass sees only the kernel's
// signature (its body needs sm_80 and the bf16 WMMA fragments).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
constexpr int PAD = 8;        // halves; keeps rows 16-byte aligned, breaks bank conflicts
constexpr int TILE_ELEMS = (BM * (BK + PAD)) > (BK * (BM + PAD)) ? (BM * (BK + PAD)) : (BK * (BM + PAD));

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ __half to_out(float v, __half *) { return __float2half_rn(v); }
__device__ __forceinline__ __nv_bfloat16 to_out(float v, __nv_bfloat16 *) { return __float2bfloat16_rn(v); }

// One tile of a matrix stored row-major with row stride ld, rows x cols
// halves (cols a multiple of 8) copied into shared memory with row stride
// cols + PAD, 16 bytes per cp.async.
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void load_tile(T *smem, const T *g, int64_t ld, int tid)
{
    constexpr int CHUNKS_PER_ROW = COLS / 8;
    constexpr int CHUNKS = ROWS * CHUNKS_PER_ROW;
#pragma unroll
    for (int c = tid; c < CHUNKS; c += THREADS) {
        int r = c / CHUNKS_PER_ROW, col = (c % CHUNKS_PER_ROW) * 8;
        cp_async16(smem + r * (COLS + PAD) + col, g + (int64_t)r * ld + col);
    }
}
#endif

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(THREADS) mma_gemm_kernel(int K, const T *__restrict__ A, int64_t lda,
                                                           const T *__restrict__ B, int64_t ldb,
                                                           T *__restrict__ C, int64_t ldc)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ __align__(128) T smem[2][2][TILE_ELEMS]; // [stage][A|B][tile]
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4;
    const int64_t bm = (int64_t)blockIdx.y * BM, bn = (int64_t)blockIdx.x * BN;

    // A tile: !TA -> [BM][BK] rows of A;  TA -> [BK][BM] rows of stored A (K x M)
    // B tile: !TB -> [BK][BN] rows of B;  TB -> [BN][BK] rows of stored B (N x K)
    auto load_stage = [&](int stage, int k0) {
        if (!TA)
            load_tile<BM, BK>(smem[stage][0], A + bm * lda + k0, lda, tid);
        else
            load_tile<BK, BM>(smem[stage][0], A + (int64_t)k0 * lda + bm, lda, tid);
        if (!TB)
            load_tile<BK, BN>(smem[stage][1], B + (int64_t)k0 * ldb + bn, ldb, tid);
        else
            load_tile<BN, BK>(smem[stage][1], B + bn * ldb + k0, ldb, tid);
    };

    using LayoutA = typename std::conditional<TA, wmma::col_major, wmma::row_major>::type;
    using LayoutB = typename std::conditional<TB, wmma::col_major, wmma::row_major>::type;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    const int KT = K / BK;
    load_stage(0, 0);
    cp_async_commit();
    for (int kt = 0; kt < KT; kt++) {
        if (kt + 1 < KT) {
            load_stage((kt + 1) & 1, (kt + 1) * BK);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        const T *As = smem[kt & 1][0], *Bs = smem[kt & 1][1];
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LayoutA> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> fb[2];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                int m = wm * 64 + i * 16;
                if (!TA)
                    wmma::load_matrix_sync(fa[i], As + m * (BK + PAD) + kk, BK + PAD);
                else
                    wmma::load_matrix_sync(fa[i], As + kk * (BM + PAD) + m, BM + PAD);
            }
#pragma unroll
            for (int j = 0; j < 2; j++) {
                int n = wn * 32 + j * 16;
                if (!TB)
                    wmma::load_matrix_sync(fb[j], Bs + kk * (BN + PAD) + n, BN + PAD);
                else
                    wmma::load_matrix_sync(fb[j], Bs + n * (BK + PAD) + kk, BK + PAD);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    // Epilogue: each warp stages one 16x16 fp32 fragment at a time in its
    // own 1 KiB of shared memory, converts and writes 16 bytes per lane.
    float *scratch = reinterpret_cast<float *>(&smem[0][0][0]) + warp * 256;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            int r = lane / 2, c0 = (lane % 2) * 8;
            alignas(16) T vals[8];
#pragma unroll
            for (int e = 0; e < 8; e++)
                vals[e] = to_out(scratch[r * 16 + c0 + e], (T *)nullptr);
            int64_t gr = bm + wm * 64 + i * 16 + r, gc = bn + wn * 32 + j * 16 + c0;
            *reinterpret_cast<uint4 *>(C + gr * ldc + gc) = *reinterpret_cast<const uint4 *>(vals);
            __syncwarp();
        }
#endif
}

template <typename T>
void launch_typed(int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
                  const void *B, int64_t ldb, void *C, int64_t ldc, cudaStream_t s)
{
    dim3 grid((unsigned)(N / BN), (unsigned)(M / BM));
    const T *a = static_cast<const T *>(A);
    const T *b = static_cast<const T *>(B);
    T *c = static_cast<T *>(C);
    int k = (int)K;
    if (!ta && !tb)
        mma_gemm_kernel<T, false, false><<<grid, THREADS, 0, s>>>(k, a, lda, b, ldb, c, ldc);
    else if (!ta && tb)
        mma_gemm_kernel<T, false, true><<<grid, THREADS, 0, s>>>(k, a, lda, b, ldb, c, ldc);
    else if (ta && !tb)
        mma_gemm_kernel<T, true, false><<<grid, THREADS, 0, s>>>(k, a, lda, b, ldb, c, ldc);
    else
        mma_gemm_kernel<T, true, true><<<grid, THREADS, 0, s>>>(k, a, lda, b, ldb, c, ldc);
}

} // namespace

extern "C" int sb_mma_gemm_launch(sb_dtype dtype, int trans_a, int trans_b, int64_t M, int64_t N,
                                  int64_t K, const void *A, int64_t lda, const void *B, int64_t ldb,
                                  void *C, int64_t ldc, sb_stream stream)
{
    if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK || K > (int64_t)1 << 30 ||
        M / BM > 65535 || N / BN > (int64_t)1 << 30 || lda % 8 || ldb % 8 || ldc % 8)
        return -1;
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
    if (dtype == SB_DTYPE_FP16)
        launch_typed<__half>(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, s);
    else if (dtype == SB_DTYPE_BF16)
        launch_typed<__nv_bfloat16>(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, s);
    else
        return -1;
    return 0;
}
