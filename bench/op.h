/* op.h - the interface one benchmarked operation implements for solbench.
 *
 * An op (gemm, rmsnorm, rope, swiglu, cross_entropy, ...) is a constant
 * sb_op table of callbacks. The harness (harness.h) does everything that is
 * the same for every op: it makes the execution context (GPU or CPU), asks
 * the op to allocate and fill its inputs, computes the float64 reference of
 * a sample of output rows once, and then, for each provider: poisons the
 * outputs, runs once, compares, checksums, runs again for the determinism
 * probe, warms up, times, and hands the measurement to the result writer.
 * The op never times, never prints, never writes files.
 *
 * Life of one case (one op, mode, dtype, shape, params):
 *
 *   create(cfg, ctx, &state)        allocate inputs (cfg->input_sets copies,
 *                                   random, seeded) and outputs through the
 *                                   ctx allocator (sb_ctx_alloc), upload them
 *   outputs(state, &outs)           describe the output buffers (rows x cols)
 *   reference_row(state, o, r, ...) float64 reference of output o, row r
 *   for each provider p:
 *     supports(state, p, why)       0 = run it; else a one-line reason (the
 *                                   result is written as "skipped")
 *     prepare(state, p)             handles, algorithm choice, workspace
 *                                   (through sb_ctx_alloc, so it is counted)
 *     run(state, p, set)            one launch on ctx stream, asynchronous on
 *                                   the GPU (no synchronisation inside)
 *     batch_invariance(state, p)    optional probe (GEMM)
 *   destroy(state)
 *
 * Rules for implementations:
 * - Inputs are random (sb_fill_random, seeded from cfg->seed and the set
 *   index), never all zeros, and hold values exactly representable in the
 *   input dtype (the reference reads the very same stored values).
 * - All device memory goes through sb_ctx_alloc / sb_ctx_free: that is how
 *   peak_device_bytes is measured (see docs/BENCH.md) and how the CPU path
 *   gets host memory instead. Use sb_ctx_upload / sb_ctx_download to move
 *   data (a memcpy on the CPU path).
 * - run() for a provider whose backend is SB_BACKEND_CPU is the host
 *   implementation; it runs only when ctx->device_is_cpu.
 * - Errors: return SB_ERR and fill err with one line (no file part needed).
 *   A CUDA error or an unsupported case inside run() fails the whole case.
 *
 * Registering an op: define `const sb_op sb_op_NAME = {...};` in its own
 * file (bench/op_NAME.c, or bench/kernels/NAME.cu with extern "C"), declare
 * it in bench/op_table.c and add &sb_op_NAME to sb_op_table there. The op's
 * shape and param names become solbench options (`solbench NAME --B 4 --T
 * 2048 --H 4096 --eps 1e-6 ...`). Presets (suite --preset NAME) list cases
 * as strings, see presets.h.
 *
 * This header is plain C and includes no CUDA header, so .c and .cu files
 * both use it (it has extern "C" guards).
 */
#ifndef SOLBOOK_BENCH_OP_H
#define SOLBOOK_BENCH_OP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cudaStream_t without the CUDA headers (it is `struct CUstream_st *`). */
typedef struct CUstream_st *sb_stream;

/* ------------------------------------------------------------------ dtypes */
typedef enum sb_dtype {
    SB_DTYPE_FP64 = 0,
    SB_DTYPE_FP32,
    SB_DTYPE_TF32,   /* stored as fp32; tensor-core math with tf32 inputs */
    SB_DTYPE_FP16,   /* stored as IEEE binary16 bits (uint16_t) */
    SB_DTYPE_BF16,   /* stored as bfloat16 bits (uint16_t) */
    SB_DTYPE_FP8E4M3,/* stored as one byte */
    SB_DTYPE_COUNT
} sb_dtype;

#define SB_DTYPE_BIT(d) (1u << (unsigned)(d))

/* Name as the schema spells it ("fp16"), and back; -1 when unknown. */
const char *sb_dtype_name(sb_dtype d);
int sb_dtype_parse(const char *name);
/* Bytes of one stored element (tf32: 4). */
size_t sb_dtype_size(sb_dtype d);

/* fp16 and bf16 elements convert with sbk_float_to_half and the others of
 * kernels/sbk_types.h (round to nearest even). */
/* fp32 value rounded to tf32 precision (10 explicit mantissa bits). */
float sb_f32_round_tf32(float f);
/* Element i of a buffer of stored type d, as a double. */
double sb_load_elem(const void *buf, size_t i, sb_dtype d);
/* Stores v rounded to dtype d at element i. */
void sb_store_elem(void *buf, size_t i, sb_dtype d, double v);

