/* run_store.c - the statements that write runs, prepared once a connection. */
#include "run_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connection.h"
#include "content_key.h"
#include "sample_blob.h"

enum {
    ST_FIND_SHA,
    ST_RUN,
    ST_PROVENANCE,
    ST_CONFIG,
    ST_METRICS,
    ST_CORRECTNESS,
    ST_CEILING,
    ST_TRAINING,
    ST_SAMPLES,
    ST_RUN_EXISTS,
    ST_PROF_DELETE,
    ST_PROF_MARK,
    ST_PROF_RG_CHANGED,
    ST_PROF_INSERT,
    ST_KSUM_DELETE,
    ST_KSUM_INSERT,
    ST_IMPORT_TIMES,
    ST_LAST_ID,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    /* Undoing a run that could not be written whole, children first. */
    ST_UNDO_SAMPLES,
    ST_UNDO_PROVENANCE,
    ST_UNDO_CONFIG,
    ST_UNDO_METRICS,
    ST_UNDO_CORRECTNESS,
    ST_UNDO_TRAINING,
    ST_UNDO_CEILINGS,
    ST_UNDO_RUN,
    ST_COUNT
};

static const char *const SQL[ST_COUNT] = {
    /* the small key through its index, then the whole digest: two
     * digests may share a key (db/content_key.h) */
    [ST_FIND_SHA] = "SELECT id FROM runs WHERE content_key = ?2 AND content_sha256 = ?1",
    [ST_RUN] = "INSERT INTO runs (content_sha256, schema, run_uuid, status, reason, source_path, "
               "source_format, ingested_at, notes, raw_json, samples_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [ST_PROVENANCE] =
        "INSERT INTO provenance (run_id, git_sha, git_dirty, tool_name, tool_version, hostname, os, "
        "cpu, driver_version, cuda_runtime_version, cublas_version, device_kind, device_index, "
        "gpu_name, arch, sku, compute_capability, sm_count, memory_bytes, pci_device_id, "
        "board_part_number, sm_clock_mhz, mem_clock_mhz, power_limit_w, ecc, mig, started_at, "
        "finished_at, packages_json, scheduler, scheduler_job_id, scheduler_array_task_id, "
        "git_branch) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_CONFIG] = "INSERT INTO configs (run_id, suite, op, mode, provider, backend, dtype, shape_key, "
                  "shape_json, params_json, case_key, timer, warmup_iters, warmup_ms, iters, "
                  "repeats, l2, input_sets, graph, profiler) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_METRICS] =
        "INSERT INTO metrics (run_id, sample_count, quantiles_only, min_ms, p20_ms, median_ms, "
        "p80_ms, max_ms, mean_ms, stdev_ms, rel_noise, repeat_spread, flops, bytes, tflops, gbps, "
        "bound, pct_datasheet_peak, datasheet_peak_name, pct_measured_ceiling, "
        "measured_ceiling_name, peak_device_bytes, kernel_median_ms, kernel_p20_ms, kernel_p80_ms, "
        "kernel_sample_count, kernel_method) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_CORRECTNESS] =
        "INSERT INTO correctness (run_id, reference, checked_elements, max_abs_err, max_rel_err, "
        "rel_l2_err, atol, rtol, unwritten, finite, passed, output_checksum, bitwise_repeatable, "
        "batch_invariant) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_CEILING] = "INSERT INTO ceilings (run_id, name, unit, value) VALUES (?,?,?,?)",
    [ST_TRAINING] = "INSERT INTO training (run_id, model_name, seq_len, micro_batch_size, dtype, "
                    "world_size, strategy, patch_name, patch_kernels_json, tokens_per_s, "
                    "median_step_ms, peak_device_bytes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_SAMPLES] = "INSERT INTO run_samples (run_id, rep_lengths, value_ms) VALUES (?,?,?)",
    [ST_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?",
    [ST_PROF_DELETE] = "DELETE FROM profiler_metrics WHERE run_id = ?",
    [ST_PROF_MARK] = "UPDATE configs SET profiler = 'ncu' WHERE run_id = ?1 AND profiler IS NULL AND "
                     "(SELECT sample_count FROM metrics WHERE run_id = ?1) <= "
                     "(SELECT count(DISTINCT kernel_index) FROM profiler_metrics WHERE run_id = ?1)",
    /* A run the stored regression steps were computed with (id up to their
     * basis's last run) leaves every series when it turns profiled, which
     * neither the number nor the greatest id of the runs shows: counted as
     * a change, so the next report walks every series again (migration
     * 015, rg_changes). */
    [ST_PROF_RG_CHANGED] = "UPDATE rg_changes SET n = n + 1 WHERE id = 1 AND "
                           "?1 <= (SELECT coalesce(max(last_run), 0) FROM rg_basis)",
    [ST_PROF_INSERT] = "INSERT INTO profiler_metrics (run_id, kernel_index, kernel_name, metric, "
                       "unit, value, source_path) VALUES (?,?,?,?,?,?,?)",
    [ST_KSUM_DELETE] = "DELETE FROM kernel_summaries WHERE run_id = ?",
    [ST_KSUM_INSERT] = "INSERT INTO kernel_summaries (run_id, kernel_index, kernel_name, tool, time_pct, "
                       "total_ms, instances, avg_ms, med_ms, min_ms, max_ms, stddev_ms, source_path) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_IMPORT_TIMES] = "SELECT DISTINCT json_extract(raw_json, '$.provenance.started_at'), "
                        "json_extract(raw_json, '$.provenance.finished_at') FROM runs WHERE source_format = ?1 "
                        "AND id <= ?3 AND json_extract(raw_json, '$.source.file') = ?2",
    [ST_LAST_ID] = "SELECT coalesce(max(id), 0) FROM runs",
    [ST_SAVEPOINT] = "SAVEPOINT sb_unit",
    [ST_RELEASE] = "RELEASE sb_unit",
    [ST_ROLLBACK_TO] = "ROLLBACK TO sb_unit",
    [ST_UNDO_SAMPLES] = "DELETE FROM run_samples WHERE run_id = ?",
    [ST_UNDO_PROVENANCE] = "DELETE FROM provenance WHERE run_id = ?",
    [ST_UNDO_CONFIG] = "DELETE FROM configs WHERE run_id = ?",
    [ST_UNDO_METRICS] = "DELETE FROM metrics WHERE run_id = ?",
    [ST_UNDO_CORRECTNESS] = "DELETE FROM correctness WHERE run_id = ?",
    [ST_UNDO_TRAINING] = "DELETE FROM training WHERE run_id = ?",
    [ST_UNDO_CEILINGS] = "DELETE FROM ceilings WHERE run_id = ?",
    [ST_UNDO_RUN] = "DELETE FROM runs WHERE id = ?",
};

struct sb_run_store {
    sb_db *db;
    sqlite3 *conn;
    sqlite3_stmt *st[ST_COUNT];
    unsigned char *blob;   /* the samples being stored, packed */
    size_t blob_cap;
};

void sb_run_store_close(sb_run_store *rs)
{
    if (!rs)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(rs->st[i]);
    free(rs->blob);
    free(rs);
}

int sb_run_store_open(sb_db *db, sb_run_store **out, sb_error *err)
{
    *out = NULL;
    sb_run_store *rs = calloc(1, sizeof *rs);
    if (!rs)
        return sb_error_set(err, sb_db_path(db), NULL, "out of memory");
    rs->db = db;
    rs->conn = sb_db_handle(db);
    /* Bulk loading: checkpoint (and fsync) the WAL every 64 MiB rather
     * than every 1000 pages, with a larger page cache. Durability is
     * unchanged: WAL with synchronous=NORMAL keeps every committed run
     * across a crash of the program. Statement and savepoint journals (the
     * pages a run changed, kept to undo it alone) stay in memory instead of
     * spilling to a temporary file past 64 KiB: they only ever serve a
     * rollback inside the open transaction. */
    int page = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(rs->conn, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA wal_autocheckpoint = %d; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY",
             page > 0 ? (64 << 20) / page : 4096);
    if (sb_db_exec(db, pragmas, err) != SB_OK) {
        free(rs);
        return SB_ERR;
    }
    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(rs->conn, SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &rs->st[i], NULL) !=
            SQLITE_OK) {
            sb_db_fail(db, err, "cannot prepare a statement");
            sb_run_store_close(rs);
            return SB_ERR;
        }
    }
    *out = rs;
    return SB_OK;
}

