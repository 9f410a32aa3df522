/* task_status.c - task records, squeue and Kubernetes Job status. */
#include "task_status.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "isoweek.h"
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
    case SB_TASK_UNKNOWN: return "unknown";
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

/* A task record is a few hundred bytes; anything much larger is some
 * other file, refused before it is parsed. */
#define TASK_RECORD_MAX_BYTES 65536

static const char *const record_keys[] = {"schema", "experiment", "arch",  "run_id",      "cases",
                                          "index",  "case",       "engine", "job_id",     "host",
                                          "state",  "exit_status", "started_at", "finished_at"};

static int bad_field(sb_error *err, const char *path, const char *key, const char *what)
{
    char where[256] = "";
    sb_json_pointer_append(where, sizeof where, key);
    return sb_error_set(err, path, where, "%s", what);
}

/* A string field; NULL (with err filled) when it is not a string. */
static const char *string_field(json_t *doc, const char *key, const char *path, sb_error *err)
{
    const char *s = json_string_value(json_object_get(doc, key));
    if (!s)
        bad_field(err, path, key, "not a string");
    return s;
}

/* The names the task script writes for job and host: only A-Z a-z 0-9 . _ - */
static int plain_name(const char *s)
{
    size_t n = strlen(s);
    return n <= 128 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

/* An RFC 3339 time field, or null where null_ok. */
static int time_field(json_t *doc, const char *key, int null_ok, const char *path, long long *epoch, sb_error *err)
{
    json_t *v = json_object_get(doc, key);
    if (null_ok && json_is_null(v))
        return SB_OK;
    const char *s = json_string_value(v);
    if (!s || sb_rfc3339_parse(s, epoch) != 0)
        return bad_field(err, path, key, null_ok ? "not an RFC 3339 time or null" : "not an RFC 3339 time");
    return SB_OK;
}

/* Checks the parsed record doc at path strictly as solbook.fleet-task.v1,
 * as the task script writes it (every field, no other, each of its type,
 * the case it names at its index in its cases, the state's exit status
 * and end time), and fills t from it. */
static int check_record(json_t *doc, const char *path, sb_task_record *t, sb_error *err)
{
    const size_t n_keys = sizeof record_keys / sizeof *record_keys;
    if (!json_is_object(doc))
        return sb_error_set(err, path, NULL, "not a task record (a JSON object)");
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        size_t k = 0;
        while (k < n_keys && strcmp(key, record_keys[k]) != 0)
            k++;
        if (k == n_keys)
            return bad_field(err, path, key, "not a field of a task record (solbook.fleet-task.v1)");
    }
    for (size_t k = 0; k < n_keys; k++)
        if (!json_object_get(doc, record_keys[k]))
            return sb_error_set(err, path, NULL, "not a task record: no \"%s\"", record_keys[k]);
    const char *schema = string_field(doc, "schema", path, err);
    if (!schema)
        return SB_ERR;
    if (strcmp(schema, "solbook.fleet-task.v1") != 0)
        return bad_field(err, path, "schema", "not solbook.fleet-task.v1");
    if (!(t->experiment = string_field(doc, "experiment", path, err)) ||
        !(t->arch = string_field(doc, "arch", path, err)) || !(t->run_id = string_field(doc, "run_id", path, err)) ||
        !(t->case_id = string_field(doc, "case", path, err)))
        return SB_ERR;
    json_t *index = json_object_get(doc, "index"), *cases = json_object_get(doc, "cases");
    if (!json_is_integer(index) || json_integer_value(index) < 0)
        return bad_field(err, path, "index", "not a task index (a whole number from 0)");
    if (!json_is_array(cases))
        return bad_field(err, path, "cases", "not a list of case ids");
    size_t ci;
    json_array_foreach(cases, ci, v)
        if (!json_is_string(v))
            return bad_field(err, path, "cases", "not a list of case ids");
    t->index = (size_t)json_integer_value(index);
    t->n_cases = json_array_size(cases);
    json_t *listed = json_array_get(cases, t->index);
    if (!listed || strcmp(json_string_value(listed), t->case_id) != 0)
        return bad_field(err, path, "index", "not the index of its case in its cases");
    if (!(t->engine = string_field(doc, "engine", path, err)) || !(t->job_id = string_field(doc, "job_id", path, err)) ||
        !(t->host = string_field(doc, "host", path, err)))
        return SB_ERR;
    if (strcmp(t->engine, "slurm") != 0 && strcmp(t->engine, "kubernetes") != 0)
        return bad_field(err, path, "engine", "neither slurm nor kubernetes");
    if (!plain_name(t->job_id))
        return bad_field(err, path, "job_id", "not a job id (A-Z, a-z, 0-9, '.', '_', '-')");
    if (!plain_name(t->host))
        return bad_field(err, path, "host", "not a host name (A-Z, a-z, 0-9, '.', '_', '-')");
    const char *state = string_field(doc, "state", path, err);
    if (!state)
        return SB_ERR;
    static const struct {
        const char *name;
        sb_task_state state;
    } states[] = {{"running", SB_TASK_RUNNING}, {"done", SB_TASK_DONE}, {"failed", SB_TASK_FAILED},
                  {"cancelled", SB_TASK_CANCELLED}};
    size_t s = 0;
    while (s < sizeof states / sizeof *states && strcmp(state, states[s].name) != 0)
        s++;
    if (s == sizeof states / sizeof *states)
        return bad_field(err, path, "state", "not a task state (running, done, failed, cancelled)");
    int running = states[s].state == SB_TASK_RUNNING;
    json_t *status = json_object_get(doc, "exit_status");
    if (running ? !json_is_null(status)
                : !json_is_integer(status) || json_integer_value(status) < 0 || json_integer_value(status) > 255 ||
                      (json_integer_value(status) == 0) != (states[s].state == SB_TASK_DONE))
        return bad_field(err, path, "exit_status",
                         running ? "not null, as a running task's is"
                                 : "not the exit status of the state (0 for done, 1-255 for failed or cancelled)");
    long long started = 0, finished = 0;
    if (time_field(doc, "started_at", 0, path, &started, err) != SB_OK ||
        time_field(doc, "finished_at", 1, path, &finished, err) != SB_OK)
        return SB_ERR;
    if (running != json_is_null(json_object_get(doc, "finished_at")) || (!running && finished < started))
        return bad_field(err, path, "finished_at",
                         running ? "not null, as a running task's is" : "null or before started_at");
    t->started_at = json_string_value(json_object_get(doc, "started_at"));
    t->exit_status = running ? -1 : (int)json_integer_value(status);
    t->state = states[s].state;
    return SB_OK;
}

