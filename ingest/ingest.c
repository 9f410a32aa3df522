/* ingest.c - validated, all-or-nothing storage of solbook documents.
 *
 * A document is prepared first (ingest_prepared.h: no database), then
 * stored here in its own transaction or inside the open batch. */
#include "ingest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest_prepared.h"
#include "json_fast.h"
#include "json_file.h"
#include "json_schema.h"
#include "ncu_csv.h"
#include "nsys_csv.h"
#include "run_store.h"
#include "store.h"

struct sb_ingest {
    sb_db *db;
    sb_run_store *rs;
    sb_schema_set *schemas;
    int in_batch;
    size_t sidecar_rows;     /* rows its sidecars stored so far */
    size_t sidecar_rows_max; /* the bound on them */
    time_t now_sec;      /* the second now_text spells */
    char now_text[32];
};

sb_db *sb_ingest_db(sb_ingest *ing)
{
    return ing->db;
}

const sb_schema_set *sb_ingest_schemas(const sb_ingest *ing)
{
    return ing->schemas;
}

sb_run_store *sb_ingest_run_store(sb_ingest *ing)
{
    return ing->rs;
}

void sb_ingest_close(sb_ingest *ing)
{
    if (!ing)
        return;
    if (ing->in_batch)
        sb_ingest_rollback(ing);
    sb_run_store_close(ing->rs);
    sb_db_close(ing->db);
    sb_schema_set_free(ing->schemas);
    free(ing);
}

int sb_ingest_open(const char *db_path, const char *schemas_dir, sb_ingest **out, sb_error *err)
{
    *out = NULL;
    sb_ingest *ing = calloc(1, sizeof *ing);
    if (!ing)
        return sb_error_set(err, db_path, NULL, "out of memory");
    ing->now_sec = (time_t)-1;
    ing->sidecar_rows_max = SB_INGEST_SIDECAR_ROWS_TOTAL;
    if (sb_schema_set_load(schemas_dir, &ing->schemas, err) != SB_OK)
        goto fail;
    if (sb_db_open(db_path, SB_DB_WRITE, &ing->db, err) != SB_OK)
        goto fail;
    if (sb_run_store_open(ing->db, &ing->rs, err) != SB_OK)
        goto fail;
    *out = ing;
    return SB_OK;
fail:
    sb_ingest_close(ing);
    return SB_ERR;
}

void sb_ingest_set_sidecar_rows_total(sb_ingest *ing, size_t max_rows)
{
    ing->sidecar_rows_max = max_rows ? max_rows : SB_INGEST_SIDECAR_ROWS_TOTAL;
}

/* ---- transactions ---- */

int sb_ingest_begin(sb_ingest *ing, sb_error *err)
{
    if (ing->in_batch)
        return sb_error_set(err, sb_db_path(ing->db), NULL, "a batch is already open");
    if (sb_db_begin(ing->db, err) != SB_OK)
        return SB_ERR;
    ing->in_batch = 1;
    return SB_OK;
}

int sb_ingest_commit(sb_ingest *ing, sb_error *err)
{
    if (!ing->in_batch)
        return sb_error_set(err, sb_db_path(ing->db), NULL, "no batch is open");
    ing->in_batch = 0;
    return sb_db_commit(ing->db, err);
}

int sb_ingest_in_batch(const sb_ingest *ing)
{
    return ing->in_batch;
}

void sb_ingest_rollback(sb_ingest *ing)
{
    ing->in_batch = 0;
    sb_db_rollback(ing->db);
}

/* One unit of work: its own transaction, or a savepoint inside a batch.
 * (A run needs no savepoint: sb_run_store_insert undoes itself.) */
static int unit_begin(sb_ingest *ing, sb_error *err)
{
    if (!ing->in_batch)
        return sb_db_begin(ing->db, err);
    return sb_run_store_savepoint(ing->rs, err);
}

static int unit_end(sb_ingest *ing, int ok, sb_error *err)
{
    if (!ing->in_batch) {
        if (ok)
            return sb_db_commit(ing->db, err);
        sb_db_rollback(ing->db);
        return SB_ERR;
    }
    if (!ok) {
        sb_run_store_rollback_savepoint(ing->rs);
        return SB_ERR;
    }
    return sb_run_store_release(ing->rs, err);
}

/* "YYYY-MM-DDTHH:MM:SSZ" of now, formatted once a second. */
static const char *utc_now(sb_ingest *ing)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != ing->now_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        strftime(ing->now_text, sizeof ing->now_text, "%Y-%m-%dT%H:%M:%SZ", &tm);
        ing->now_sec = ts.tv_sec;
    }
    return ing->now_text;
}

