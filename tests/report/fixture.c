/* fixture.c - crafted databases for the report tests (fixture.h). */
#include "fixture.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "connection.h"
#include "json_file.h"
#include "migrate.h"
#include "ncu_csv.h"
#include "sample_blob.h"
#include "stats.h"

static void die(const char *what, sqlite3 *db)
{
    fprintf(stderr, "fixture: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
    exit(2);
}

static sb_db *adopt(sqlite3 *conn, const char *path)
{
    sb_db *h = NULL;
    sb_error err;
    if (sb_db_adopt(conn, path, &h, &err) != SB_OK) {
        fprintf(stderr, "fixture: %s: %s\n", path, err.msg);
        exit(2);
    }
    return h;
}

sb_db *fx_create(const char *path)
{
    unlink(path);
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("open", db);
    /* the schema as solbook creates it: its own migrations */
    sb_error err;
    if (sb_db_migrate(db, path, sb_db_migrations, sb_db_migration_count, &err) != SB_OK) {
        fprintf(stderr, "fixture: %s: %s\n", path, err.msg);
        exit(2);
    }
    /* test databases need no durability: no fsync per inserted row */
    if (sqlite3_exec(db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY", NULL, NULL,
                     NULL) != SQLITE_OK)
        die("pragma", db);
    return adopt(db, path);
}

sb_db *fx_open(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        die("open", db);
    return adopt(db, path);
}

char *fx_shape_json(const char *shape_key)
{
    json_t *o = json_object();
    char *copy = strdup(shape_key), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            continue;
        *eq = '\0';
        json_object_set_new(o, t, json_integer(atoll(eq + 1)));
    }
    free(copy);
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

static void exec_bind(sqlite3 *db, const char *sql, const char *types, ...);

#include <stdarg.h>

/* types: one letter per parameter: s text (NULL allowed), i int64, d double, n null */
static void exec_bind(sqlite3 *db, const char *sql, const char *types, ...)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        die(sql, db);
    va_list ap;
    va_start(ap, types);
    for (int i = 0; types[i]; i++) {
        switch (types[i]) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (s)
                sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(st, i + 1);
            break;
        }
        case 'i': sqlite3_bind_int64(st, i + 1, va_arg(ap, long long)); break;
        case 'd': {
            double v = va_arg(ap, double);
            if (v != v)
                sqlite3_bind_null(st, i + 1);
            else
                sqlite3_bind_double(st, i + 1, v);
            break;
        }
        default: sqlite3_bind_null(st, i + 1); break;
        }
    }
    va_end(ap);
    if (sqlite3_step(st) != SQLITE_DONE)
        die(sql, db);
    sqlite3_finalize(st);
}

int fx_tmpdir_make(char *dir, size_t size, const char *prefix)
{
    snprintf(dir, size, "/tmp/sb-%s-XXXXXX", prefix);
    return mkdtemp(dir) ? 0 : -1;
}

int fx_tmpdir_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

void fx_exec(sb_db *h, const char *sql)
{
    sqlite3 *db = sb_db_handle(h);
    exec_bind(db, sql, "");
}

/* Samples as ingest stores them: repeats of 50, packed in one row. */
static void add_samples(sqlite3 *db, long long id, const double *v, size_t n)
{
    size_t reps = (n + 49) / 50;
    size_t *len = malloc(reps * sizeof *len);
    unsigned char *blob = malloc(SB_SAMPLE_BLOB_BYTES(n));
    char *lengths = malloc(3 + 21 * reps);
    if (!len || !blob || !lengths) {
        fprintf(stderr, "fixture: out of memory\n");
        abort();
    }
    for (size_t r = 0; r < reps; r++)
        len[r] = r + 1 < reps ? 50 : n - 50 * r;
    int k = sb_sample_blob_rep_lengths(len, reps, lengths, 3 + 21 * reps);
    sb_sample_blob_encode(v, n, blob);
    sqlite3_stmt *st = NULL;
    if (k < 0 ||
        sqlite3_prepare_v2(db, "INSERT INTO run_samples (run_id, rep_lengths, value_ms) VALUES (?, ?, ?)", -1,
                           &st, NULL) != SQLITE_OK)
        die("run_samples", db);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, lengths, k, SQLITE_STATIC);
    sqlite3_bind_blob64(st, 3, blob, SB_SAMPLE_BLOB_BYTES(n), SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        die("run_samples", db);
    sqlite3_finalize(st);
    free(len);
    free(blob);
    free(lengths);
}

static long long counter;

static long long add_run(sqlite3 *db, const char *schema, const char *status, const char *raw)
{
    char sha[80];
    snprintf(sha, sizeof sha, "fixture-%lld-%zu", ++counter, strlen(raw));
    exec_bind(db,
              "INSERT INTO runs (content_sha256, schema, status, source_path, ingested_at, raw_json)"
              " VALUES (?, ?, ?, ?, '2026-11-20T00:00:00Z', ?)",
              "sssss", sha, schema, status, "fixture.json", raw);
    return sqlite3_last_insert_rowid(db);
}