/* ---- binding ---- */

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static void bind_int(sqlite3_stmt *st, int i, sb_opt_int v)
{
    if (v.set)
        sqlite3_bind_int64(st, i, v.value);
    else
        sqlite3_bind_null(st, i);
}

static const char *table_of(int which)
{
    switch (which) {
    case ST_RUN: return "runs";
    case ST_PROVENANCE: return "provenance";
    case ST_CONFIG: return "configs";
    case ST_METRICS: return "metrics";
    case ST_CORRECTNESS: return "correctness";
    case ST_CEILING: return "ceilings";
    case ST_TRAINING: return "training";
    case ST_PROF_INSERT:
    case ST_PROF_DELETE: return "profiler_metrics";
    case ST_PROF_MARK: return "configs";
    case ST_PROF_RG_CHANGED: return "rg_changes";
    case ST_KSUM_INSERT:
    case ST_KSUM_DELETE: return "kernel_summaries";
    case ST_SAMPLES: return "run_samples";
    default: return "the database";
    }
}

/* Steps a statement that returns no rows and resets it (bindings kept:
 * every statement binds all of its parameters before each step). */
static int step(sb_run_store *rs, int which, const char *file, sb_error *err)
{
    int rc = sqlite3_step(rs->st[which]);
    sqlite3_reset(rs->st[which]);
    if (rc != SQLITE_DONE)
        return sb_error_set(err, file, NULL, "cannot store into %s (database %s): %s", table_of(which),
                            sb_db_path(rs->db), sqlite3_errmsg(rs->conn));
    return SB_OK;
}

