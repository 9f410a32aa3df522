/* random_stream.h - the seeded input generator's arithmetic, shared by the
 * host fill (dtype.c) and the device fill (random_fill.cu) so that both
 * make the same values, bit for bit.
 *
 * Stream (seed, stream_id) is a splitmix64 sequence: its state before
 * element i is s0 + i gammas, so element i is a pure function of (s0, i)
 * and any element can be made anywhere, in any order. The element is the
 * uniform double lo + span * u (u = the top 53 bits / 2^53), computed as a
 * product then a sum, each rounded once (no fused multiply-add, so that the
 * host and the device agree), then rounded to float and to the dtype. */
#ifndef SOLBOOK_BENCH_RANDOM_STREAM_H
#define SOLBOOK_BENCH_RANDOM_STREAM_H

#include <stdint.h>

#ifdef __CUDACC__
#define SB_HD __host__ __device__ __forceinline__
#else
#define SB_HD static inline
#endif

#define SB_SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull

/* The state the stream starts from. */
SB_HD uint64_t sb_random_s0(uint64_t seed, uint64_t stream_id)
{
    return seed ^ (stream_id * 0xd1b54a32d192ed03ull + 0x2545f4914f6cdd1dull);
}

/* splitmix64's output function (a bijection of 64-bit words). */
SB_HD uint64_t sb_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* u in [0, 1) of element i. */
SB_HD double sb_random_u(uint64_t s0, uint64_t i)
{
    return (double)(sb_mix64(s0 + (i + 1) * SB_SPLITMIX_GAMMA) >> 11) * 0x1.0p-53;
}

#endif
