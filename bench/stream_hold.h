/* stream_hold.h - hold a stream until the host has queued a batch of timed
 * launches (nvbench's "blocking kernel").
 *
 * A CUDA event pair around a launch times from when the GPU reaches the
 * first event to when it reaches the second. When the GPU is idle, it
 * reaches the first event before the host has even submitted the launch,
 * so the sample includes the host's submit time: the first sample of every
 * repeat did (H100, 2048 x 1024 RMSNorm: about 10.7 us against a median of
 * 6.5), and every sample of a kernel shorter than a submit does. A hold is
 * a one-thread kernel that spins until the host releases it: the timed
 * launches queue up behind it and then run back to back, so each sample is
 * the GPU's time alone. A hold that waits longer than its timeout (the
 * queue filled up while it spun, or the host stalled) lets go by itself and
 * is counted, so a contaminated repeat is never silent. */
#ifndef SOLBOOK_BENCH_STREAM_HOLD_H
#define SOLBOOK_BENCH_STREAM_HOLD_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_stream_hold sb_stream_hold;

/* A hold with `slots` independent flags (one per batch that may be queued
 * at once), each letting go by itself after timeout_ms. Flags live in
 * mapped, pinned host memory. */
cudaError_t sb_stream_hold_open(sb_stream_hold **out, int slots, double timeout_ms);
void sb_stream_hold_close(sb_stream_hold *h);
/* Queues a hold on slot `slot` of stream s: the launches queued after it on
 * s wait until sb_stream_hold_release(h, slot). The slot's earlier hold
 * must have run (its batch waited for) before the slot is used again. */
cudaError_t sb_stream_hold_launch(sb_stream_hold *h, int slot, cudaStream_t s);
void sb_stream_hold_release(sb_stream_hold *h, int slot);
/* Holds that let go by their timeout so far (read once their stream has
 * passed them). */
int sb_stream_hold_timeouts(const sb_stream_hold *h);

#ifdef __cplusplus
}
#endif

#endif