static int query_failed(sb_run_store *rs, const char *file, sb_error *err)
{
    return sb_error_set(err, file, NULL, "cannot query the database %s: %s", sb_db_path(rs->db),
                        sqlite3_errmsg(rs->conn));
}

/* ---- finding ---- */

int sb_run_store_find(sb_run_store *rs, const char *sha256, long long *run_id, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_FIND_SHA];
    *run_id = 0;
    sqlite3_bind_text(st, 1, sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, sb_content_key(sha256));
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *run_id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return query_failed(rs, sb_db_path(rs->db), err);
    return SB_OK;
}

int sb_run_store_last_id(sb_run_store *rs, long long *id, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_LAST_ID];
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return query_failed(rs, sb_db_path(rs->db), err);
    return SB_OK;
}

int sb_run_store_import_times(sb_run_store *rs, const char *source_format, const char *file, long long max_id,
                              int (*fn)(void *ctx, const char *started_at, const char *finished_at), void *ctx,
                              sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_IMPORT_TIMES];
    sqlite3_bind_text(st, 1, source_format, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, file, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, max_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *a = (const char *)sqlite3_column_text(st, 0), *b = (const char *)sqlite3_column_text(st, 1);
        if (a && b && fn(ctx, a, b) != 0) {
            sqlite3_reset(st);
            return sb_error_set(err, sb_db_path(rs->db), NULL, "out of memory");
        }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return query_failed(rs, sb_db_path(rs->db), err);
    return SB_OK;
}

/* ---- writing a run ---- */

/* One row: the repeat lengths as JSON and every value packed
 * (db/sample_blob.h). A run that gave no values has no row. */