int sb_ingest_store_prepared(sb_ingest *ing, const sb_ingest_prepared *p, const char *source,
                             const char *source_format, long long *run_id, int *duplicate,
                             sb_error *err)
{
    *run_id = 0;
    *duplicate = 0;
    if (!ing->in_batch && sb_db_begin(ing->db, err) != SB_OK) {
        sb_error_set_file(err, source);
        return SB_ERR;
    }
    int ok = 0;
    long long id;
    if (sb_run_store_find(ing->rs, p->sha256, &id, err) != SB_OK) {
        snprintf(err->file, sizeof err->file, "%s", source);
        goto end;
    }
    if (id) {
        *run_id = id;
        *duplicate = 1;
        ok = 1;
        goto end;
    }
    sb_run_record rec = p->rec;
    rec.run.source_path = source;
    rec.run.source_format = source_format ? source_format : "solbook";
    rec.run.ingested_at = utc_now(ing);
    if (sb_run_store_insert(ing->rs, &rec, &id, err) != SB_OK)
        goto end;
    *run_id = id;
    ok = 1;
end:
    if (!ing->in_batch) {
        if (!ok)
            sb_db_rollback(ing->db);
        else if (sb_db_commit(ing->db, err) != SB_OK) {
            sb_error_set_file(err, source);
            ok = 0;
        }
    }
    if (!ok) {
        *run_id = 0;
        *duplicate = 0;
        return SB_ERR;
    }
    return SB_OK;
}

int sb_ingest_document(sb_ingest *ing, json_t *doc, const char *source,
                       const char *source_format, long long *run_id,
                       int *duplicate, sb_error *err)
{
    long long dummy_id;
    int dummy_dup;
    if (!run_id)
        run_id = &dummy_id;
    if (!duplicate)
        duplicate = &dummy_dup;
    *run_id = 0;
    *duplicate = 0;
    sb_ingest_prepared p;
    if (sb_ingest_prepare(ing->schemas, doc, source, &p, err) != SB_OK)
        return SB_ERR;
    int rc = sb_ingest_store_prepared(ing, &p, source, source_format, run_id, duplicate, err);
    sb_ingest_prepared_free(&p);
    return rc;
}

int sb_ingest_file(sb_ingest *ing, const char *path, long long *run_id, int *duplicate, sb_error *err)
{
    json_t *doc;
    if (run_id)
        *run_id = 0;
    if (duplicate)
        *duplicate = 0;
    if (sb_json_fast_load_file(path, &doc, err) != SB_OK)
        return SB_ERR;
    int rc = sb_ingest_document(ing, doc, path, "solbook", run_id, duplicate, err);
    json_decref(doc);
    return rc;
}

/* A sidecar being stored as it is read: the run it goes to, its name (in
 * rows and errors) and the rows stored so far. */
typedef struct sidecar_sink {
    sb_ingest *ing;
    long long run_id;
    const char *name;
    long rows;
    size_t max_rows;
} sidecar_sink;

/* The bytes of a sidecar do not bound its rows (short cells hold millions
 * of values in a few MiB), so the rows are counted as they go in and the
 * one past the bound refuses the sidecar, every row before it taken back
 * with the savepoint. The rows of every sidecar of the ingest are counted
 * too: an archive of k sidecars, each within the bound, would store k
 * times it. */
static int sidecar_rows_bound(const sidecar_sink *k, int nsys, sb_error *err)
{
    const char *what = nsys ? "Nsight Systems" : "Nsight Compute";
    if ((size_t)k->rows >= k->max_rows)
        return sb_error_set(err, k->name, NULL, "%s sidecar holds more than %zu %s (--max-sidecar-rows %zu)",
                            what, k->max_rows, nsys ? "kernels" : "metric values", k->max_rows);
    size_t max = k->ing->sidecar_rows_max, done = k->ing->sidecar_rows;
    if (done >= max || (size_t)k->rows >= max - done)
        return sb_error_set(err, k->name, NULL,
                            "%s sidecar: this ingest's sidecars would store more than %zu rows "
                            "(--max-sidecar-rows-total %zu)",
                            what, max, max);
    return SB_OK;
}

static int store_profile_row(void *ctx, const sb_ncu_row *row, sb_error *err)
{
    sidecar_sink *k = ctx;
    for (size_t i = 0; i < row->n_values; i++) {
        const sb_ncu_value *v = &row->values[i];
        if (sidecar_rows_bound(k, 0, err) != SB_OK)
            return SB_ERR;
        const char *unit = row->metric_units[v->metric];
        sb_profiler_metric_row m = {(long long)row->kernel, row->kernel_name, row->metric_names[v->metric],
                                    unit[0] ? unit : NULL, v->value};
        if (sb_run_store_profile_row(k->ing->rs, k->run_id, k->name, &m, err) != SB_OK)
            return SB_ERR;
        k->rows++;
    }
    return SB_OK;
}

