/* task_status.c - task records, squeue and Kubernetes Job status. */
#include "task_status.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gather.h"
#include "json_file.h"

const char *sb_task_state_name(sb_task_state s)
{
    switch (s) {
    case SB_TASK_NOT_STARTED: return "not started";
    case SB_TASK_PENDING: return "pending";
    case SB_TASK_RUNNING: return "running";
    case SB_TASK_DONE: return "done";
    case SB_TASK_FAILED: return "failed";
    case SB_TASK_CANCELLED: return "cancelled";
    case SB_TASK_STOPPED: return "stopped";
    }
    return "?";
}

int sb_task_needs_rerun(const sb_task_status *s)
{
    return s->state == SB_TASK_FAILED || s->state == SB_TASK_CANCELLED || s->state == SB_TASK_STOPPED ||
           s->state == SB_TASK_NOT_STARTED;
}

static const char *str_at(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "?";
}

int sb_task_status_from_records(const char *run_dir, const sb_experiment *e, sb_task_status *out, sb_error *err)
{
    for (size_t i = 0; i < e->n_cases; i++) {
        sb_task_status *t = &out[i];
        t->state = SB_TASK_NOT_STARTED;
        snprintf(t->detail, sizeof t->detail, "no task record");
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s/%s", run_dir, e->cases[i].id, SB_GATHER_TASK_RECORD) >=
            sizeof path)
            return sb_error_set(err, run_dir, NULL, "path too long");
        /* The record lies on a volume the tasks write: looked at without
         * following a link, and read only as a regular file. */
        struct stat st;
        if (lstat(path, &st) != 0) {
            if (errno == ENOENT)
                continue;
            return sb_error_set(err, path, NULL, "cannot read: %s", strerror(errno));
        }
        json_t *doc;
        if (sb_json_load_plain_file(path, &doc, err) != SB_OK)
            return SB_ERR;
        const char *state = json_string_value(json_object_get(doc, "state"));
        json_t *index = json_object_get(doc, "index"), *status = json_object_get(doc, "exit_status");
        const char *cs = json_string_value(json_object_get(doc, "case"));
        if (!state || !cs || !json_is_integer(index) || (size_t)json_integer_value(index) != i ||
            strcmp(cs, e->cases[i].id) != 0) {
            json_decref(doc);
            return sb_error_set(err, path, NULL, "not the task record of case %zu (%s): state, index or case differ",
                                i, e->cases[i].id);
        }
        char exit_text[48] = "";
        if (json_is_integer(status))
            snprintf(exit_text, sizeof exit_text, ", exit status %lld", (long long)json_integer_value(status));
        snprintf(t->detail, sizeof t->detail, "%s job %s, host %s, started %s%s", str_at(doc, "engine"),
                 str_at(doc, "job_id"), str_at(doc, "host"), str_at(doc, "started_at"), exit_text);
        if (strcmp(state, "done") == 0)
            t->state = SB_TASK_DONE;
        else if (strcmp(state, "failed") == 0)
            t->state = SB_TASK_FAILED;
        else if (strcmp(state, "cancelled") == 0)
            t->state = SB_TASK_CANCELLED;
        else if (strcmp(state, "running") == 0)
            t->state = SB_TASK_RUNNING;
        else {
            /* state points into doc: the message is made before doc goes */
            sb_error_set(err, path, "/state", "unknown state \"%s\" (running, done, failed, cancelled)", state);
            json_decref(doc);
            return SB_ERR;
        }
        json_decref(doc);
    }
    return SB_OK;
}

/* Slurm's job states (squeue %T) that are not over yet. */
static int slurm_alive(const char *st, sb_task_state *as)
{
    static const char *const running[] = {"RUNNING", "COMPLETING", "CONFIGURING", "STAGE_OUT", "SIGNALING",
                                          "RESIZING"};
    static const char *const pending[] = {"PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "SUSPENDED",
                                          "STOPPED", "RESV_DEL_HOLD", "SPECIAL_EXIT"};
    for (size_t i = 0; i < sizeof running / sizeof *running; i++)
        if (strcmp(st, running[i]) == 0) {
            *as = SB_TASK_RUNNING;
            return 1;
        }
    for (size_t i = 0; i < sizeof pending / sizeof *pending; i++)
        if (strcmp(st, pending[i]) == 0) {
            *as = SB_TASK_PENDING;
            return 1;
        }
    return 0;
}