static int store_samples(sb_run_store *rs, long long id, const sb_run_record *r, sb_error *err)
{
    const char *file = r->run.source_path;
    size_t total = 0;
    for (size_t k = 0; k < r->n_reps; k++)
        total += r->rep_len[k];
    if (!total)
        return SB_OK;
    size_t bytes = SB_SAMPLE_BLOB_BYTES(total);
    /* Each length takes at most 20 digits and a comma. */
    size_t text = 3 + 21 * r->n_reps;
    if (bytes + text > rs->blob_cap) {
        unsigned char *b = realloc(rs->blob, bytes + text);
        if (!b)
            return sb_error_set(err, file, NULL, "out of memory");
        rs->blob = b;
        rs->blob_cap = bytes + text;
    }
    char *lengths = (char *)rs->blob + bytes;
    int n = sb_sample_blob_rep_lengths(r->rep_len, r->n_reps, lengths, text);
    if (n < 0)
        return sb_error_set(err, file, NULL, "cannot write the repeat lengths");
    sb_sample_blob_encode(r->samples, total, rs->blob);
    sqlite3_stmt *st = rs->st[ST_SAMPLES];
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, lengths, n, SQLITE_STATIC);
    sqlite3_bind_blob64(st, 3, rs->blob, bytes, SQLITE_STATIC);
    return step(rs, ST_SAMPLES, file, err);
}

static int store_run(sb_run_store *rs, const sb_run_row *r, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_RUN];
    int i = 1;
    bind_text(st, i++, r->content_sha256);
    bind_text(st, i++, r->schema);
    bind_text(st, i++, r->run_uuid);
    bind_text(st, i++, r->status);
    bind_text(st, i++, r->reason);
    bind_text(st, i++, r->source_path);
    bind_text(st, i++, r->source_format);
    bind_text(st, i++, r->ingested_at);
    bind_text(st, i++, r->notes);
    sqlite3_bind_text(st, i++, r->raw_json, (int)r->raw_json_len, SQLITE_STATIC);
    bind_int(st, i++, r->samples_at);
    return step(rs, ST_RUN, r->source_path, err);
}

static int store_provenance(sb_run_store *rs, long long id, const sb_provenance_row *p,
                            const char *file, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_PROVENANCE];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_text(st, i++, p->git_sha);
    bind_int(st, i++, p->git_dirty);
    bind_text(st, i++, p->tool_name);
    bind_text(st, i++, p->tool_version);
    bind_text(st, i++, p->hostname);
    bind_text(st, i++, p->os);
    bind_text(st, i++, p->cpu);
    bind_text(st, i++, p->driver_version);
    bind_text(st, i++, p->cuda_runtime_version);
    bind_text(st, i++, p->cublas_version);
    bind_text(st, i++, p->device_kind);
    bind_int(st, i++, p->device_index);
    bind_text(st, i++, p->gpu_name);
    bind_text(st, i++, p->arch);
    bind_text(st, i++, p->sku);
    bind_text(st, i++, p->compute_capability);
    bind_int(st, i++, p->sm_count);
    bind_int(st, i++, p->memory_bytes);
    bind_text(st, i++, p->pci_device_id);
    bind_text(st, i++, p->board_part_number);
    bind_int(st, i++, p->sm_clock_mhz);
    bind_int(st, i++, p->mem_clock_mhz);
    sb_db_bind_real(st, i++, p->power_limit_w);
    bind_int(st, i++, p->ecc);
    bind_int(st, i++, p->mig);
    bind_text(st, i++, p->started_at);
    bind_text(st, i++, p->finished_at);
    bind_text(st, i++, p->packages_json);
    bind_text(st, i++, p->scheduler);
    bind_text(st, i++, p->scheduler_job_id);
    bind_int(st, i++, p->scheduler_array_task_id);
    bind_text(st, i++, p->git_branch);
    return step(rs, ST_PROVENANCE, file, err);
}

static int store_config(sb_run_store *rs, long long id, const sb_config_row *c, const char *file,
                        sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_CONFIG];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_text(st, i++, c->suite);
    bind_text(st, i++, c->op);
    bind_text(st, i++, c->mode);
    bind_text(st, i++, c->provider);
    bind_text(st, i++, c->backend);
    bind_text(st, i++, c->dtype);
    bind_text(st, i++, c->shape_key);
    bind_text(st, i++, c->shape_json);
    bind_text(st, i++, c->params_json);
    bind_text(st, i++, c->case_key);
    bind_text(st, i++, c->timer);
    bind_int(st, i++, c->warmup_iters);
    sb_db_bind_real(st, i++, c->warmup_ms);
    bind_int(st, i++, c->iters);
    bind_int(st, i++, c->repeats);
    bind_text(st, i++, c->l2);
    bind_int(st, i++, c->input_sets);
    bind_int(st, i++, c->graph);
    bind_text(st, i++, c->profiler);
    return step(rs, ST_CONFIG, file, err);
}