/* Fills n elements of dtype d with uniform values in [lo, hi) rounded to d,
 * from a generator seeded by (seed, stream_id). Deterministic across
 * machines. Never all zeros for n > 0 and lo < hi. */
void sb_fill_random(void *buf, size_t n, sb_dtype d, double lo, double hi,
                    uint64_t seed, uint64_t stream_id);
/* Element i of that stream, as sb_load_elem would read it back: the value
 * without the buffer (for inputs made on the device, random_fill.h). */
double sb_random_value(size_t i, sb_dtype d, double lo, double hi, uint64_t seed, uint64_t stream_id);

/* --------------------------------------------------------- shapes, params */
#define SB_MAX_DIMS 8
#define SB_MAX_PARAMS 8
#define SB_NAME_MAX 32
/* a param's value; run_params' launch descriptions (e.g. the RMSNorm
 * backward's "regs+prefetch:1 threads=256 smem_bytes=0 partials dropped
 * from L2") run past 64 characters */
#define SB_VALUE_MAX 128

typedef struct sb_shape {
    int count;
    char name[SB_MAX_DIMS][SB_NAME_MAX];
    int64_t value[SB_MAX_DIMS];
} sb_shape;

typedef enum sb_param_kind {
    SB_PARAM_STRING = 0, /* written as a JSON string */
    SB_PARAM_INT,        /* JSON integer */
    SB_PARAM_FLOAT,      /* JSON number */
    SB_PARAM_BOOL        /* JSON boolean (value "true"/"false") */
} sb_param_kind;

typedef struct sb_param_spec {
    const char *name;        /* option name and params key, e.g. "transa" */
    sb_param_kind kind;
    const char *default_value;
    const char *choices;     /* "n|t" for strings with fixed values, or NULL */
    const char *help;
} sb_param_spec;

typedef struct sb_params {
    int count;
    char name[SB_MAX_PARAMS][SB_NAME_MAX];
    char value[SB_MAX_PARAMS][SB_VALUE_MAX];
} sb_params;

/* Lookups; missing names give the fallback / NULL. */
int64_t sb_shape_get(const sb_shape *s, const char *name, int64_t fallback);
const char *sb_params_get(const sb_params *p, const char *name);
double sb_params_get_double(const sb_params *p, const char *name, double fallback);

/* -------------------------------------------------------- execution context */
/* Owned by the harness; ops only read it and call the functions below. */
typedef struct sb_ctx {
    int device_is_cpu;         /* 1: CPU path, "device" memory is host memory */
    int device_index;          /* CUDA ordinal (GPU path) */
    int cc_major, cc_minor;    /* compute capability (0.0 on the CPU path) */
    int sm_count;
    int64_t l2_bytes;
    sb_stream stream;          /* the stream every launch goes to (GPU path) */
    /* Tracking allocator state (see sb_ctx_alloc). */
    int64_t live_bytes, peak_bytes;
    void *impl;                /* harness private */
} sb_ctx;

/* Device memory (host memory on the CPU path), counted in live/peak. */
int sb_ctx_alloc(sb_ctx *ctx, void **ptr, size_t bytes, sb_error *err);
void sb_ctx_free(sb_ctx *ctx, void *ptr);
int sb_ctx_upload(sb_ctx *ctx, void *dev, const void *host, size_t bytes, sb_error *err);
int sb_ctx_download(sb_ctx *ctx, void *host, const void *dev, size_t bytes, sb_error *err);
/* After a launch on the GPU path: turns a pending launch error into SB_ERR
 * ("what: cudaErrorX: text"); SB_OK on the CPU path. */
int sb_ctx_check_launch(sb_ctx *ctx, const char *what, sb_error *err);

/* ------------------------------------------------------------------ the op */
typedef enum sb_backend { SB_BACKEND_CUDA = 0, SB_BACKEND_CPU = 1 } sb_backend;

typedef struct sb_provider {
    const char *name;          /* "cublas", "solbook-mma", "cpu" */
    sb_backend backend;
    const char *description;   /* one line for --help and docs */
} sb_provider;

/* What to run: filled by the CLI or a preset, read by create(). */
typedef struct sb_op_config {
    const char *mode;          /* "fwd", "bwd" or "full" */
    sb_dtype dtype;
    sb_shape shape;
    sb_params params;          /* every param of the op, defaults filled in */
    uint64_t seed;
    int input_sets;            /* copies of the inputs to allocate (>= 1) */
} sb_op_config;

