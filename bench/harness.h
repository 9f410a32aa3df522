/* harness.h - measurement, kept apart from reporting (as nvbench does).
 *
 * The harness opens an execution context (a CUDA device and stream, or the
 * host), opens a case (the op allocates its inputs, the harness computes
 * the float64 reference of the sampled rows once), and measures one
 * provider at a time into an sb_measurement: correctness first, then the
 * determinism probes, then warm-up and timed samples. result.h turns a
 * measurement into a solbook.result.v1 document; nothing here writes files.
 */
#ifndef SOLBOOK_BENCH_HARNESS_H
#define SOLBOOK_BENCH_HARNESS_H

#include <jansson.h>
#include <stdint.h>

#include "error.h"
#include "op.h"

typedef struct sb_nvml sb_nvml;

/* Opens the context. GPU path: checks the device count first and fails
 * with the "no CUDA device found" line when there is none. */
int sb_ctx_open(sb_ctx *ctx, int device_is_cpu, int device_index, sb_error *err);
void sb_ctx_close(sb_ctx *ctx);
/* Device name and total memory (GPU path); CPU model name otherwise. */
void sb_ctx_device_name(const sb_ctx *ctx, char *buf, size_t size);
int64_t sb_ctx_total_memory(const sb_ctx *ctx);
/* The device's UUID as NVML writes it ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-
 * xxxxxxxxxxxx"), from cudaGetDeviceProperties; "" on the CPU path. */
void sb_ctx_device_uuid(const sb_ctx *ctx, char *buf, size_t size);
/* cudaRuntimeGetVersion as "13.0" ("unknown" on failure). */
void sb_cuda_runtime_version(char *buf, size_t size);

/* Timing protocol options. */
typedef struct sb_protocol_opts {
    int warmup_iters;          /* used when warmup_ms <= 0 */
    double warmup_ms;          /* > 0: warm up for at least this long */
    double settle_ms;          /* > 0: before the warm-up, run back to back
                                * for at least this long (steady clocks) */
    int iters, repeats;
    int l2_cold;               /* flush a 2 x L2 buffer before every sample */
    int launch_hold;           /* queue each repeat behind a stream hold,
                                * back to back (stream_hold.h) */
    int input_sets;            /* 0: automatic rotation; else this many */
    const char *profiler;      /* "ncu" or "nsys" when the process runs under
                                * that profiler (sb_protocol_defaults reads
                                * it from the environment); NULL: none */
    int64_t max_check_rows;    /* upper bound on sampled rows per output */
    int test_corrupt_output;   /* test only: perturb the checked output */
    sb_nvml *nvml;             /* for clock states; NULL: not recorded */
    int nvml_index;            /* NVML index of the CUDA device (may differ
                                * from the CUDA ordinal) */
} sb_protocol_opts;

/* Defaults; profiler from SOLBENCH_PROFILER (ncu | nsys, set by
 * bench/scripts/ncu_profile.sh) or, failing that, from the injection
 * library a Nsight tool loads into the process (CUDA_INJECTION64_PATH). */
void sb_protocol_defaults(sb_protocol_opts *p);

/* The GEMM spec's settle phase: the card is brought to the clocks it holds
 * under a long GEMM before the 10 warm-up launches (see settle_ms). */
#define SB_SPEC_SETTLE_MS 2000.0

/* Everything one (case, provider) measurement produced. */
typedef struct sb_measurement {
    char status[16];           /* passed | failed | skipped */
    char reason[512];
    /* protocol as run */
    const char *timer;         /* cuda-event | host-monotonic */
    int warmup_iters_done;
    double warmup_ms;          /* requested, or < 0 when warm-up was by count */
    int iters, repeats, input_sets, l2_cold;
    /* samples[r * iters + i], ms */
    double *samples;
    json_t *clocks_before, *clocks_after; /* owned; may be NULL */
    json_t *repeat_clocks;     /* owned array, one state after each repeat; may be NULL */
    double settle_ms;          /* requested settle, or < 0 when none */
    int settle_launches;
    const char *launch_hold;   /* "blocking-kernel" or "none" (GPU path), NULL on the CPU */
    const char *profiler;      /* protocol.profiler: "ncu", "nsys" or NULL */
    int hold_timeouts;         /* held repeats whose hold let go by its timeout */
    /* correctness */
    char reference[64];
    int64_t checked_elements;
    double max_abs_err, max_rel_err, rel_l2_err, atol, rtol;
    int64_t unwritten, nonfinite;
    int passed;
    char checksum[17];
    /* determinism: -1 not measured, 0/1 */
    int bitwise_repeatable, batch_invariant;
    int64_t peak_device_bytes; /* -1 unknown */
    sb_params extra_params;    /* provider-specific params (workspace...) */
} sb_measurement;

void sb_measurement_free(sb_measurement *m);

typedef struct sb_case sb_case;

/* Creates the op state (inputs, outputs) and the reference rows. The
 * config's input_sets is decided here from opts and the L2 size. */
int sb_case_open(const sb_op *op, const sb_op_config *cfg, sb_ctx *ctx,
                 const sb_protocol_opts *opts, sb_case **out, sb_error *err);
void sb_case_close(sb_case *c);
const sb_op_config *sb_case_config(const sb_case *c);

/* Measures one provider. SB_ERR for errors that stop the program (CUDA or
 * cuBLAS failures, out of memory); correctness failures and unsupported
 * cases are SB_OK with m->status "failed" / "skipped". */
int sb_case_measure(sb_case *c, int provider, const sb_protocol_opts *opts,
                    sb_measurement *m, sb_error *err);

/* Tolerances for a dtype (the one table; docs/TOLERANCES.md). */
void sb_tolerance(sb_dtype d, double *atol, double *rtol);

#endif