static int store_metrics(sb_run_store *rs, long long id, const sb_metrics_row *m, const char *file,
                         sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_METRICS];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_int(st, i++, m->sample_count);
    sqlite3_bind_int(st, i++, m->quantiles_only);
    sb_db_bind_real(st, i++, m->min_ms);
    sb_db_bind_real(st, i++, m->p20_ms);
    sb_db_bind_real(st, i++, m->median_ms);
    sb_db_bind_real(st, i++, m->p80_ms);
    sb_db_bind_real(st, i++, m->max_ms);
    sb_db_bind_real(st, i++, m->mean_ms);
    sb_db_bind_real(st, i++, m->stdev_ms);
    sb_db_bind_real(st, i++, m->rel_noise);
    sb_db_bind_real(st, i++, m->repeat_spread);
    sb_db_bind_real(st, i++, m->flops);
    sb_db_bind_real(st, i++, m->bytes);
    sb_db_bind_real(st, i++, m->tflops);
    sb_db_bind_real(st, i++, m->gbps);
    bind_text(st, i++, m->bound);
    sb_db_bind_real(st, i++, m->pct_datasheet_peak);
    bind_text(st, i++, m->datasheet_peak_name);
    sb_db_bind_real(st, i++, m->pct_measured_ceiling);
    bind_text(st, i++, m->measured_ceiling_name);
    bind_int(st, i++, m->peak_device_bytes);
    sb_db_bind_real(st, i++, m->kernel_median_ms);
    sb_db_bind_real(st, i++, m->kernel_p20_ms);
    sb_db_bind_real(st, i++, m->kernel_p80_ms);
    bind_int(st, i++, m->kernel_sample_count);
    bind_text(st, i++, m->kernel_method);
    return step(rs, ST_METRICS, file, err);
}

static int store_correctness(sb_run_store *rs, long long id, const sb_correctness_row *c,
                             const char *file, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_CORRECTNESS];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_text(st, i++, c->reference);
    bind_int(st, i++, c->checked_elements);
    sb_db_bind_real(st, i++, c->max_abs_err);
    sb_db_bind_real(st, i++, c->max_rel_err);
    sb_db_bind_real(st, i++, c->rel_l2_err);
    sb_db_bind_real(st, i++, c->atol);
    sb_db_bind_real(st, i++, c->rtol);
    bind_int(st, i++, c->unwritten);
    bind_int(st, i++, c->finite);
    bind_int(st, i++, c->passed);
    bind_text(st, i++, c->output_checksum);
    bind_int(st, i++, c->bitwise_repeatable);
    bind_int(st, i++, c->batch_invariant);
    return step(rs, ST_CORRECTNESS, file, err);
}

static int store_training(sb_run_store *rs, long long id, const sb_training_row *t,
                          const char *file, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_TRAINING];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_text(st, i++, t->model_name);
    bind_int(st, i++, t->seq_len);
    bind_int(st, i++, t->micro_batch_size);
    bind_text(st, i++, t->dtype);
    bind_int(st, i++, t->world_size);
    bind_text(st, i++, t->strategy);
    bind_text(st, i++, t->patch_name);
    bind_text(st, i++, t->patch_kernels_json);
    sb_db_bind_real(st, i++, t->tokens_per_s);
    sb_db_bind_real(st, i++, t->median_step_ms);
    bind_int(st, i++, t->peak_device_bytes);
    return step(rs, ST_TRAINING, file, err);
}

static int store_ceiling(sb_run_store *rs, long long id, const sb_ceiling_row *c, const char *file,
                         sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_CEILING];
    sqlite3_bind_int64(st, 1, id);
    bind_text(st, 2, c->name);
    bind_text(st, 3, c->unit);
    sb_db_bind_real(st, 4, c->value);
    return step(rs, ST_CEILING, file, err);
}

static int store_children(sb_run_store *rs, long long id, const sb_run_record *rec, sb_error *err);

