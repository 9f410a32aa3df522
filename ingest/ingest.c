/* ingest.c - validated, all-or-nothing storage of solbook documents. */
#include "ingest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_file.h"
#include "json_schema.h"
#include "ncu_csv.h"
#include "sha256.h"
#include "shape_key.h"
#include "ingest_prepared.h"
#include "store.h"

/* Samples go in SAMPLE_CHUNK rows per INSERT: far fewer statement steps for
 * the 250-sample files solbench writes. */
#define SAMPLE_CHUNK 50

enum {
    ST_FIND_SHA,
    ST_RUN,
    ST_PROVENANCE,
    ST_CONFIG,
    ST_SAMPLE,
    ST_SAMPLE_CHUNK,
    ST_METRICS,
    ST_CORRECTNESS,
    ST_CEILING,
    ST_TRAINING,
    ST_RUN_EXISTS,
    ST_PROF_DELETE,
    ST_PROF_MARK,
    ST_PROF_INSERT,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_COUNT
};

struct sb_ingest {
    sb_db *db;
    sb_schema_set *schemas;
    int in_batch;
    sqlite3_stmt *st[ST_COUNT];
};

static const char *const SQL[ST_COUNT] = {
    [ST_FIND_SHA] = "SELECT id FROM runs WHERE content_sha256 = ?",
    [ST_RUN] = "INSERT INTO runs (content_sha256, schema, run_uuid, status, reason, source_path, "
               "source_format, ingested_at, notes, raw_json) VALUES (?,?,?,?,?,?,?,?,?,?)",
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
    [ST_SAMPLE] = "INSERT INTO samples (run_id, rep, idx, value_ms) VALUES (?,?,?,?)",
    [ST_SAMPLE_CHUNK] = NULL, /* built at open: SAMPLE_CHUNK rows */
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
    [ST_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?",
    [ST_PROF_DELETE] = "DELETE FROM profiler_metrics WHERE run_id = ?",
    [ST_PROF_MARK] = "UPDATE configs SET profiler = coalesce(profiler, 'ncu') WHERE run_id = ?1 AND "
                     "(SELECT sample_count FROM metrics WHERE run_id = ?1) <= "
                     "(SELECT count(DISTINCT kernel_index) FROM profiler_metrics WHERE run_id = ?1)",
    [ST_PROF_INSERT] = "INSERT INTO profiler_metrics (run_id, kernel_index, kernel_name, metric, "
                       "unit, value, source_path) VALUES (?,?,?,?,?,?,?)",
    [ST_SAVEPOINT] = "SAVEPOINT sb_unit",
    [ST_RELEASE] = "RELEASE sb_unit",
};

sb_db *sb_ingest_db(sb_ingest *ing)
{
    return ing->db;
}

void sb_ingest_close(sb_ingest *ing)
{
    if (!ing)
        return;
    if (ing->in_batch)
        sb_ingest_rollback(ing);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(ing->st[i]);
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
    if (sb_schema_set_load(schemas_dir, &ing->schemas, err) != SB_OK)
        goto fail;
    if (sb_db_open(db_path, SB_DB_WRITE, &ing->db, err) != SB_OK)
        goto fail;
    /* Bulk loading: checkpoint (and fsync) the WAL every ~64 MB rather
     * than every 4 MB, with a larger page cache. Durability is unchanged:
     * WAL with synchronous=NORMAL keeps every committed file across a crash
     * of the program. */
    if (sb_db_exec(ing->db, "PRAGMA wal_autocheckpoint = 4096; PRAGMA cache_size = -65536", err) != SB_OK)
        goto fail;
    char chunk[SAMPLE_CHUNK * 10 + 100];
    size_t n = (size_t)snprintf(chunk, sizeof chunk, "INSERT INTO samples (run_id, rep, idx, value_ms) VALUES ");
    for (int i = 0; i < SAMPLE_CHUNK; i++)
        n += (size_t)snprintf(chunk + n, sizeof chunk - n, "%s(?,?,?,?)", i ? "," : "");
    for (int i = 0; i < ST_COUNT; i++) {
        const char *sql = i == ST_SAMPLE_CHUNK ? chunk : SQL[i];
        if (sqlite3_prepare_v3(sb_db_handle(ing->db), sql, -1, SQLITE_PREPARE_PERSISTENT,
                               &ing->st[i], NULL) != SQLITE_OK) {
            sb_db_fail(ing->db, err, "cannot prepare a statement");
            goto fail;
        }
    }
    *out = ing;
    return SB_OK;
fail:
    sb_ingest_close(ing);
    return SB_ERR;
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

/* One unit of work: its own transaction, or a savepoint inside a batch. */
static int unit_begin(sb_ingest *ing, sb_error *err)
{
    if (!ing->in_batch)
        return sb_db_begin(ing->db, err);
    int rc = sqlite3_step(ing->st[ST_SAVEPOINT]);
    sqlite3_reset(ing->st[ST_SAVEPOINT]);
    if (rc != SQLITE_DONE)
        return sb_db_fail(ing->db, err, "cannot start a savepoint");
    return SB_OK;
}

static int unit_end(sb_ingest *ing, int ok, sb_error *err)
{
    sqlite3 *c = sb_db_handle(ing->db);
    if (!ing->in_batch) {
        if (ok)
            return sb_db_commit(ing->db, err);
        sb_db_rollback(ing->db);
        return SB_ERR;
    }
    if (!ok) {
        sqlite3_exec(c, "ROLLBACK TO sb_unit", NULL, NULL, NULL);
        sqlite3_exec(c, "RELEASE sb_unit", NULL, NULL, NULL);
        return SB_ERR;
    }
    int rc = sqlite3_step(ing->st[ST_RELEASE]);
    sqlite3_reset(ing->st[ST_RELEASE]);
    if (rc != SQLITE_DONE)
        return sb_db_fail(ing->db, err, "cannot release a savepoint");
    return SB_OK;
}

/* ---- binding values from JSON ---- */

static json_t *get(json_t *o, const char *k)
{
    return json_is_object(o) ? json_object_get(o, k) : NULL;
}

static json_t *get2(json_t *o, const char *a, const char *b)
{
    return get(get(o, a), b);
}

static void bind_str(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_string(v))
        sqlite3_bind_text(st, i, json_string_value(v), (int)json_string_length(v), SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static void bind_cstr(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* Integers and booleans (as 0/1); NULL for anything else. */
static void bind_int(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else if (json_is_boolean(v))
        sqlite3_bind_int(st, i, json_is_true(v));
    else
        sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_number(v))
        sqlite3_bind_double(st, i, json_number_value(v));
    else
        sqlite3_bind_null(st, i);
}

static int step(sb_ingest *ing, int which, const char *file, sb_error *err)
{
    sqlite3_stmt *st = ing->st[which];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        const char *table = which == ST_RUN           ? "runs"
                            : which == ST_PROVENANCE  ? "provenance"
                            : which == ST_CONFIG      ? "configs"
                            : which == ST_METRICS     ? "metrics"
                            : which == ST_CORRECTNESS ? "correctness"
                            : which == ST_CEILING     ? "ceilings"
                            : which == ST_TRAINING    ? "training"
                            : which == ST_PROF_INSERT || which == ST_PROF_DELETE ? "profiler_metrics"
                            : which == ST_PROF_MARK   ? "configs"
                                                      : "samples";
        return sb_error_set(err, file, NULL, "cannot store into %s (database %s): %s", table,
                            sb_db_path(ing->db), sqlite3_errmsg(sb_db_handle(ing->db)));
    }
    return SB_OK;
}

/* Canonical JSON (sorted keys, compact, 17 significant digits). */
static char *canonical(const json_t *j)
{
    return json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
}

static void utc_now(char *buf, size_t size)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- consistency checks the schema cannot express ---- */

static int check_counts(json_t *doc, int training, const char *file, sb_error *err)
{
    json_t *timing = get(doc, "timing");
    json_t *samples = get(timing, "samples");
    json_t *count = get2(timing, "stats", "count");
    if (!samples || !count)
        return SB_OK;
    json_int_t n = 0;
    if (training) {
        n = (json_int_t)json_array_size(samples);
    } else {
        size_t r;
        json_t *rep;
        json_array_foreach(samples, r, rep) n += (json_int_t)json_array_size(rep);
    }
    if (n != json_integer_value(count))
        return sb_error_set(err, file, "/timing/stats/count",
                            "stats.count is %" JSON_INTEGER_FORMAT " but timing.samples holds %" JSON_INTEGER_FORMAT
                            " samples",
                            json_integer_value(count), n);
    json_t *kernel = get(timing, "kernel");
    if (kernel) {
        json_int_t kn = 0;
        size_t r;
        json_t *rep;
        json_array_foreach(get(kernel, "samples"), r, rep) kn += (json_int_t)json_array_size(rep);
        json_t *kcount = get2(kernel, "stats", "count");
        if (json_is_integer(kcount) && kn != json_integer_value(kcount))
            return sb_error_set(err, file, "/timing/kernel/stats/count",
                                "kernel stats.count is %" JSON_INTEGER_FORMAT " but timing.kernel.samples holds %"
                                JSON_INTEGER_FORMAT " samples", json_integer_value(kcount), kn);
    }
    if (!training) {
        json_t *iters = get2(doc, "protocol", "iters"), *repeats = get2(doc, "protocol", "repeats");
        if (json_is_integer(repeats) && (json_int_t)json_array_size(samples) != json_integer_value(repeats))
            return sb_error_set(err, file, "/timing/samples",
                                "%zu repeats of samples but protocol.repeats is %" JSON_INTEGER_FORMAT,
                                json_array_size(samples), json_integer_value(repeats));
        if (json_is_integer(iters)) {
            size_t r;
            json_t *rep;
            json_array_foreach(samples, r, rep) {
                if ((json_int_t)json_array_size(rep) != json_integer_value(iters)) {
                    char where[64];
                    snprintf(where, sizeof where, "/timing/samples/%zu", r);
                    return sb_error_set(err, file, where,
                                        "repeat %zu has %zu samples but protocol.iters is %" JSON_INTEGER_FORMAT,
                                        r, json_array_size(rep), json_integer_value(iters));
                }
            }
        }
    }
    return SB_OK;
}

/* ---- storing ---- */

static int store_provenance(sb_ingest *ing, long long id, json_t *p, const char *file, sb_error *err)
{
    sqlite3_stmt *st = ing->st[ST_PROVENANCE];
    json_t *dev = get(p, "device");
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_str(st, i++, get2(p, "git", "sha"));
    bind_int(st, i++, get2(p, "git", "dirty"));
    bind_str(st, i++, get2(p, "tool", "name"));
    bind_str(st, i++, get2(p, "tool", "version"));
    bind_str(st, i++, get2(p, "host", "hostname"));
    bind_str(st, i++, get2(p, "host", "os"));
    bind_str(st, i++, get2(p, "host", "cpu"));
    bind_str(st, i++, get2(p, "software", "driver_version"));
    bind_str(st, i++, get2(p, "software", "cuda_runtime_version"));
    bind_str(st, i++, get2(p, "software", "cublas_version"));
    bind_str(st, i++, get(dev, "kind"));
    bind_int(st, i++, get(dev, "index"));
    bind_str(st, i++, get(dev, "name"));
    bind_str(st, i++, get(dev, "arch"));
    bind_str(st, i++, get(dev, "sku"));
    bind_str(st, i++, get(dev, "compute_capability"));
    bind_int(st, i++, get(dev, "sm_count"));
    bind_int(st, i++, get(dev, "memory_bytes"));
    bind_str(st, i++, get(dev, "pci_device_id"));
    bind_str(st, i++, get(dev, "board_part_number"));
    bind_int(st, i++, get2(dev, "clocks", "sm_mhz"));
    bind_int(st, i++, get2(dev, "clocks", "mem_mhz"));
    bind_real(st, i++, get(dev, "power_limit_w"));
    bind_int(st, i++, get(dev, "ecc"));
    bind_int(st, i++, get(dev, "mig"));
    bind_str(st, i++, get(p, "started_at"));
    bind_str(st, i++, get(p, "finished_at"));
    json_t *packages = get2(p, "software", "packages");
    char *pkjson = packages ? canonical(packages) : NULL;
    if (packages && !pkjson)
        return sb_error_set(err, file, NULL, "out of memory"), SB_ERR;
    bind_cstr(st, i++, pkjson ? pkjson : "{}");
    bind_str(st, i++, get2(p, "scheduler", "engine"));
    bind_str(st, i++, get2(p, "scheduler", "job_id"));
    bind_int(st, i++, get2(p, "scheduler", "array_task_id"));
    bind_str(st, i++, get2(p, "git", "branch"));
    int rc = step(ing, ST_PROVENANCE, file, err);
    free(pkjson);
    return rc;
}

/* Samples of one repeat (values), chunked. */
static int store_samples(sb_ingest *ing, long long id, int rep, json_t *values, const char *file,
                         sb_error *err)
{
    size_t n = json_array_size(values), i = 0;
    sqlite3_stmt *chunk = ing->st[ST_SAMPLE_CHUNK];
    for (; i + SAMPLE_CHUNK <= n; i += SAMPLE_CHUNK) {
        for (int k = 0; k < SAMPLE_CHUNK; k++) {
            sqlite3_bind_int64(chunk, 4 * k + 1, id);
            sqlite3_bind_int(chunk, 4 * k + 2, rep);
            sqlite3_bind_int64(chunk, 4 * k + 3, (sqlite3_int64)(i + (size_t)k));
            sqlite3_bind_double(chunk, 4 * k + 4, json_number_value(json_array_get(values, i + (size_t)k)));
        }
        if (step(ing, ST_SAMPLE_CHUNK, file, err) != SB_OK)
            return SB_ERR;
    }
    sqlite3_stmt *one = ing->st[ST_SAMPLE];
    for (; i < n; i++) {
        sqlite3_bind_int64(one, 1, id);
        sqlite3_bind_int(one, 2, rep);
        sqlite3_bind_int64(one, 3, (sqlite3_int64)i);
        sqlite3_bind_double(one, 4, json_number_value(json_array_get(values, i)));
        if (step(ing, ST_SAMPLE, file, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

static void bind_peak_bytes(sqlite3_stmt *st, int i, json_t *memory)
{
    json_t *b = get(memory, "peak_device_bytes"), *mb = get(memory, "peak_device_mb");
    if (json_is_integer(b))
        sqlite3_bind_int64(st, i, json_integer_value(b));
    else if (json_is_number(mb))
        sqlite3_bind_int64(st, i, (sqlite3_int64)llround(json_number_value(mb) * 1e6));
    else
        sqlite3_bind_null(st, i);
}

/* The kernel time of a result: timing.kernel when the producer measured it
 * apart, else the call time itself when every launch was queued behind a
 * blocking kernel (solbench --hold), where the samples are GPU time already.
 * NULL stats: the run has no kernel time. */
static json_t *kernel_stats(json_t *timing, json_t *proto, const char **method)
{
    json_t *k = get(timing, "kernel");
    if (k) {
        *method = json_string_value(get(k, "method"));
        return get(k, "stats");
    }
    const char *hold = json_string_value(get(proto, "launch_hold"));
    if (hold && strcmp(hold, "blocking-kernel") == 0 && !json_is_true(get(timing, "quantiles_only"))) {
        *method = "held-launch";
        return get(timing, "stats");
    }
    *method = NULL;
    return NULL;
}

/* metrics row from timing.stats (+ derived metrics and memory for results;
 * proto is NULL for training runs). */
static int store_metrics(sb_ingest *ing, long long id, json_t *timing, json_t *proto, json_t *m,
                         json_t *memory, const char *file, sb_error *err)
{
    sqlite3_stmt *st = ing->st[ST_METRICS];
    json_t *s = get(timing, "stats");
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_int(st, i++, get(s, "count"));
    sqlite3_bind_int(st, i++, json_is_true(get(timing, "quantiles_only")));
    static const char *const stat_names[] = {"min", "p20", "median", "p80", "max", "mean", "stdev",
                                             "rel_noise", "repeat_median_rel_spread"};
    for (size_t k = 0; k < sizeof stat_names / sizeof *stat_names; k++)
        bind_real(st, i++, get(s, stat_names[k]));
    bind_real(st, i++, get(m, "flops"));
    bind_real(st, i++, get(m, "bytes"));
    bind_real(st, i++, get(m, "tflops"));
    bind_real(st, i++, get(m, "gbps"));
    bind_str(st, i++, get(m, "bound"));
    bind_real(st, i++, get(m, "pct_datasheet_peak"));
    bind_str(st, i++, get(m, "datasheet_peak_name"));
    bind_real(st, i++, get(m, "pct_measured_ceiling"));
    bind_str(st, i++, get(m, "measured_ceiling_name"));
    bind_peak_bytes(st, i++, memory);
    const char *method = NULL;
    json_t *ks = proto ? kernel_stats(timing, proto, &method) : NULL;
    bind_real(st, i++, get(ks, "median"));
    bind_real(st, i++, get(ks, "p20"));
    bind_real(st, i++, get(ks, "p80"));
    bind_int(st, i++, get(ks, "count"));
    if (ks && method)
        sqlite3_bind_text(st, i++, method, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i++);
    return step(ing, ST_METRICS, file, err);
}

/* The name a provider is stored under. torch_ops.py wrote the unmodified
 * Hugging Face code as "torch-eager"; Liger-Kernel's benchmarks, and the
 * maintainers who read ours, call that baseline "huggingface" (migration 002
 * renames the rows stored before). */
static const char *canonical_provider(const char *provider)
{
    if (provider && strcmp(provider, "torch-eager") == 0)
        return "huggingface";
    return provider;
}

/* The profiler a result was timed under: protocol.profiler, else "ncu"
 * for the presets run under Nsight Compute (suite NAME-ncu, written before
 * solbench recorded the field); NULL for a plain timing. */
static const char *profiler_of(json_t *cfg, json_t *proto)
{
    json_t *named = get(proto, "profiler");
    if (json_is_string(named))
        return json_string_value(named);
    const char *suite = json_string_value(get(cfg, "suite"));
    size_t n = suite ? strlen(suite) : 0;
    if (n >= 4 && strcmp(suite + n - 4, "-ncu") == 0)
        return "ncu";
    return NULL;
}

static int store_result(sb_ingest *ing, long long id, json_t *doc, const char *file, sb_error *err)
{
    json_t *cfg = get(doc, "config"), *proto = get(doc, "protocol");
    json_t *shape = get(cfg, "shape"), *params = get(cfg, "params");
    char *skey = sb_shape_key(shape);
    char *sjson = canonical(shape);
    char *pjson = params ? canonical(params) : strdup("{}");
    char *ckey = NULL;
    int rc = SB_ERR;
    if (!skey || !sjson || !pjson) {
        sb_error_set(err, file, NULL, "out of memory");
        goto out;
    }
    /* The case: what was computed. The suite (the preset that ran it) is a
     * label beside it, so one case measured by two presets meets itself. */
    const char *parts[] = {json_string_value(get(cfg, "op")), json_string_value(get(cfg, "mode")),
                           json_string_value(get(cfg, "dtype")), skey, pjson};
    size_t len = 1;
    for (int k = 0; k < 5; k++)
        len += strlen(parts[k]) + 1;
    ckey = malloc(len);
    if (!ckey) {
        sb_error_set(err, file, NULL, "out of memory");
        goto out;
    }
    snprintf(ckey, len, "%s|%s|%s|%s|%s", parts[0], parts[1], parts[2], parts[3], parts[4]);

    sqlite3_stmt *st = ing->st[ST_CONFIG];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_str(st, i++, get(cfg, "suite"));
    bind_str(st, i++, get(cfg, "op"));
    bind_str(st, i++, get(cfg, "mode"));
    bind_cstr(st, i++, canonical_provider(json_string_value(get(cfg, "provider"))));
    bind_str(st, i++, get(cfg, "backend"));
    bind_str(st, i++, get(cfg, "dtype"));
    bind_cstr(st, i++, skey);
    bind_cstr(st, i++, sjson);
    bind_cstr(st, i++, pjson);
    bind_cstr(st, i++, ckey);
    bind_str(st, i++, get(proto, "timer"));
    bind_int(st, i++, get(proto, "warmup_iters"));
    bind_real(st, i++, get(proto, "warmup_ms"));
    bind_int(st, i++, get(proto, "iters"));
    bind_int(st, i++, get(proto, "repeats"));
    bind_str(st, i++, get(proto, "l2"));
    bind_int(st, i++, get(proto, "input_sets"));
    bind_int(st, i++, get(proto, "graph"));
    bind_cstr(st, i++, profiler_of(cfg, proto));
    if (step(ing, ST_CONFIG, file, err) != SB_OK)
        goto out;

    json_t *timing = get(doc, "timing"), *metrics = get(doc, "metrics"), *memory = get(doc, "memory");
    size_t r;
    json_t *rep;
    json_array_foreach(get(timing, "samples"), r, rep) {
        if (store_samples(ing, id, (int)r, rep, file, err) != SB_OK)
            goto out;
    }
    if ((timing || metrics || memory) &&
        store_metrics(ing, id, timing, proto, metrics, memory, file, err) != SB_OK)
        goto out;

    json_t *c = get(doc, "correctness"), *d = get(doc, "determinism");
    st = ing->st[ST_CORRECTNESS];
    i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_str(st, i++, get(c, "reference"));
    bind_int(st, i++, get(c, "checked_elements"));
    bind_real(st, i++, get(c, "max_abs_err"));
    bind_real(st, i++, get(c, "max_rel_err"));
    bind_real(st, i++, get(c, "rel_l2_err"));
    bind_real(st, i++, get(c, "atol"));
    bind_real(st, i++, get(c, "rtol"));
    bind_int(st, i++, get(c, "unwritten"));
    bind_int(st, i++, get(c, "finite"));
    bind_int(st, i++, get(c, "passed"));
    bind_str(st, i++, get(c, "output_checksum"));
    bind_int(st, i++, get(d, "bitwise_repeatable"));
    bind_int(st, i++, get(d, "batch_invariant"));
    rc = step(ing, ST_CORRECTNESS, file, err);
out:
    free(skey);
    free(sjson);
    free(pjson);
    free(ckey);
    return rc;
}

static int store_training(sb_ingest *ing, long long id, json_t *doc, const char *file, sb_error *err)
{
    json_t *model = get(doc, "model"), *par = get(doc, "parallelism"), *patch = get(doc, "patch");
    json_t *timing = get(doc, "timing"), *memory = get(doc, "memory");
    char *kernels = canonical(get(patch, "kernels"));
    if (!kernels)
        return sb_error_set(err, file, NULL, "out of memory");
    sqlite3_stmt *st = ing->st[ST_TRAINING];
    int i = 1;
    sqlite3_bind_int64(st, i++, id);
    bind_str(st, i++, get(model, "name"));
    bind_int(st, i++, get(model, "seq_len"));
    bind_int(st, i++, get(model, "micro_batch_size"));
    bind_str(st, i++, get(model, "dtype"));
    bind_int(st, i++, get(par, "world_size"));
    bind_str(st, i++, get(par, "strategy"));
    bind_str(st, i++, get(patch, "name"));
    bind_cstr(st, i++, kernels);
    bind_real(st, i++, get2(doc, "throughput", "tokens_per_s"));
    bind_real(st, i++, get2(timing, "stats", "median"));
    bind_peak_bytes(st, i++, memory);
    int rc = step(ing, ST_TRAINING, file, err);
    free(kernels);
    if (rc != SB_OK)
        return SB_ERR;
    if (timing) {
        if (store_samples(ing, id, 0, get(timing, "samples"), file, err) != SB_OK)
            return SB_ERR;
        if (store_metrics(ing, id, timing, NULL, NULL, memory, file, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

static int store_ceiling(sb_ingest *ing, long long id, const char *name, const char *unit,
                         double value, const char *file, sb_error *err)
{
    sqlite3_stmt *st = ing->st[ST_CEILING];
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, unit, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, value);
    return step(ing, ST_CEILING, file, err);
}

/* Ceilings: bw.NAME in GB/s for each bandwidth test, gemm.DTYPE in TFLOP/s. */
static int store_calibration(sb_ingest *ing, long long id, json_t *doc, const char *file, sb_error *err)
{
    const char *k;
    json_t *v;
    char name[128];
    json_object_foreach(get(doc, "bandwidth"), k, v) {
        snprintf(name, sizeof name, "bw.%s", k);
        if (store_ceiling(ing, id, name, "GB/s", json_number_value(get(v, "gbps")), file, err) != SB_OK)
            return SB_ERR;
    }
    json_object_foreach(get(doc, "gemm_peak"), k, v) {
        snprintf(name, sizeof name, "gemm.%s", k);
        if (store_ceiling(ing, id, name, "TFLOP/s", json_number_value(get(v, "tflops")), file, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

enum { KIND_RESULT = 1, KIND_TRAINING, KIND_CALIBRATION };

int sb_ingest_prepare(const sb_ingest *ing, json_t *doc, const char *source,
                      sb_ingest_prepared *p, sb_error *err)
{
    memset(p, 0, sizeof *p);
    if (!json_is_object(doc))
        return sb_error_set(err, source, "", "not a JSON object: cannot tell which schema applies");
    json_t *sid = json_object_get(doc, "schema");
    if (!sid)
        return sb_error_set(err, source, "/schema",
                            "missing \"schema\" field: cannot tell which schema applies "
                            "(solbook.result.v1, solbook.training.v1 or solbook.calibration.v1)");
    if (!json_is_string(sid))
        return sb_error_set(err, source, "/schema", "\"schema\" must be a string naming the schema");
    const char *schema_id = json_string_value(sid);
    const sb_schema *schema = sb_schema_set_find(ing->schemas, schema_id);
    if (!schema)
        return sb_error_set(err, source, "/schema",
                            "unknown schema \"%s\" (known: solbook.result.v1, solbook.training.v1, "
                            "solbook.calibration.v1)",
                            schema_id);
    if (sb_schema_check(schema, doc, source, err) != SB_OK)
        return SB_ERR;
    int kind = strcmp(schema_id, "solbook.result.v1") == 0        ? KIND_RESULT
               : strcmp(schema_id, "solbook.training.v1") == 0    ? KIND_TRAINING
               : strcmp(schema_id, "solbook.calibration.v1") == 0 ? KIND_CALIBRATION
                                                                  : 0;
    if (!kind)
        return sb_error_set(err, source, "/schema", "schema \"%s\" has no storage in the database", schema_id);
    if (check_counts(doc, kind == KIND_TRAINING, source, err) != SB_OK)
        return SB_ERR;
    char *raw = canonical(doc);
    if (!raw)
        return sb_error_set(err, source, NULL, "out of memory");
    size_t raw_len = strlen(raw);
    if (sb_sha256_hex(raw, raw_len, p->sha256, err) != SB_OK) {
        sb_error_set_file(err, source);
        free(raw);
        return SB_ERR;
    }
    p->doc = json_incref(doc);
    p->raw = raw;
    p->raw_len = raw_len;
    p->kind = kind;
    return SB_OK;
}

void sb_ingest_prepared_free(sb_ingest_prepared *p)
{
    json_decref(p->doc);
    free(p->raw);
    memset(p, 0, sizeof *p);
}

int sb_ingest_store_prepared(sb_ingest *ing, const sb_ingest_prepared *p, const char *source,
                             const char *source_format, long long *run_id, int *duplicate,
                             sb_error *err)
{
    *run_id = 0;
    *duplicate = 0;
    json_t *doc = p->doc;
    if (unit_begin(ing, err) != SB_OK) {
        sb_error_set_file(err, source);
        return SB_ERR;
    }
    int ok = 0;
    sqlite3_stmt *st = ing->st[ST_FIND_SHA];
    sqlite3_bind_text(st, 1, p->sha256, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        *duplicate = 1;
        sqlite3_reset(st);
        ok = 1;
        goto end;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        sb_error_set(err, source, NULL, "cannot query the database %s: %s", sb_db_path(ing->db),
                     sqlite3_errmsg(sb_db_handle(ing->db)));
        goto end;
    }

    char now[32];
    utc_now(now, sizeof now);
    st = ing->st[ST_RUN];
    int i = 1;
    sqlite3_bind_text(st, i++, p->sha256, -1, SQLITE_STATIC);
    bind_str(st, i++, json_object_get(doc, "schema"));
    bind_str(st, i++, get(doc, "run_uuid"));
    if (p->kind == KIND_CALIBRATION)
        sqlite3_bind_text(st, i++, "passed", -1, SQLITE_STATIC);
    else
        bind_str(st, i++, get(doc, "status"));
    bind_str(st, i++, get(doc, "reason"));
    sqlite3_bind_text(st, i++, source, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, source_format ? source_format : "solbook", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, now, -1, SQLITE_STATIC);
    bind_str(st, i++, get(doc, "notes"));
    sqlite3_bind_text(st, i++, p->raw, (int)p->raw_len, SQLITE_STATIC);
    if (step(ing, ST_RUN, source, err) != SB_OK)
        goto end;
    long long id = sqlite3_last_insert_rowid(sb_db_handle(ing->db));
    if (store_provenance(ing, id, get(doc, "provenance"), source, err) != SB_OK)
        goto end;
    if (p->kind == KIND_RESULT && store_result(ing, id, doc, source, err) != SB_OK)
        goto end;
    if (p->kind == KIND_TRAINING && store_training(ing, id, doc, source, err) != SB_OK)
        goto end;
    if (p->kind == KIND_CALIBRATION && store_calibration(ing, id, doc, source, err) != SB_OK)
        goto end;
    *run_id = id;
    ok = 1;
end:
    if (unit_end(ing, ok, err) != SB_OK) {
        if (ok)
            sb_error_set_file(err, source);
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
    if (sb_ingest_prepare(ing, doc, source, &p, err) != SB_OK)
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
    if (sb_json_load_file(path, &doc, err) != SB_OK)
        return SB_ERR;
    int rc = sb_ingest_document(ing, doc, path, "solbook", run_id, duplicate, err);
    json_decref(doc);
    return rc;
}

/* Stores a parsed profile (freed here); csv_path names it in rows and errors. */
static int attach_profile(sb_ingest *ing, long long run_id, sb_ncu_profile *p, const char *csv_path,
                          long *rows, sb_error *err)
{
    if (unit_begin(ing, err) != SB_OK) {
        sb_error_set_file(err, csv_path);
        sb_ncu_profile_free(p);
        return SB_ERR;
    }
    int ok = 0;
    sqlite3_stmt *st = ing->st[ST_RUN_EXISTS];
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            sb_error_set(err, csv_path, NULL, "no run %lld in %s to attach the profile to", run_id,
                         sb_db_path(ing->db));
        else
            sb_error_set(err, csv_path, NULL, "cannot query the database %s: %s",
                         sb_db_path(ing->db), sqlite3_errmsg(sb_db_handle(ing->db)));
        goto end;
    }
    sqlite3_bind_int64(ing->st[ST_PROF_DELETE], 1, run_id);
    if (step(ing, ST_PROF_DELETE, csv_path, err) != SB_OK)
        goto end;
    st = ing->st[ST_PROF_INSERT];
    for (size_t i = 0; i < p->n_values; i++) {
        const sb_ncu_value *v = &p->values[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)v->kernel);
        sqlite3_bind_text(st, 3, p->kernel_names[v->kernel], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, p->metric_names[v->metric], -1, SQLITE_STATIC);
        if (p->metric_units[v->metric][0])
            sqlite3_bind_text(st, 5, p->metric_units[v->metric], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        sqlite3_bind_double(st, 6, v->value);
        sqlite3_bind_text(st, 7, csv_path, -1, SQLITE_STATIC);
        if (step(ing, ST_PROF_INSERT, csv_path, err) != SB_OK)
            goto end;
    }
    /* A profile with at least as many launches as the run has samples: every
     * timed launch ran under Nsight Compute (ncu_profile.sh writes
     * NAME.ncu.csv beside the NAME.json it ran so), so the run's timings are
     * the profiler's. A profile of a separate profiling run attached to a
     * timed run leaves it a timing. */
    sqlite3_bind_int64(ing->st[ST_PROF_MARK], 1, run_id);
    if (step(ing, ST_PROF_MARK, csv_path, err) != SB_OK)
        goto end;
    ok = 1;
    if (rows)
        *rows = (long)p->n_values;
end:
    sb_ncu_profile_free(p);
    if (unit_end(ing, ok, err) != SB_OK) {
        if (ok)
            sb_error_set_file(err, csv_path);
        if (rows)
            *rows = 0;
        return SB_ERR;
    }
    return SB_OK;
}

int sb_ingest_attach_ncu(sb_ingest *ing, long long run_id, const char *csv_path, long *rows,
                         sb_error *err)
{
    if (rows)
        *rows = 0;
    sb_ncu_profile *p;
    if (sb_ncu_csv_parse_file(csv_path, &p, err) != SB_OK)
        return SB_ERR;
    return attach_profile(ing, run_id, p, csv_path, rows, err);
}

int sb_ingest_attach_ncu_buffer(sb_ingest *ing, long long run_id, const char *csv, size_t len,
                                const char *name, long *rows, sb_error *err)
{
    if (rows)
        *rows = 0;
    sb_ncu_profile *p;
    if (sb_ncu_csv_parse_buffer(csv, len, name, &p, err) != SB_OK)
        return SB_ERR;
    return attach_profile(ing, run_id, p, name, rows, err);
}