int sb_task_status_merge_squeue(const char *text, sb_task_status *out, size_t n, sb_error *err)
{
    unsigned char *listed = calloc(n ? n : 1, 1); /* alive in squeue */
    if (!listed)
        return sb_error_set(err, NULL, NULL, "out of memory");
    const char *p = text;
    size_t line_no = 0;
    /* Several submissions of one run (--only-missing) share its job name:
     * a live entry wins over an ended one. */
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line_no++;
        char line[256];
        if (len == 0 || len >= sizeof line) {
            if (len >= sizeof line) {
                free(listed);
                return sb_error_set(err, "squeue", NULL, "line %zu: longer than %zu characters", line_no,
                                    sizeof line - 1);
            }
            p += len + (eol ? 1 : 0);
            continue;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (eol ? 1 : 0);
        char *job = line, *bar1 = strchr(line, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
        if (!bar2) {
            free(listed);
            return sb_error_set(err, "squeue", NULL, "line %zu: \"%s\" is not ARRAY_JOB_ID|ARRAY_TASK_ID|STATE",
                                line_no, line);
        }
        *bar1 = *bar2 = '\0';
        char *task = bar1 + 1, *state = bar2 + 1, *end;
        errno = 0;
        unsigned long idx = strtoul(task, &end, 10);
        if (errno || end == task || *end)
            continue; /* "N/A" (not an array) or a range of tasks not split by --array */
        if (idx >= n)
            continue; /* not a case of this experiment */
        sb_task_status *t = &out[idx];
        if (t->state == SB_TASK_DONE)
            continue;
        sb_task_state alive;
        if (slurm_alive(state, &alive)) {
            listed[idx] = 1;
            if (t->state != SB_TASK_RUNNING || alive == SB_TASK_RUNNING) {
                t->state = alive;
                snprintf(t->detail, sizeof t->detail, "slurm job %s_%lu: %s", job, idx, state);
            }
        } else if (t->state == SB_TASK_NOT_STARTED) {
            t->state = strcmp(state, "CANCELLED") == 0 ? SB_TASK_CANCELLED : SB_TASK_FAILED;
            snprintf(t->detail, sizeof t->detail, "slurm job %s_%lu ended %s without a task record", job, idx, state);
        }
    }
    /* A record that says running with no live entry in squeue: the task
     * was killed without a word (or its node was lost). */
    for (size_t i = 0; i < n; i++)
        if (out[i].state == SB_TASK_RUNNING && !listed[i]) {
            out[i].state = SB_TASK_STOPPED;
            size_t l = strlen(out[i].detail);
            snprintf(out[i].detail + l, sizeof out[i].detail - l, "; its record says running, squeue no longer "
                                                                  "lists it");
        }
    free(listed);
    return SB_OK;
}

/* "0-2,5" (a Job's completedIndexes / failedIndexes) into mark[n]. */
static int mark_indexes(const char *s, unsigned char *mark, size_t n, const char *field, sb_error *err)
{
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (errno || end == p)
            return sb_error_set(err, "kubectl", field, "\"%s\" is not a list of indexes (0-2,5)", s);
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            b = strtoul(q, &end, 10);
            if (end == q || b < a)
                return sb_error_set(err, "kubectl", field, "\"%s\" is not a list of indexes (0-2,5)", s);
            p = end;
        }
        for (unsigned long i = a; i <= b && i < n; i++)
            mark[i] = 1;
        if (*p == ',')
            p++;
        else if (*p)
            return sb_error_set(err, "kubectl", field, "\"%s\" is not a list of indexes (0-2,5)", s);
    }
    return SB_OK;
}