/* Deletes what was written of run id. SQLite undoes a failed statement
 * itself, so this leaves the database as it was before the run. If even
 * that fails, the whole transaction is rolled back: a half-written run is
 * never left to be committed. */
static void undo_run(sb_run_store *rs, long long id, sb_error *err)
{
    if (sqlite3_get_autocommit(rs->conn))
        return; /* SQLite rolled the whole transaction back itself */
    for (int k = ST_UNDO_SAMPLES; k <= ST_UNDO_RUN; k++) {
        sqlite3_stmt *st = rs->st[k];
        sqlite3_bind_int64(st, 1, id);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            sb_db_rollback(rs->db);
            size_t n = strlen(err->msg);
            snprintf(err->msg + n, sizeof err->msg - n,
                     "; the transaction was rolled back, as the part stored could not be removed");
            return;
        }
    }
}

int sb_run_store_insert(sb_run_store *rs, const sb_run_record *rec, long long *run_id,
                        sb_error *err)
{
    const char *file = rec->run.source_path;
    *run_id = 0;
    if (sqlite3_get_autocommit(rs->conn))
        return sb_error_set(err, file, NULL, "cannot store into runs (database %s): no transaction is open",
                            sb_db_path(rs->db));
    if (store_run(rs, &rec->run, err) != SB_OK)
        return SB_ERR;
    long long id = sqlite3_last_insert_rowid(rs->conn);
    if (store_children(rs, id, rec, err) != SB_OK) {
        undo_run(rs, id, err);
        return SB_ERR;
    }
    *run_id = id;
    return SB_OK;
}

