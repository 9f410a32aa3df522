/* forge_abi.h - the calling convention between solbook forge and a
 * candidate folder (docs/FORGE.md, "The candidate ABI").
 *
 * reference.cu (or reference.c) defines the op: it creates a problem
 * (device inputs filled from a seed, device outputs), launches the baseline,
 * and checks device outputs against a higher-precision host reference.
 * kernel.cu defines the candidate: one extern "C" launcher whose name is
 * metadata.json's entry_point, with the forge_launch_fn signature.
 * test.cu is the candidate's own correctness test (a main that exits 0 only
 * when the candidate matches the reference). forge compiles
 *     test.cu + kernel.cu + reference.cu          -> forge_test   (verify)
 *     forge_bench.cu + kernel.cu + reference.cu   -> forge_bench  (bench)
 * with this folder on the include path.
 */
#ifndef SOLBOOK_FORGE_ABI_H
#define SOLBOOK_FORGE_ABI_H

#include <stddef.h>
#include <string.h>

#include <cuda_runtime.h>

#define FORGE_MAX_DIMS 8
#define FORGE_MAX_BUFFERS 8
#define FORGE_DIM_NAME 16

typedef struct forge_shape {
    int count;
    char names[FORGE_MAX_DIMS][FORGE_DIM_NAME];
    long long values[FORGE_MAX_DIMS];
} forge_shape;

typedef struct forge_problem {
    forge_shape shape;
    void *inputs[FORGE_MAX_BUFFERS];       /* device pointers */
    size_t input_bytes[FORGE_MAX_BUFFERS];
    int input_count;
    void *outputs[FORGE_MAX_BUFFERS];      /* device pointers, poisoned by forge before checked runs */
    size_t output_bytes[FORGE_MAX_BUFFERS];
    int output_count;
    void *workspace;                       /* optional device scratch the launchers may use */
    size_t workspace_bytes;
    double bytes_model;                    /* fewest device-memory bytes one launch must move */
    double flops_model;                    /* floating-point operations of one launch */
    void *host_state;                      /* owned by reference.cu */
} forge_problem;

typedef struct forge_check {
    char reference[64];     /* e.g. "float64-host" */
    long long checked;      /* output elements compared */
    double max_abs_err;
    double max_rel_err;     /* |out - ref| / (|ref| + atol) */
    double rel_l2_err;
    double atol, rtol;
    long long unwritten;    /* elements still holding the poison pattern */
    int finite;             /* every output finite */
    int passed;
} forge_check;

/* A launcher: enqueues the whole op on stream, returns the launch status. */
typedef cudaError_t (*forge_launch_fn)(const forge_problem *p, cudaStream_t stream);

#ifdef __cplusplus
extern "C" {
#endif

/* reference.cu: fills p (inputs from seed, outputs allocated); 0 on success,
 * otherwise writes a one-line reason into msg. */
int forge_problem_create(const forge_shape *shape, unsigned long long seed,
                         forge_problem *p, char *msg, size_t msg_size);
/* reference.cu: the baseline implementation. */
cudaError_t forge_baseline_launch(const forge_problem *p, cudaStream_t stream);
/* reference.cu: compares p's device outputs with the host reference. 0 when
 * the comparison could be made (verdict in out->passed). */
int forge_problem_check(const forge_problem *p, forge_check *out, char *msg, size_t msg_size);
/* reference.cu: frees everything forge_problem_create allocated. */
void forge_problem_destroy(forge_problem *p);

#ifdef __cplusplus
}
#endif

/* Value of dimension name in shape, or -1 when absent. */
static inline long long forge_dim(const forge_shape *s, const char *name)
{
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->names[i], name) == 0)
            return s->values[i];
    return -1;
}

/* Poisons every output with 0xFF bytes (NaN for fp16/bf16/fp32/fp64). */
static inline cudaError_t forge_poison_outputs(const forge_problem *p, cudaStream_t stream)
{
    for (int i = 0; i < p->output_count; i++) {
        cudaError_t e = cudaMemsetAsync(p->outputs[i], 0xFF, p->output_bytes[i], stream);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

#endif
