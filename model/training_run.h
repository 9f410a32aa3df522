/* training_run.h - a stored training run (solbook.training runs) as the
 * reports read it: one row made into a value (db/results_query.h loads
 * them). Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_TRAINING_RUN_H
#define SOLBOOK_MODEL_TRAINING_RUN_H

#include <stddef.h>

typedef struct sb_training {
    long long run_id;
    char *status, *model_name, *dtype, *strategy, *patch_name, *sku, *arch, *gpu_name, *git_sha,
        *driver, *cuda, *finished_at, *source_path;
    char *reason;              /* NULL when none */
    char *patch_kernels_json;  /* canonical JSON array */
    char *scope, *mode;        /* workload; "model" / "train-step" when the file has none */
    char *peaks_json;          /* memory.peak_device_bytes_per_rank as JSON, NULL when absent */
    long long seq_len, micro_batch_size, world_size, finished_epoch;
    long long peak_device_bytes;  /* -1 when NULL */
    double tokens_per_s, median_step_ms;
    double p20_ms, p80_ms;     /* timing.stats; NAN when absent */
    double loss_max_abs_diff;  /* loss.check.max_abs_diff; NAN when absent */
    int loss_gate;             /* loss.check.passed: 1, 0, or -1 when the run has no gate */
    int checkpointing;         /* parallelism.gradient_checkpointing: 1, 0, -1 unknown */
    char *run_uuid;            /* NULL when absent */
    char *against_run_uuid;    /* loss.check.against_run_uuid: the baseline run the losses were checked
                                  against; NULL without a gate */
    char *gpu_uuid;            /* provenance.device.uuid (the first rank's card); NULL when absent */
    char *session_id;          /* training_session.id: the training session of the launch; NULL outside one */
    long long session_round, session_position; /* training_session.round and .position; -1 outside one */
    char *timer;               /* timing.timer (cuda-event, wall-clock); NULL when absent */
} sb_training;

typedef struct sb_training_set {
    sb_training *v;
    size_t n;
} sb_training_set;

/* Frees the text of one run and sets it to NULL. */
void sb_training_run_free(sb_training *t);
void sb_training_free(sb_training_set *s);

#endif