int sb_task_record_read(const char *path, sb_task_record *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    /* the task script writes a plain file: a link or a FIFO is some
     * other thing, never followed or read (nor waited on) */
    json_t *doc;
    if (sb_json_load_plain_file_max(path, TASK_RECORD_MAX_BYTES, &doc, err) != SB_OK)
        return SB_ERR;
    /* the strings stay in doc, which the record holds until freed */
    out->doc = doc;
    if (check_record(doc, path, out, err) != SB_OK) {
        sb_task_record_free(out);
        return SB_ERR;
    }
    return SB_OK;
}

const char *sb_task_record_case_at(const sb_task_record *t, size_t i)
{
    return json_string_value(json_array_get(json_object_get(t->doc, "cases"), i));
}

void sb_task_record_free(sb_task_record *t)
{
    json_decref(t->doc);
    memset(t, 0, sizeof *t);
}

/* Reads the record at path as the record of task i of run r into t. */
static int read_record(const char *path, const sb_task_records *r, size_t i, sb_task_status *t, sb_error *err)
{
    sb_task_record rec;
    if (sb_task_record_read(path, &rec, err) != SB_OK)
        return SB_ERR;
    const sb_experiment *e = r->exp;
    int rc = SB_OK;
    if (strcmp(rec.experiment, e->name) != 0 || strcmp(rec.arch, r->arch) != 0 || strcmp(rec.run_id, r->run_id) != 0)
        rc = sb_error_set(err, path, NULL, "a task record of another run (not run %s of %s on %s)", r->run_id,
                          e->name, r->arch);
    else if (rec.index != i || strcmp(rec.case_id, e->cases[i].id) != 0)
        rc = sb_error_set(err, path, NULL, "not the task record of case %zu (%s): index or case differ", i,
                          e->cases[i].id);
    if (rc == SB_OK) {
        char exit_text[48] = "";
        if (rec.state != SB_TASK_RUNNING)
            snprintf(exit_text, sizeof exit_text, ", exit status %d", rec.exit_status);
        snprintf(t->detail, sizeof t->detail, "%s job %s, host %s, started %s%s", rec.engine, rec.job_id, rec.host,
                 rec.started_at, exit_text);
        t->state = rec.state;
    }
    sb_task_record_free(&rec);
    return rc;
}