static int store_children(sb_run_store *rs, long long id, const sb_run_record *rec, sb_error *err)
{
    const char *file = rec->run.source_path;
    if (store_provenance(rs, id, &rec->provenance, file, err) != SB_OK)
        return SB_ERR;
    if (rec->config && store_config(rs, id, rec->config, file, err) != SB_OK)
        return SB_ERR;
    if (rec->training && store_training(rs, id, rec->training, file, err) != SB_OK)
        return SB_ERR;
    if (rec->n_reps && store_samples(rs, id, rec, err) != SB_OK)
        return SB_ERR;
    if (rec->metrics && store_metrics(rs, id, rec->metrics, file, err) != SB_OK)
        return SB_ERR;
    if (rec->correctness && store_correctness(rs, id, rec->correctness, file, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < rec->n_ceilings; i++)
        if (store_ceiling(rs, id, &rec->ceilings[i], file, err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

int sb_run_store_in_transaction(sb_run_store *rs)
{
    return !sqlite3_get_autocommit(rs->conn);
}

/* ---- profiles ---- */

/* SB_OK when run_id is stored; what names it says what it was for. */
static int run_exists(sb_run_store *rs, long long run_id, const char *source_path, const char *what,
                      sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_RUN_EXISTS];
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return sb_error_set(err, source_path, NULL, "no run %lld in %s to attach the %s to", run_id,
                            sb_db_path(rs->db), what);
    if (rc != SQLITE_ROW)
        return query_failed(rs, source_path, err);
    return SB_OK;
}

int sb_run_store_profile_begin(sb_run_store *rs, long long run_id, const char *source_path, sb_error *err)
{
    if (run_exists(rs, run_id, source_path, "profile", err) != SB_OK)
        return SB_ERR;
    sqlite3_bind_int64(rs->st[ST_PROF_DELETE], 1, run_id);
    return step(rs, ST_PROF_DELETE, source_path, err);
}

int sb_run_store_profile_row(sb_run_store *rs, long long run_id, const char *source_path,
                             const sb_profiler_metric_row *r, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_PROF_INSERT];
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, r->kernel_index);
    bind_text(st, 3, r->kernel_name);
    bind_text(st, 4, r->metric);
    bind_text(st, 5, r->unit);
    sqlite3_bind_double(st, 6, r->value);
    bind_text(st, 7, source_path);
    return step(rs, ST_PROF_INSERT, source_path, err);
}

int sb_run_store_profile_end(sb_run_store *rs, long long run_id, const char *source_path, sb_error *err)
{
    /* A profile with at least as many launches as the run has samples: every
     * timed launch ran under Nsight Compute (ncu_profile.sh writes
     * NAME.ncu.csv beside the NAME.json it ran so), so the run's timings are
     * the profiler's. A profile of a separate profiling run attached to a
     * timed run leaves it a timing. */
    sqlite3_bind_int64(rs->st[ST_PROF_MARK], 1, run_id);
    if (step(rs, ST_PROF_MARK, source_path, err) != SB_OK)
        return SB_ERR;
    if (sqlite3_changes(rs->conn) == 0)
        return SB_OK;
    sqlite3_bind_int64(rs->st[ST_PROF_RG_CHANGED], 1, run_id);
    return step(rs, ST_PROF_RG_CHANGED, source_path, err);
}

int sb_run_store_put_profile(sb_run_store *rs, long long run_id, const char *source_path,
                             const sb_profiler_metric_row *rows, size_t n_rows, sb_error *err)
{
    if (sb_run_store_profile_begin(rs, run_id, source_path, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < n_rows; i++)
        if (sb_run_store_profile_row(rs, run_id, source_path, &rows[i], err) != SB_OK)
            return SB_ERR;
    return sb_run_store_profile_end(rs, run_id, source_path, err);
}

static void bind_opt_double(sqlite3_stmt *st, int i, double v, int has)
{
    if (has)
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

int sb_run_store_kernel_summary_begin(sb_run_store *rs, long long run_id, const char *source_path,
                                      sb_error *err)
{
    if (run_exists(rs, run_id, source_path, "summary", err) != SB_OK)
        return SB_ERR;
    sqlite3_bind_int64(rs->st[ST_KSUM_DELETE], 1, run_id);
    return step(rs, ST_KSUM_DELETE, source_path, err);
}

int sb_run_store_kernel_summary_row(sb_run_store *rs, long long run_id, const char *tool, const char *source_path,
                                    size_t index, const sb_kernel_summary_row *r, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_KSUM_INSERT];
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (long long)index);
    bind_text(st, 3, r->kernel_name);
    bind_text(st, 4, tool);
    bind_opt_double(st, 5, r->time_pct, r->has_time_pct);
    sqlite3_bind_double(st, 6, r->total_ms);
    sqlite3_bind_int64(st, 7, r->instances);
    bind_opt_double(st, 8, r->avg_ms, r->has_avg);
    bind_opt_double(st, 9, r->med_ms, r->has_med);
    bind_opt_double(st, 10, r->min_ms, r->has_min);
    bind_opt_double(st, 11, r->max_ms, r->has_max);
    bind_opt_double(st, 12, r->stddev_ms, r->has_stddev);
    bind_text(st, 13, source_path);
    return step(rs, ST_KSUM_INSERT, source_path, err);
}

int sb_run_store_put_kernel_summary(sb_run_store *rs, long long run_id, const char *tool,
                                    const char *source_path, const sb_kernel_summary_row *rows,
                                    size_t n_rows, sb_error *err)
{
    if (sb_run_store_kernel_summary_begin(rs, run_id, source_path, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < n_rows; i++)
        if (sb_run_store_kernel_summary_row(rs, run_id, tool, source_path, i, &rows[i], err) != SB_OK)
            return SB_ERR;
    return SB_OK;
}

/* ---- savepoints ---- */

int sb_run_store_savepoint(sb_run_store *rs, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_SAVEPOINT];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return sb_db_fail(rs->db, err, "cannot start a savepoint");
    return SB_OK;
}

int sb_run_store_release(sb_run_store *rs, sb_error *err)
{
    sqlite3_stmt *st = rs->st[ST_RELEASE];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return sb_db_fail(rs->db, err, "cannot release a savepoint");
    return SB_OK;
}

void sb_run_store_rollback_savepoint(sb_run_store *rs)
{
    sqlite3_step(rs->st[ST_ROLLBACK_TO]);
    sqlite3_reset(rs->st[ST_ROLLBACK_TO]);
    sqlite3_step(rs->st[ST_RELEASE]);
    sqlite3_reset(rs->st[ST_RELEASE]);
}