static int store_summary_row(void *ctx, size_t index, const sb_kernel_summary_row *row, sb_error *err)
{
    sidecar_sink *k = ctx;
    if (sidecar_rows_bound(k, 1, err) != SB_OK)
        return SB_ERR;
    if (sb_run_store_kernel_summary_row(k->ing->rs, k->run_id, "nsys", k->name, index, row, err) != SB_OK)
        return SB_ERR;
    k->rows++;
    return SB_OK;
}

/* Stores the CSV text of a sidecar (nsys: a kernel summary, else an ncu
 * profile) under one savepoint, row by row as it is read: a failure at
 * any row, or a row past max_rows (0: the default), takes back every row
 * before it. */
static int attach_text(sb_ingest *ing, long long run_id, int nsys, const char *csv, size_t len, const char *name,
                       size_t max_rows, long *rows, sb_error *err)
{
    if (rows)
        *rows = 0;
    if (unit_begin(ing, err) != SB_OK) {
        sb_error_set_file(err, name);
        return SB_ERR;
    }
    sidecar_sink k = {ing, run_id, name, 0, max_rows ? max_rows : SB_INGEST_SIDECAR_ROWS};
    int ok = nsys ? sb_run_store_kernel_summary_begin(ing->rs, run_id, name, err) == SB_OK &&
                        sb_nsys_csv_each(csv, len, name, store_summary_row, &k, err) == SB_OK
                  : sb_run_store_profile_begin(ing->rs, run_id, name, err) == SB_OK &&
                        sb_ncu_csv_each(csv, len, name, store_profile_row, &k, err) == SB_OK &&
                        sb_run_store_profile_end(ing->rs, run_id, name, err) == SB_OK;
    if (unit_end(ing, ok, err) != SB_OK) {
        if (ok)
            sb_error_set_file(err, name);
        ok = 0;
    }
    if (ok)
        ing->sidecar_rows += (size_t)k.rows;
    if (rows && ok)
        *rows = k.rows;
    return ok ? SB_OK : SB_ERR;
}

/* The sidecar file at path, read whole within max_bytes (0: the default)
 * and stored as attach_text stores it. */
static int attach_file(sb_ingest *ing, long long run_id, int nsys, const char *path, size_t max_bytes,
                       size_t max_rows, long *rows, sb_error *err)
{
    if (rows)
        *rows = 0;
    size_t max = max_bytes ? max_bytes : SB_INGEST_SIDECAR_BYTES, cap = 0, len = 0;
    char *buf = NULL;
    /* at most max + 1 bytes are read, however the file grows */
    if (sb_file_read_into_max(path, max, &buf, &cap, &len, err) != SB_OK) {
        free(buf);
        return SB_ERR;
    }
    int rc = len > max ? sb_ingest_sidecar_too_large(err, path, nsys, max)
                       : attach_text(ing, run_id, nsys, buf, len, path, max_rows, rows, err);
    free(buf);
    return rc;
}

int sb_ingest_sidecar_too_large(sb_error *err, const char *name, int nsys, size_t max)
{
    return sb_error_set(err, name, NULL, "%s sidecar more than %zu bytes (%zu MiB): refused",
                        nsys ? "Nsight Systems" : "Nsight Compute", max, max >> 20);
}

int sb_ingest_attach_ncu(sb_ingest *ing, long long run_id, const char *csv_path, size_t max_bytes,
                         size_t max_rows, long *rows, sb_error *err)
{
    return attach_file(ing, run_id, 0, csv_path, max_bytes, max_rows, rows, err);
}

int sb_ingest_attach_ncu_buffer(sb_ingest *ing, long long run_id, const char *csv, size_t len,
                                const char *name, size_t max_rows, long *rows, sb_error *err)
{
    return attach_text(ing, run_id, 0, csv, len, name, max_rows, rows, err);
}

int sb_ingest_attach_nsys(sb_ingest *ing, long long run_id, const char *csv_path, size_t max_bytes,
                          size_t max_rows, long *rows, sb_error *err)
{
    return attach_file(ing, run_id, 1, csv_path, max_bytes, max_rows, rows, err);
}

int sb_ingest_attach_nsys_buffer(sb_ingest *ing, long long run_id, const char *csv, size_t len,
                                 const char *name, size_t max_rows, long *rows, sb_error *err)
{
    return attach_text(ing, run_id, 1, csv, len, name, max_rows, rows, err);
}