static json_t *condition(json_t *job, const char *type)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(job, "status"), "conditions"), i, c)
        if (strcmp(str_at(c, "type"), type) == 0 && strcmp(str_at(c, "status"), "True") == 0)
            return c;
    return NULL;
}

int sb_task_status_from_k8s(const char *text, const char *job_name, sb_task_status *out, size_t n, sb_error *err)
{
    json_error_t je;
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return sb_error_set(err, "kubectl", NULL, "output is not JSON: line %d: %s", je.line, je.text);
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    json_t *items = json_object_get(doc, "items"), *job = NULL;
    if (kind && strcmp(kind, "Job") == 0) {
        job = doc;
    } else if (kind && strcmp(kind, "List") == 0 && json_is_array(items)) {
        size_t i;
        json_t *it;
        json_array_foreach(items, i, it)
            if (strcmp(str_at(json_object_get(it, "metadata"), "name"), job_name) == 0)
                job = it;
    } else {
        sb_error_set(err, "kubectl", NULL, "output is not a Job or a List of Jobs (kind %s)", kind ? kind : "missing");
        json_decref(doc);
        return SB_ERR;
    }
    for (size_t i = 0; i < n; i++) {
        out[i].state = SB_TASK_NOT_STARTED;
        snprintf(out[i].detail, sizeof out[i].detail, "no Job %s (never submitted, or deleted after "
                 "ttlSecondsAfterFinished)", job_name);
    }
    if (!job) {
        json_decref(doc);
        return SB_OK;
    }
    json_t *st = json_object_get(job, "status");
    unsigned char *completed = calloc(n ? n : 1, 1), *failed = calloc(n ? n : 1, 1);
    int rc = completed && failed ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
    const char *ci = json_string_value(json_object_get(st, "completedIndexes"));
    const char *fi = json_string_value(json_object_get(st, "failedIndexes"));
    if (rc == SB_OK && ci)
        rc = mark_indexes(ci, completed, n, "/status/completedIndexes", err);
    if (rc == SB_OK && fi)
        rc = mark_indexes(fi, failed, n, "/status/failedIndexes", err);
    json_t *fail_c = condition(job, "Failed"), *done_c = condition(job, "Complete"),
           *susp_c = condition(job, "Suspended");
    long long active = json_integer_value(json_object_get(st, "active"));
    long long ready = json_integer_value(json_object_get(st, "ready"));
    for (size_t i = 0; rc == SB_OK && i < n; i++) {
        sb_task_status *t = &out[i];
        if (completed[i]) {
            t->state = SB_TASK_DONE;
            snprintf(t->detail, sizeof t->detail, "Job %s: index %zu in completedIndexes", job_name, i);
        } else if (failed[i]) {
            t->state = SB_TASK_FAILED;
            snprintf(t->detail, sizeof t->detail, "Job %s: index %zu in failedIndexes", job_name, i);
        } else if (fail_c) {
            t->state = SB_TASK_FAILED;
            snprintf(t->detail, sizeof t->detail, "Job %s failed (%s: %.160s) before index %zu completed; `kubectl "
                     "get pods -l job-name=%s` shows which pod failed", job_name, str_at(fail_c, "reason"),
                     str_at(fail_c, "message"), i, job_name);
        } else if (done_c) {
            t->state = SB_TASK_FAILED;
            snprintf(t->detail, sizeof t->detail, "Job %s is complete without index %zu", job_name, i);
        } else if (susp_c) {
            t->state = SB_TASK_PENDING;
            snprintf(t->detail, sizeof t->detail, "Job %s suspended (%s): waiting for admission", job_name,
                     str_at(susp_c, "reason"));
        } else {
            t->state = active > 0 ? SB_TASK_RUNNING : SB_TASK_PENDING;
            snprintf(t->detail, sizeof t->detail, "Job %s: %lld pod%s active, %lld ready; index %zu not completed yet",
                     job_name, active, active == 1 ? "" : "s", ready, i);
        }
    }
    free(completed);
    free(failed);
    json_decref(doc);
    return rc;
}
