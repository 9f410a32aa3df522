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
    SB_TASK_UNKNOWN,     /* its record is refused: not read, or not this task's */
} sb_task_state;

typedef struct sb_task_status {
    sb_task_state state;
    char detail[320]; /* job, host, exit status, the scheduler's state */
} sb_task_status;

/* "done", "failed", ... */
const char *sb_task_state_name(sb_task_state s);

/* 1 for tasks --only-missing runs again: failed, cancelled, stopped, not
 * started. Never for pending, running or unknown ones (a refused record
 * may stand for a task that runs). */
int sb_task_needs_rerun(const sb_task_status *s);

/* The task record a submitted case leaves in its directory. */
#define SB_TASK_RECORD_FILE "solbook-task.json"

/* A task record (OUT/CASE_ID/solbook-task.json, solbook.fleet-task.v1) as
 * the task script writes it. The one reader of task records: `submit
 * --status` (sb_task_status_from_records) and `ingest --fleet`
 * (gather.h) both read them through it. */
typedef struct sb_task_record {
    const char *experiment, *arch, *run_id, *case_id; /* the run and case it names */
    const char *engine, *job_id, *host, *started_at;
    size_t index;        /* its task's index: case_id is cases[index] */
    size_t n_cases;      /* the run's cases, sb_task_record_case_at */
    sb_task_state state; /* running, done, failed or cancelled */
    int exit_status;     /* -1 while running */
    void *doc;           /* the parsed record the strings lie in */
} sb_task_record;

/* Reads path strictly as a task record: a plain file (not a link, a FIFO
 * or a device) of at most 64 KiB, strict JSON (json_file.h), every field
 * and no other, each of its type, the case at its index in its cases,
 * a job and host of [A-Za-z0-9._-], an exit status and end time that
 * fit its state. One that is not is refused, err naming the file and
 * the field. The record holds its strings until sb_task_record_free. */
int sb_task_record_read(const char *path, sb_task_record *out, sb_error *err);
const char *sb_task_record_case_at(const sb_task_record *r, size_t i);
void sb_task_record_free(sb_task_record *r);

/* Reading the task records of one run: what is asked, and what was found. */
typedef struct sb_task_records {
    const char *run_dir;          /* ROOT/EXPERIMENT/ARCH/RUN_ID */
    const sb_experiment *exp;
    const char *arch, *run_id;
    /* each record refused, with the one line that says why and names it */
    void (*on_refused)(void *ctx, const sb_error *why);
    void *ctx;
    size_t valid, refused;        /* filled: the records read, and refused */
} sb_task_records;

/* From the task records under r->run_dir, one status per case of r->exp
 * into out[r->exp->n_cases]. Each record is read by sb_task_record_read
 * and must be of this run and case; one that is not is refused
 * (r->on_refused), its task unknown, and the others are read. SB_ERR
 * only when the run directory's paths are too long. */
int sb_task_status_from_records(sb_task_records *r, sb_task_status *out, sb_error *err);

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
