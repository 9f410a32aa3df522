/* gpu_spread.h - one host, many GPUs: the cases of a solbench preset
 * spread over the host's GPUs, one solbench process per GPU at a time.
 *
 * The scheduler keeps one child per GPU busy: each child is
 *     solbench OP [--mode M] --dtype D --SHAPE V... --PARAM V... --suite PRESET
 *              --device GPU --out DIR/ [extra options]
 * for one case, and when a child ends the next case not yet run goes to
 * that GPU (a shared queue, so a GPU that drew small cases takes more).
 * solbench records the CUDA ordinal it ran on as provenance.device.index,
 * so every result says which GPU it came from. The children get
 * CUDA_DEVICE_ORDER=PCI_BUS_ID (unless the caller set it) so that CUDA
 * ordinals and NVML indices name the same cards.
 */
#ifndef SOLBOOK_FLEET_GPU_SPREAD_H
#define SOLBOOK_FLEET_GPU_SPREAD_H

#include <stddef.h>

#include "error.h"

#define SB_SPREAD_MAX_GPUS 64

typedef struct sb_spread_case {
    const char *op, *mode, *dtype; /* mode NULL: the op's default */
    const char *shape;             /* "M=4096,N=4096,K=4096" */
    const char *params;            /* "transa=n,transb=t" or NULL */
} sb_spread_case;

/* "0,1,3" -> {0,1,3}: distinct ordinals 0..255, at most max. "all" is not
 * handled here (see sb_spread_count_gpus). */
int sb_spread_parse_gpus(const char *text, int *gpus, int max, int *n, sb_error *err);

/* The GPUs CUDA may use: the entries of CUDA_VISIBLE_DEVICES when it is
 * set (up to a "-1", where CUDA stops), else every GPU NVML sees on this
 * host (0 when none); SB_ERR when NVML is needed and cannot be loaded
 * (err says why). */
int sb_spread_count_gpus(int *n, sb_error *err);

/* The argv of one case as above (NULL-terminated, malloc'd with its
 * strings; free with sb_spread_argv_free). */
char **sb_spread_case_argv(const char *solbench, const sb_spread_case *c, const char *suite, int gpu,
                           const char *out_dir, char *const *extra, size_t n_extra, sb_error *err);
void sb_spread_argv_free(char **argv);

typedef struct sb_spread_outcome {
    int gpu;          /* ordinal it ran on, -1 if never started */
    int status;       /* exit status; 128 + N for signal N; -1 not run */
    double seconds;
} sb_spread_outcome;

/* Called when a case ends (status as above) or cannot be started. */
typedef void (*sb_spread_progress_fn)(void *ctx, size_t case_index, const sb_spread_outcome *o);

typedef struct sb_spread_plan {
    const char *solbench;          /* program (looked up on PATH) */
    const sb_spread_case *cases;
    size_t n_cases;
    const char *suite;             /* config.suite: the preset's name */
    const int *gpus;
    size_t n_gpus;
    const char *out_dir;           /* existing directory for every result */
    char *const *extra;            /* more solbench options for every case */
    size_t n_extra;
    const char *log_dir;           /* each GPU's children write to log_dir/spread-gpuN.log; NULL: inherit */
    sb_spread_progress_fn progress;
    void *ctx;
} sb_spread_plan;

/* Runs every case; outcomes[i] (n_cases of them) says how case i went.
 * SB_ERR only when the run itself breaks (fork, logs); a case that fails
 * is an outcome, not an error. */
int sb_spread_run(const sb_spread_plan *plan, sb_spread_outcome *outcomes, sb_error *err);

#endif