static void add_prov(sqlite3 *db, long long id, const char *sha, const char *tool,
                     const char *gpu, const char *arch, const char *sku, const char *driver,
                     const char *finished)
{
    exec_bind(db,
              "INSERT INTO provenance (run_id, git_sha, tool_name, tool_version, driver_version,"
              " cuda_runtime_version, cublas_version, device_kind, gpu_name, arch, sku, finished_at)"
              " VALUES (?, ?, ?, '0.1.0', ?, '13.0', '13.1.0', 'gpu', ?, ?, ?, ?)",
              "isssssss", id, sha, tool, driver, gpu, arch, sku, finished);
}

long long fx_add_result(sb_db *h, const fx_result *r)
{
    sqlite3 *db = sb_db_handle(h);
    const char *suite = r->suite ? r->suite : "adhoc";
    const char *op = r->op ? r->op : "gemm";
    const char *mode = r->mode ? r->mode : "fwd";
    const char *dtype = r->dtype ? r->dtype : "fp16";
    const char *status = r->status ? r->status : "passed";
    const char *sha = r->git_sha ? r->git_sha : "1111111111111111111111111111111111111111";
    long long warmup = r->warmup ? r->warmup : 10, iters = r->iters ? r->iters : 50,
              repeats = r->repeats ? r->repeats : 5;
    char *shape_json = fx_shape_json(r->shape_key);
    char case_key[1024];
    snprintf(case_key, sizeof case_key, "%s|%s|%s|%s|{}", op, mode, dtype, r->shape_key);
    json_t *raw = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:o}, s:{s:s, s:s}}",
                            "schema", "solbook.result.v1", "status", status, "config", "suite",
                            suite, "op", op, "mode", mode, "provider", r->provider, "backend",
                            "cuda", "dtype", dtype, "shape", json_loads(shape_json, 0, NULL),
                            "provenance", "sku", r->sku, "finished_at", r->finished_at);
    json_object_set_new(raw, "fixture_serial", json_integer(counter + 1));
    if (r->gpu_uuid)
        json_object_set_new(json_object_get(raw, "provenance"), "device",
                            json_pack("{s:s}", "uuid", r->gpu_uuid));
    char *raw_s = json_dumps(raw, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(raw);
    long long id = add_run(db, "solbook.result.v1", status, raw_s);
    free(raw_s);
    add_prov(db, id, sha, r->tool ? r->tool : "solbench", r->gpu ? r->gpu : "NVIDIA H100 80GB HBM3",
             r->arch, r->sku, r->driver ? r->driver : "580.82.07", r->finished_at);
    exec_bind(db,
              "INSERT INTO configs (run_id, suite, op, mode, provider, backend, dtype, shape_key,"
              " shape_json, params_json, case_key, timer, warmup_iters, iters, repeats, l2)"
              " VALUES (?, ?, ?, ?, ?, 'cuda', ?, ?, ?, '{}', ?, 'cuda-event', ?, ?, ?, 'cold')",
              "issssssssiii", id, suite, op, mode, r->provider, dtype, r->shape_key, shape_json,
              case_key, warmup, iters, repeats);
    free(shape_json);
    if (r->packages)
        exec_bind(db, "UPDATE provenance SET packages_json = ? WHERE run_id = ?", "si", r->packages, id);
    if (r->profiler)
        exec_bind(db, "UPDATE configs SET profiler = ? WHERE run_id = ?", "si", r->profiler, id);
    exec_bind(db,
              "INSERT INTO correctness (run_id, reference, passed) VALUES (?, 'float64-host', ?)",
              "ii", id, (long long)(r->failed_correctness ? 0 : 1));
    if (strcmp(status, "passed") == 0) {
        double median = r->median_ms;
        if (median == 0 && r->nsamples)
            median = sb_median(r->samples, r->nsamples);
        double t = r->flops > 0 ? r->flops / (median * 1e9) : (double)NAN;
        double g = r->bytes > 0 ? r->bytes / (median * 1e6) : (double)NAN;
        exec_bind(db,
                  "INSERT INTO metrics (run_id, sample_count, quantiles_only, median_ms, flops,"
                  " bytes, tflops, gbps) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  "iiiddddd", id, (long long)r->nsamples, (long long)r->quantiles_only, median,
                  r->flops > 0 ? r->flops : (double)NAN, r->bytes > 0 ? r->bytes : (double)NAN, t,
                  g);
        if (r->nsamples)
            add_samples(db, id, r->samples, r->nsamples);
    }
    return id;
}

void fx_add_ncu(sb_db *h, long long run_id, int n)
{
    sqlite3 *db = sb_db_handle(h);
    for (int i = 0; i < n && i < SB_NCU_SOL_METRIC_COUNT; i++)
        exec_bind(db,
                  "INSERT INTO profiler_metrics (run_id, kernel_index, kernel_name, metric, unit,"
                  " value, source_path) VALUES (?, 0, 'sm90_xmma_gemm', ?, '%', ?, 'gemm.ncu.csv')",
                  "isd", run_id, SB_NCU_SOL_METRICS[i], 50.0 + i);
}

