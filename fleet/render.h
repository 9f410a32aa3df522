/* render.h - an experiment on one arch as a Kubernetes batch/v1 Job or a
 * Slurm batch script.
 *
 * Both run the same bash case table: case index i (the Indexed Job's
 * JOB_COMPLETION_INDEX, the Slurm array's SLURM_ARRAY_TASK_ID) runs the
 * commands of case i under set -euo pipefail, writing under
 * OUT/CASE_ID, OUT = ROOT/EXPERIMENT/ARCH/RUN_ID, with the task record
 * OUT/CASE_ID/solbook-task.json (state running, then done, failed or
 * cancelled) that gathering and --status read. Profile cases run under ncu where the
 * arch enables it and leave NAME.ncu.csv beside their NAME.json. No retry:
 * a case runs once (backoffLimit 0, --no-requeue), so a rerun is a new run
 * id and never mixes its files with an earlier attempt's.
 */
#ifndef SOLBOOK_FLEET_RENDER_H
#define SOLBOOK_FLEET_RENDER_H

#include <jansson.h>

#include "error.h"
#include "experiment.h"

typedef enum { SB_ENGINE_KUBERNETES, SB_ENGINE_SLURM } sb_engine;

/* Where the results volume is mounted in the Kubernetes container. */
#define SB_K8S_RESULTS_MOUNT "/results"
/* Default PVC claim name and Slurm results directory. */
#define SB_K8S_DEFAULT_CLAIM "solbook-results"
#define SB_SLURM_DEFAULT_ROOT "solbook-results"
/* Seconds a finished Job is kept before Kubernetes deletes it. */
#define SB_K8S_TTL_SECONDS 604800

typedef struct sb_render_opts {
    const sb_experiment *exp;
    const sb_exp_arch *arch;
    const char *run_id;        /* [A-Za-z0-9-], at most 16 characters */
    const char *time;          /* HH:MM:SS overriding the arch's, or NULL */
    /* Kubernetes */
    const char *image;         /* required */
    const char *namespace_;    /* NULL: none in the manifest (kubectl's current) */
    const char *queue;         /* Kueue LocalQueue, or NULL */
    const char *claim;         /* PVC name; NULL: SB_K8S_DEFAULT_CLAIM */
    const char *const *products;   /* nvidia.com/gpu.product values */
    size_t n_products;
    /* Slurm */
    const char *partition;     /* NULL: the cluster's default */
    const char *root;          /* results directory; NULL: SB_SLURM_DEFAULT_ROOT */
    /* The case indexes to run (--only-missing), ascending; NULL: all. */
    const size_t *only;
    size_t n_only;
} sb_render_opts;

/* The output directory of the run as the job sees it:
 * ROOT/EXPERIMENT/ARCH/RUN_ID, ROOT being SB_K8S_RESULTS_MOUNT or the
 * Slurm root. Returns a malloc'd string. */
char *sb_render_out_dir(const sb_render_opts *o, sb_engine engine);

/* Name of the Job / Slurm job: sb-EXPERIMENT-ARCH-RUNID (lower case). */
int sb_render_job_name(const sb_render_opts *o, char *out, size_t size, sb_error *err);

/* The bash script of the case table (for Slurm with its #SBATCH lines).
 * malloc'd, or NULL with err filled. */
char *sb_render_script(const sb_render_opts *o, sb_engine engine, sb_error *err);

/* The batch/v1 Job. New reference, or NULL with err filled. */
json_t *sb_render_k8s_job(const sb_render_opts *o, sb_error *err);

/* One command of a case as a shell line with placeholders replaced
 * (vars->out etc.), words quoted where they need it; for explain. A
 * profiled case gets its ncu wrapper (two lines, naming the metric list
 * "$NCU_METRICS" and the report REPORT). malloc'd. */
char *sb_render_command_line(const sb_exp_case *c, size_t k, const sb_exp_arch *a,
                             const sb_exp_vars *vars);

/* Quotes one word for bash: as is when it is made of safe characters,
 * else as sb_enc_shell_arg writes it (core/encode.h: in single quotes,
 * or as $'...' where it holds a control character or a bidi control).
 * malloc'd; NULL when out of memory. */
char *sb_fleet_shell_quote(const char *word);

#endif