/* One output buffer, viewed as rows x cols elements of dtype, row-major,
 * row stride ld elements. The harness poisons it with 0xFF bytes before a
 * checked run (a NaN pattern for every float type), downloads it after,
 * counts elements still holding the poison, non-finite ones, and compares
 * sampled rows with reference_row. */
typedef struct sb_output {
    const char *name;          /* "C", "y", "dx" */
    void *dev;                 /* device pointer (host pointer on CPU path) */
    sb_dtype dtype;
    int64_t rows, cols, ld;
} sb_output;

#define SB_MAX_OUTPUTS 4

typedef struct sb_op {
    const char *name;                 /* "gemm"; config.op in results */
    const char *summary;              /* one line */
    const char *const *modes;         /* NULL-terminated; first is default */
    const sb_provider *providers;     /* ended by a {NULL} entry */
    const char *const *shape_names;   /* NULL-terminated, e.g. M, N, K */
    const int64_t *shape_defaults;    /* one per shape name */
    const sb_param_spec *params;      /* ended by a {NULL} entry; may be NULL */
    uint32_t dtypes;                  /* SB_DTYPE_BIT mask of accepted dtypes */

    /* Checks the config (shape > 0, params valid); SB_ERR with a clear line. */
    int (*validate)(const sb_op_config *cfg, sb_error *err);
    /* Bytes of one input set (decides rotation) and the FLOP / byte model of
     * one launch (docs/MODELS.md). */
    double (*input_set_bytes)(const sb_op_config *cfg);
    double (*model_flops)(const sb_op_config *cfg);
    double (*model_bytes)(const sb_op_config *cfg);

    int (*create)(const sb_op_config *cfg, sb_ctx *ctx, void **state, sb_error *err);
    void (*destroy)(void *state);
    /* Fills outs[0..n-1]; returns n (1..SB_MAX_OUTPUTS). */
    int (*outputs)(void *state, sb_output *outs);
    /* float64 reference of row `row` of output `out` (cols values into ref)
     * computed from input set 0. scale[j] (preset to 1.0 by the harness) may
     * be set to the magnitude that absolute errors scale with, e.g.
     * sum_k |a_ik * b_kj| for a dot product; the check is
     *     |out - ref| <= atol * scale + rtol * |ref|
     * with atol/rtol from the tolerance table (docs/TOLERANCES.md). */
    int (*reference_row)(void *state, int out, int64_t row, double *ref,
                         double *scale, sb_error *err);
    /* Rows to check per output; 0 = all rows. The harness spreads them over
     * the output (first and last row included). */
    int64_t (*check_rows)(void *state, int out);

    /* 0: the provider can run this case. Otherwise fills why (one line) and
     * returns 1: the case is written as skipped for that provider. */
    int (*supports)(void *state, int provider, char *why, size_t why_size);
    /* Per-provider setup before the first run (handles, algorithm search,
     * workspace). May be NULL. */
    int (*prepare)(void *state, int provider, sb_error *err);
    /* One launch reading input set `set`, writing the outputs. */
    int (*run)(void *state, int provider, int set, sb_error *err);
    /* Optional: batch invariance probe. Sets *invariant to 1/0; NULL op
     * member or *invariant = -1 means not measured. */
    int (*batch_invariance)(void *state, int provider, int *invariant, sb_error *err);
    /* Optional: extra params to record for this provider (e.g. workspace),
     * appended to config.params. May be NULL. */
    void (*provider_params)(void *state, int provider, sb_params *extra);
    /* Optional: shape defaults for --device cpu (one per shape name), so
     * that `solbench OP --device cpu` with no sizes stays quick. NULL: the
     * same defaults as on the GPU. */
    const int64_t *cpu_shape_defaults;
    /* Optional, NULL-terminated: the names provider_params may add. The
     * CLI accepts them as options (--NAME VALUE) and ignores the value, so
     * that a command rebuilt from a stored result's params (solbook's
     * reproduce lines) runs; the new run records its own values. */
    const char *const *recorded_params;
} sb_op;

/* The op table (bench/op_table.c), ended by NULL. */
extern const sb_op *const sb_op_table[];
const sb_op *sb_op_find(const char *name);
/* Index of a provider by name, -1 when the op has none of that name. */
int sb_op_provider_index(const sb_op *op, const char *name);

#ifdef __cplusplus
}
#endif

#endif