/* The GPU name NVML gives a card of the arch (data/skus.csv match names). */
static const char *gpu_of(const char *arch)
{
    return strcmp(arch, "h200") == 0 ? "NVIDIA H200" : "NVIDIA H100 80GB HBM3";
}

long long fx_add_calibration(sb_db *h, const char *sku, const char *arch,
                             const char *finished_at, double copy_gbps, double gemm_fp16_tflops)
{
    sqlite3 *db = sb_db_handle(h);
    char raw[256];
    snprintf(raw, sizeof raw, "{\"schema\":\"solbook.calibration.v1\",\"sku\":\"%s\",\"at\":\"%s\"}",
             sku, finished_at);
    long long id = add_run(db, "solbook.calibration.v1", "passed", raw);
    add_prov(db, id, "2222222222222222222222222222222222222222", "solbench", gpu_of(arch), arch, sku,
             "580.82.07", finished_at);
    exec_bind(db, "INSERT INTO ceilings (run_id, name, unit, value) VALUES (?, 'bw.copy', 'GB/s', ?)",
              "id", id, copy_gbps);
    exec_bind(db,
              "INSERT INTO ceilings (run_id, name, unit, value) VALUES (?, 'gemm.fp16', 'TFLOP/s', ?)",
              "id", id, gemm_fp16_tflops);
    return id;
}

long long fx_add_training(sb_db *h, const char *sku, const char *arch, const char *finished_at,
                          double tokens_per_s, double step_ms)
{
    sqlite3 *db = sb_db_handle(h);
    char raw[256];
    snprintf(raw, sizeof raw, "{\"schema\":\"solbook.training.v1\",\"sku\":\"%s\",\"at\":\"%s\"}",
             sku, finished_at);
    long long id = add_run(db, "solbook.training.v1", "passed", raw);
    add_prov(db, id, "3333333333333333333333333333333333333333", "solbook-train", gpu_of(arch), arch,
             sku, "580.82.07", finished_at);
    exec_bind(db,
              "INSERT INTO training (run_id, model_name, seq_len, micro_batch_size, dtype,"
              " world_size, strategy, patch_name, patch_kernels_json, tokens_per_s, median_step_ms)"
              " VALUES (?, 'llama-3.2-1b', 4096, 4, 'bf16', 1, 'single', 'liger', '[]', ?, ?)",
              "idd", id, tokens_per_s, step_ms);
    return id;
}

/* The standard set (all in ISO week 2026-W47 = 16..22 Nov 2026 unless
 * said): op rmsnorm fwd bf16, three shapes, providers huggingface, liger,
 * torch on h100-sxm5-80gb and h200-sxm-141gb; medians in fx_std_median().
 * On h200, liger's BT=4096 case failed correctness. One h100 calibration.
 * One training run. No A100 data. */
const double FX_STD_MEDIANS[2][3][3] = {
    /* sku h100: shape x provider (huggingface, liger, torch) */
    {{0.200, 0.100, 0.160}, {0.400, 0.160, 0.300}, {0.800, 0.400, 0.500}},
    /* sku h200 */
    {{0.150, 0.080, 0.120}, {0.300, 0.120, 0.250}, {0.600, 0.250, 0.400}},
};
const char *const FX_STD_SHAPES[3] = {"BT=1024,H=4096", "BT=4096,H=4096", "BT=16384,H=4096"};
const char *const FX_STD_PROVIDERS[3] = {"huggingface", "liger", "torch"};
const char *const FX_STD_SKUS[2] = {"h100-sxm5-80gb", "h200-sxm-141gb"};
const char *const FX_STD_ARCH[2] = {"h100", "h200"};

void fx_standard(sb_db *db)
{
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 3; s++)
            for (int p = 0; p < 3; p++) {
                double bt = s == 0 ? 1024 : s == 1 ? 4096 : 16384;
                fx_result r = {0};
                r.suite = "liger-perkernel";
                r.op = "rmsnorm";
                r.dtype = "bf16";
                r.provider = FX_STD_PROVIDERS[p];
                r.shape_key = FX_STD_SHAPES[s];
                r.sku = FX_STD_SKUS[k];
                r.arch = FX_STD_ARCH[k];
                r.gpu = k ? "NVIDIA H200" : "NVIDIA H100 80GB HBM3";
                r.finished_at = "2026-11-18T10:00:00Z";
                r.median_ms = FX_STD_MEDIANS[k][s][p];
                r.flops = 4.0 * bt * 4096;
                r.bytes = 2.0 * 2 * bt * 4096;
                if (k == 1 && s == 1 && p == 1) {
                    r.status = "failed";
                    r.failed_correctness = 1;
                }
                fx_add_result(db, &r);
            }
    fx_add_calibration(db, "h100-sxm5-80gb", "h100", "2026-11-17T09:00:00Z", 3000.0, 700.0);
    fx_add_training(db, "h100-sxm5-80gb", "h100", "2026-11-19T12:00:00Z", 41000.0, 400.0);
}
