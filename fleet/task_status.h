/* task_status.h - where each task of a submitted run stands: done,
 * failed, cancelled, running, pending, stopped or not started.
 *
 * Slurm: the task records the cases leave in the shared results directory
 * (OUT/CASE_ID/solbook-task.json, render.h) merged with squeue's view of the
 * job's array tasks (finished jobs leave squeue after the cluster's
 * MinJobAge; the records stay). Kubernetes: the Job's status from `kubectl
 * get jobs -o json` (completedIndexes, failedIndexes, conditions, active),
 * since the results volume is not visible from the submitting machine.
 */
#ifndef SOLBOOK_FLEET_TASK_STATUS_H
#define SOLBOOK_FLEET_TASK_STATUS_H

#include <stddef.h>

#include "error.h"
#include "experiment.h"

typedef enum {
    SB_TASK_NOT_STARTED, /* no record and not queued */
    SB_TASK_PENDING,     /* queued, or a Job suspended until admitted */
    SB_TASK_RUNNING,
    SB_TASK_DONE,
    SB_TASK_FAILED,
    SB_TASK_CANCELLED,
    SB_TASK_STOPPED,     /* its record says running but the scheduler lists it no more */
} sb_task_state;

typedef struct sb_task_status {
    sb_task_state state;
    char detail[320]; /* job, host, exit status, the scheduler's state */
} sb_task_status;

/* "done", "failed", ... */
const char *sb_task_state_name(sb_task_state s);

/* 1 for tasks --only-missing runs again: failed, cancelled, stopped, not
 * started. Never for pending or running ones. */
int sb_task_needs_rerun(const sb_task_status *s);

/* From the task records under run_dir (ROOT/EXPERIMENT/ARCH/RUN_ID), one
 * status per case of e into out[e->n_cases]. A record that cannot be read
 * or belongs to another case is an error naming its file. */
int sb_task_status_from_records(const char *run_dir, const sb_experiment *e, sb_task_status *out, sb_error *err);

/* Merges squeue's lines "ARRAY_JOB_ID|ARRAY_TASK_ID|STATE" (squeue
 * --noheader --array --states=all --format='%F|%K|%T') into out[n]: a
 * queued or running task shows as such unless its record says done; a task
 * squeue lists as ended without a record shows squeue's state. */
int sb_task_status_merge_squeue(const char *squeue_text, sb_task_status *out, size_t n, sb_error *err);

/* From the text of `kubectl get jobs -o json` (a List of Jobs, or one Job):
 * the Job named job_name, into out[n]. No such Job: every task not
 * started (the detail says so). Text that is not a Job list is an error. */
int sb_task_status_from_k8s(const char *kubectl_json, const char *job_name, sb_task_status *out, size_t n,
                            sb_error *err);

#endif