int sb_task_status_from_records(sb_task_records *r, sb_task_status *out, sb_error *err)
{
    const sb_experiment *e = r->exp;
    r->valid = r->refused = 0;
    for (size_t i = 0; i < e->n_cases; i++) {
        sb_task_status *t = &out[i];
        t->state = SB_TASK_NOT_STARTED;
        snprintf(t->detail, sizeof t->detail, "no task record");
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s/%s", r->run_dir, e->cases[i].id, SB_TASK_RECORD_FILE) >=
            sizeof path)
            return sb_error_set(err, r->run_dir, NULL, "path too long");
        struct stat st;
        if (lstat(path, &st) != 0 && errno == ENOENT)
            continue;
        sb_error bad;
        sb_error_clear(&bad);
        if (read_record(path, r, i, t, &bad) == SB_OK) {
            r->valid++;
            continue;
        }
        /* the task's state is not known from a record that is not its own */
        r->refused++;
        t->state = SB_TASK_UNKNOWN;
        snprintf(t->detail, sizeof t->detail, "its task record is refused");
        if (r->on_refused)
            r->on_refused(r->ctx, &bad);
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

/* A decimal index at *p below n, digits only: strtoul would take a sign
 * ("-1" is ULONG_MAX) and spaces, and give ULONG_MAX for one too large,
 * which would mark every task. 1 and *p past it; 0 when there is none or
 * it is n or more. */
static int index_at(const char **p, size_t n, size_t *out)
{
    const char *q = *p;
    size_t v = 0;
    if (*q < '0' || *q > '9')
        return 0;
    for (; *q >= '0' && *q <= '9'; q++) {
        v = v * 10 + (size_t)(*q - '0');
        if (v >= n)
            return 0;
    }
    *out = v;
    *p = q;
    return 1;
}

/* "0-2,5" (a Job's completedIndexes / failedIndexes) into mark[n]; an
 * index outside the n tasks is not this Job's and refuses the whole. */
static int mark_indexes(const char *s, unsigned char *mark, size_t n, const char *field, sb_error *err)
{
    const char *p = s;
    while (*p) {
        size_t a, b;
        if (!index_at(&p, n, &a))
            return sb_error_set(err, "kubectl", field,
                                "\"%s\" is not a list of indexes (0-2,5) of the Job's %zu tasks", s, n);
        b = a;
        if (*p == '-') {
            p++;
            if (!index_at(&p, n, &b) || b < a)
                return sb_error_set(err, "kubectl", field,
                                    "\"%s\" is not a list of indexes (0-2,5) of the Job's %zu tasks", s, n);
        }
        for (size_t i = a; i <= b; i++)
            mark[i] = 1;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return sb_error_set(err, "kubectl", field,
                                "\"%s\" is not a list of indexes (0-2,5) of the Job's %zu tasks", s, n);
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
