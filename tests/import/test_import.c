/* test_import.c - importers of Liger-Kernel CSV, nvbench JSON and Google
 * Benchmark JSON: detection, conversion, and what lands in the database.
 * Fixtures are in tests/data/import/ (small files written for these tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "home.h"
#include "import.h"
#include "import_internal.h"
#include "json_file.h"
#include "ingest.h"
#include "results_query.h"

#define DATA SOLBOOK_TEST_DATA "/import/"

typedef struct fixture {
    char db_path[256];
    sb_ingest *ing;
    sqlite3 *db;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->db_path, sizeof f->db_path, "/tmp/solbook-test-import-%ld-XXXXXX", (long)getpid());
    int fd = mkstemp(f->db_path);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(f->db_path);
    char schemas[4096];
    sb_error err;
    sb_error_clear(&err);
    if (sb_data_path(schemas, sizeof schemas, "schemas", &err) != SB_OK ||
        sb_ingest_open(f->db_path, schemas, &f->ing, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return -1;
    }
    if (sqlite3_open_v2(f->db_path, &f->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sqlite3_close(f->db);
    sb_ingest_close(f->ing);
    unlink(f->db_path);
    free(f);
    return 0;
}

/* One value from a query; NULL results: q_isnull. */
static sqlite3_stmt *q_step(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bad query: %s: %s\n", sql, sqlite3_errmsg(db));
        fail();
    }
    if (sqlite3_step(st) != SQLITE_ROW) {
        fprintf(stderr, "no row: %s\n", sql);
        sqlite3_finalize(st);
        fail();
    }
    return st;
}

static long long q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = q_step(db, sql);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static double q_real(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = q_step(db, sql);
    assert_int_not_equal(sqlite3_column_type(st, 0), SQLITE_NULL);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int q_isnull(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = q_step(db, sql);
    int v = sqlite3_column_type(st, 0) == SQLITE_NULL;
    sqlite3_finalize(st);
    return v;
}

static char text_buf[4096];
static const char *q_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = q_step(db, sql);
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(text_buf, sizeof text_buf, "%s", t ? (const char *)t : "(null)");
    sqlite3_finalize(st);
    return text_buf;
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) <= 1e-9 + 1e-6 * fabs(b))

static void expect_error(sb_error *err, const char *needle)
{
    char line[3000];
    sb_error_format(err, line, sizeof line);
    if (!strstr(line, needle)) {
        fprintf(stderr, "error \"%s\" lacks \"%s\"\n", line, needle);
        fail();
    }
}

/* ---- shared helpers ---- */

static void test_helpers(void **state)
{
    (void)state;
    char buf[64];
    sb_import_id("Liger (v2)", buf, sizeof buf);
    assert_string_equal(buf, "liger-v2");
    sb_import_id("torch_compile", buf, sizeof buf);
    assert_string_equal(buf, "torch_compile");
    sb_import_id("  --Fused Linear/CE--", buf, sizeof buf);
    assert_string_equal(buf, "fused-linear-ce");
    sb_import_id("***", buf, sizeof buf);
    assert_string_equal(buf, "");
    sb_import_key("Elements{io}", buf, sizeof buf);
    assert_string_equal(buf, "Elements_io_");
    sb_import_key("2d", buf, sizeof buf);
    assert_string_equal(buf, "_2d");
    assert_string_equal(sb_import_dtype("torch.bfloat16"), "bf16");
    assert_string_equal(sb_import_dtype("F32"), "fp32");
    assert_string_equal(sb_import_dtype("__half"), "fp16");
    assert_string_equal(sb_import_dtype("torch.float8_e4m3fn"), "fp8e4m3");
    assert_string_equal(sb_import_dtype("double"), "fp64");
    assert_null(sb_import_dtype("I32"));
    assert_null(sb_import_dtype("torch.complex64"));
    char t[40];
    assert_int_equal(sb_import_time_utc("2024-09-03 15:31:39", t, sizeof t), SB_OK);
    assert_string_equal(t, "2024-09-03T15:31:39Z");
    assert_int_equal(sb_import_time_utc("2025-03-04T00:20:30.25+01:00", t, sizeof t), SB_OK);
    assert_string_equal(t, "2025-03-03T23:20:30Z");
    assert_int_equal(sb_import_time_utc("2025-03-04T10:20:30-05:30", t, sizeof t), SB_OK);
    assert_string_equal(t, "2025-03-04T15:50:30Z");
    assert_int_equal(sb_import_time_utc("2024-02-30 00:00:00", t, sizeof t), SB_ERR);
    assert_int_equal(sb_import_time_utc("03/04/25 10:20:30", t, sizeof t), SB_ERR);
    assert_int_equal(sb_import_time_utc("2024-09-03 15:31:39 PST", t, sizeof t), SB_ERR);
}

/* ---- detection ---- */

static void test_detect(void **state)
{
    (void)state;
    const char *fmt = NULL;
    sb_error err;
    assert_int_equal(sb_import_detect(DATA "liger_basic.csv", &fmt, &err), SB_OK);
    assert_string_equal(fmt, "liger-csv");
    assert_int_equal(sb_import_detect(DATA "nvbench.json", &fmt, &err), SB_OK);
    assert_string_equal(fmt, "nvbench-json");
    assert_int_equal(sb_import_detect(DATA "gbench.json", &fmt, &err), SB_OK);
    assert_string_equal(fmt, "gbench-json");
    assert_int_equal(sb_import_detect(SOLBOOK_TEST_DATA "/schemas/result.valid.gemm.json", &fmt, &err), SB_OK);
    assert_string_equal(fmt, "solbook");

    assert_int_equal(sb_import_detect(DATA "empty.csv", &fmt, &err), SB_ERR);
    expect_error(&err, "empty.csv");
    expect_error(&err, "empty file: cannot tell its format");
    assert_int_equal(sb_import_detect(DATA "blank.csv", &fmt, &err), SB_ERR);
    expect_error(&err, "cannot tell its format");
    assert_int_equal(sb_import_detect(DATA "unknown.json", &fmt, &err), SB_ERR);
    expect_error(&err, "unknown.json");
    expect_error(&err, "neither Google Benchmark");
    assert_int_equal(sb_import_detect(DATA "other.csv", &fmt, &err), SB_ERR);
    expect_error(&err, "line 1");
    expect_error(&err, "not a Liger-Kernel benchmark CSV header");
    assert_int_equal(sb_import_detect(DATA "no-such-file.csv", &fmt, &err), SB_ERR);
    expect_error(&err, "no-such-file.csv");
}

/* A FIFO named like a result (a glob over a folder of received files,
 * `solbook ingest --format auto` over every name in results/) is refused
 * in one line naming it, as the native ingest refuses one: opened as a
 * file, it waited for a writer forever. The alarm ends the test instead
 * of hanging it. */
static void test_not_regular_refused(void **state)
{
    fixture *f = *state;
    char dir[] = "/tmp/solbook-import-fifo-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results.csv", dir);
    assert_int_equal(mkfifo(path, 0644), 0);
    alarm(20);
    const char *fmt = NULL;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_import_detect(path, &fmt, &err), SB_ERR);
    expect_error(&err, "results.csv");
    expect_error(&err, "not a regular file (a FIFO, socket or device), not read");
    sb_import_stats st = {0};
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, "liger-csv", &st, &err), SB_ERR);
    expect_error(&err, "not a regular file (a FIFO, socket or device), not read");
    assert_int_equal(st.stored, 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_detect(dir, &fmt, &err), SB_ERR);
    expect_error(&err, "is a directory, not a file");
    alarm(0);
    unlink(path);
    rmdir(dir);
}

/* ---- Liger-Kernel CSV ---- */

static void test_liger_stored(void **state)
{
    fixture *f = *state;
    sb_import_stats st = {0};
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_import_file(f->ing, DATA "liger_basic.csv", NULL, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.rows, 11);
    assert_int_equal(st.duplicate_rows, 1);
    assert_int_equal(st.runs, 8);
    assert_int_equal(st.skipped_runs, 1);
    assert_int_equal(st.stored, 8);
    assert_int_equal(st.duplicates, 0);

    sqlite3 *db = f->db;
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM runs WHERE source_format = 'liger-csv'"), 8);
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM run_samples"), 0);

    /* speed + memory rows of one case became one run */
    const char *ce_full = "FROM runs r JOIN configs c ON c.run_id = r.id JOIN metrics m ON m.run_id = r.id "
                          "JOIN provenance p ON p.run_id = r.id WHERE c.op = 'cross_entropy' AND c.mode = 'full' "
                          "AND c.provider = 'liger'";
    char sql[1024];
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, ce_full), sql)
    assert_int_equal(q_int(db, Q("COUNT(*)")), 1);
    assert_string_equal(q_text(db, Q("r.status")), "passed");
    assert_string_equal(q_text(db, Q("c.dtype")), "fp32"); /* from data/import_op_names.csv */
    assert_string_equal(q_text(db, Q("c.shape_key")), "B=8,T=2048,V=4096");
    assert_string_equal(q_text(db, Q("c.suite")), "liger-bench");
    assert_string_equal(q_text(db, Q("c.backend")), "triton");
    assert_string_equal(q_text(db, Q("c.timer")), "imported");
    assert_string_equal(q_text(db, Q("c.l2")), "unknown");
    assert_near(q_real(db, Q("m.median_ms")), 0.8637);
    assert_near(q_real(db, Q("m.p20_ms")), 0.8607);
    assert_near(q_real(db, Q("m.p80_ms")), 0.8670);
    assert_int_equal(q_int(db, Q("m.quantiles_only")), 1);
    assert_true(q_isnull(db, Q("m.min_ms")));
    assert_true(q_isnull(db, Q("m.mean_ms")));
    assert_true(q_isnull(db, Q("m.sample_count")));
    /* 256.32861328125 MiB as Liger writes it */
    assert_int_equal(q_int(db, Q("m.peak_device_bytes")), 268780032);
    assert_string_equal(q_text(db, Q("p.sku")), "a100-sxm4-80gb");
    assert_string_equal(q_text(db, Q("p.arch")), "a100");
    assert_string_equal(q_text(db, Q("p.gpu_name")), "NVIDIA A100-SXM4-80GB");
    assert_string_equal(q_text(db, Q("p.tool_name")), "liger-kernel");
    assert_string_equal(q_text(db, Q("p.tool_version")), "0.2.1");
    assert_string_equal(q_text(db, Q("p.git_sha")), "unknown");
    assert_string_equal(q_text(db, Q("p.started_at")), "2024-09-03T15:31:41Z");
    assert_string_equal(q_text(db, Q("p.finished_at")), "2024-09-03T15:31:43Z");
#undef Q

    /* liger and huggingface share the case key, so reports can pair them */
    assert_int_equal(q_int(db, "SELECT COUNT(DISTINCT case_key) FROM configs WHERE op = 'cross_entropy'"), 2);
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM configs WHERE op = 'cross_entropy' AND provider = 'huggingface'"), 2);
    assert_string_equal(q_text(db, "SELECT backend FROM configs WHERE provider = 'huggingface' LIMIT 1"), "torch");

    /* quoted JSON with commas and doubled quotes in the config cell; op
     * name mapped; missing quantiles stay missing */
    const char *flce = "FROM configs c JOIN metrics m ON m.run_id = c.run_id WHERE c.op = 'flce' AND c.provider = 'liger'";
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, flce), sql)
    assert_string_equal(q_text(db, Q("c.dtype")), "bf16");
    assert_string_equal(q_text(db, Q("c.mode")), "fwd");
    assert_string_equal(q_text(db, Q("c.shape_key")), "BT=1024,H=4096,V=128256");
    assert_string_equal(q_text(db, Q("json_extract(c.params_json, '$.label')")), "a, \"q\" b");
    assert_int_equal(q_int(db, Q("json_extract(c.params_json, '$.ignore_index')")), -100);
    assert_int_equal(q_int(db, Q("json_extract(c.params_json, '$.bias')")), 1);
    assert_near(q_real(db, Q("m.median_ms")), 11.5);
    assert_true(q_isnull(db, Q("m.p20_ms")));
    assert_true(q_isnull(db, Q("m.p80_ms")));
#undef Q
    assert_string_equal(q_text(db, "SELECT sku FROM provenance p JOIN configs c ON c.run_id = p.run_id "
                                   "WHERE c.op = 'flce' LIMIT 1"), "h100-sxm5-80gb");

    /* unknown GPU: recorded as what it is */
    const char *rms = "FROM configs c JOIN provenance p ON p.run_id = c.run_id JOIN runs r ON r.id = c.run_id "
                      "WHERE c.op = 'rmsnorm' AND r.status = 'passed'";
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, rms), sql)
    assert_string_equal(q_text(db, Q("p.gpu_name")), "NVIDIA GeForce RTX 4090");
    assert_string_equal(q_text(db, Q("p.sku")), "unknown-nvidia-geforce-rtx-4090");
    assert_string_equal(q_text(db, Q("c.mode")), "fwd");
    assert_int_equal(q_int(db, Q("json_extract(c.params_json, '$.no_grad')")), 1);
    assert_near(q_real(db, Q("json_extract(c.params_json, '$.eps')")), 1e-6);
    assert_string_equal(q_text(db, Q("c.dtype")), "fp16");
#undef Q

    /* a memory row without a speed row: skipped, memory kept, no timing */
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM runs WHERE status = 'skipped'"), 1);
    assert_non_null(strstr(q_text(db, "SELECT reason FROM runs WHERE status = 'skipped'"), "memory row but no speed row"));
    assert_string_equal(q_text(db, "SELECT json_extract(raw_json, '$.memory.peak_device_mb') FROM runs WHERE status = 'skipped'"),
                        "13.1072");
    assert_true(q_isnull(db, "SELECT json_extract(raw_json, '$.timing') FROM runs WHERE status = 'skipped'"));

    /* correctness: the source tool's, not re-checked */
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM correctness WHERE reference = 'imported'"), 8);
    assert_true(q_isnull(db, "SELECT max_abs_err FROM correctness LIMIT 1"));
    /* no verdict is claimed for imported timings */
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM correctness WHERE passed = 1"), 0);
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM correctness WHERE passed IS NULL"), 8);
    assert_string_equal(q_text(db, "SELECT json_extract(raw_json, '$.source.file') FROM runs LIMIT 1"), "liger_basic.csv");
    assert_int_equal(q_int(db, "SELECT json_extract(r.raw_json, '$.source.row') FROM runs r JOIN configs c ON c.run_id = r.id "
                               "WHERE c.op = 'flce' AND c.provider = 'huggingface'"), 10);

    /* importing again stores nothing new */
    sb_import_stats again = {0};
    assert_int_equal(sb_import_file(f->ing, DATA "liger_basic.csv", "liger-csv", &again, &err), SB_OK);
    assert_int_equal(again.stored, 0);
    assert_int_equal(again.duplicates, 8);
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM runs"), 8);

    /* a refused file after a good one leaves the good one alone */
    assert_int_equal(sb_import_file(f->ing, DATA "liger_malformed.csv", NULL, NULL, &err), SB_ERR);
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM runs"), 8);
}

static void refused(fixture *f, const char *file, const char *format, const char *needle1, const char *needle2)
{
    char path[1024];
    snprintf(path, sizeof path, DATA "%s", file);
    sb_error err;
    sb_error_clear(&err);
    sb_import_stats st = {0};
    assert_int_equal(sb_import_file(f->ing, path, format, &st, &err), SB_ERR);
    expect_error(&err, file);
    expect_error(&err, needle1);
    if (needle2)
        expect_error(&err, needle2);
    assert_int_equal(st.stored, 0);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 0);
}

/* A kernel whose config names no dtype: stored as unknown, never guessed. */
static void test_liger_nodtype(void **state)
{
    fixture *g = *state;
    sb_error e;
    assert_int_equal(sb_import_file(g->ing, DATA "liger_nodtype.csv", NULL, NULL, &e), SB_OK);
    assert_int_equal(q_int(g->db, "SELECT COUNT(*) FROM runs"), 1);
    assert_string_equal(q_text(g->db, "SELECT dtype FROM configs"), "unknown");
}

static void test_liger_refused(void **state)
{
    fixture *f = *state;
    refused(f, "liger_malformed.csv", NULL, "line 4", "y_value_50 \"fast\"");
    refused(f, "liger_conflict.csv", "liger-csv", "line 3", "repeats the case of line 2");
    refused(f, "liger_unclosed.csv", "liger-csv", "line 3", "not closed");
    refused(f, "liger_stray_quote.csv", "liger-csv", "line 2", "a quote inside an unquoted field");
    /* two good cases are stored before the third fails: rolled back */
    refused(f, "liger_late_error.csv", NULL, "line 4", "not a known dtype");
    refused(f, "liger_badconfig.csv", NULL, "line 2", "extra_benchmark_config_str is not valid JSON");
    refused(f, "liger_header_only.csv", NULL, "no benchmark rows", NULL);
    refused(f, "empty.csv", "liger-csv", "empty file", NULL);
    refused(f, "empty.csv", NULL, "cannot tell its format", NULL);
    refused(f, "other.csv", "liger-csv", "the header has no kernel_name column", NULL);
    refused(f, "liger_basic.csv", "csv", "unknown import format", NULL);

    /* --dtype fills what the file does not say */
    sb_import_options opts = {.dtype = "bf16"};
    json_t *docs = NULL;
    sb_error err;
    assert_int_equal(sb_import_convert(DATA "liger_nodtype.csv", NULL, &opts, &docs, NULL, &err), SB_OK);
    assert_int_equal(json_array_size(docs), 1);
    json_t *cfg = json_object_get(json_array_get(docs, 0), "config");
    assert_string_equal(json_string_value(json_object_get(cfg, "dtype")), "bf16");
    assert_string_equal(json_string_value(json_object_get(cfg, "op")), "mystery_kernel");
    /* the schema rule for quantiles_only timing: stats may lack what the
     * producer did not give, but then there are no samples; without
     * quantiles_only every statistic is required again */
    json_t *doc = json_deep_copy(json_array_get(docs, 0));
    json_t *timing = json_object_get(doc, "timing");
    json_object_set_new(timing, "samples", json_pack("[[f]]", 0.1));
    assert_int_equal(sb_ingest_document(f->ing, doc, "test", "liger-csv", NULL, NULL, &err), SB_ERR);
    expect_error(&err, "/timing");
    json_object_del(timing, "samples");
    json_object_del(timing, "quantiles_only");
    assert_int_equal(sb_ingest_document(f->ing, doc, "test", "liger-csv", NULL, NULL, &err), SB_ERR);
    expect_error(&err, "/timing/stats");
    json_object_set_new(timing, "quantiles_only", json_true());
    long long id = 0;
    assert_int_equal(sb_ingest_document(f->ing, doc, "test", "liger-csv", &id, NULL, &err), SB_OK);
    assert_true(id > 0);
    json_decref(doc);
    json_decref(docs);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 1);
    opts.dtype = "float128";
    assert_int_equal(sb_import_convert(DATA "liger_nodtype.csv", NULL, &opts, &docs, NULL, &err), SB_ERR);
    expect_error(&err, "is not a dtype");
}

/* Model-config sweeps: x is a model name and the config holds a table keyed
 * by it; integral x written as "2048.0"; torch_compile provider kept. */
static void test_liger_model_sweep(void **state)
{
    (void)state;
    json_t *docs = NULL;
    sb_error err;
    sb_import_stats st = {0};
    int rc = sb_import_convert(DATA "liger_model_sweep.csv", "liger-csv", NULL, &docs, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.runs, 3);
    json_t *c0 = json_object_get(json_array_get(docs, 0), "config");
    json_t *c1 = json_object_get(json_array_get(docs, 1), "config");
    json_t *c2 = json_object_get(json_array_get(docs, 2), "config");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c0, "shape"), "vocab_size")), 128256);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c0, "shape"), "BT")), 4096);
    assert_int_equal(json_object_size(json_object_get(c0, "shape")), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(c0, "params"), "model_config")), "llama_3_8b");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c1, "shape"), "vocab_size")), 152064);
    assert_string_equal(json_string_value(json_object_get(c0, "dtype")), "fp32");
    assert_string_equal(json_string_value(json_object_get(c2, "provider")), "torch_compile");
    assert_string_equal(json_string_value(json_object_get(c2, "backend")), "torch");
    assert_string_equal(json_string_value(json_object_get(c2, "mode")), "bwd");
    assert_string_equal(json_string_value(json_object_get(c2, "dtype")), "bf16");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c2, "shape"), "T")), 2048);
    assert_string_equal(json_string_value(json_object_get(json_object_get(c2, "params"), "hidden_act")), "silu");
    json_t *dev = json_object_get(json_object_get(json_array_get(docs, 0), "provenance"), "device");
    assert_string_equal(json_string_value(json_object_get(dev, "sku")), "h200-sxm-141gb");
    json_decref(docs);
}

/* Inside a caller's batch (ingest --strict): a refused file rolls back only
 * its own savepoint; the batch decides the rest. */
static void test_in_batch(void **state)
{
    fixture *f = *state;
    sb_error err;
    sb_import_options opts = {.in_batch = 1};
    assert_int_equal(sb_ingest_begin(f->ing, &err), SB_OK);
    assert_int_equal(sb_import_file_opts(f->ing, DATA "liger_basic.csv", NULL, &opts, NULL, &err), SB_OK);
    assert_int_equal(sb_import_file_opts(f->ing, DATA "liger_malformed.csv", NULL, &opts, NULL, &err), SB_ERR);
    expect_error(&err, "line 4");
    assert_int_equal(sb_ingest_commit(f->ing, &err), SB_OK);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 8);

    assert_int_equal(sb_ingest_begin(f->ing, &err), SB_OK);
    assert_int_equal(sb_import_file_opts(f->ing, DATA "nvbench.json", NULL, &opts, NULL, &err), SB_OK);
    sb_ingest_rollback(f->ing);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 8);
}

/* A malformed op-name table is refused with its file and line; nothing is
 * stored. */
static void test_op_names_malformed(void **state)
{
    fixture *f = *state;
    sb_error err;
    sb_import_options opts = {.op_names_csv = DATA "op_names_unclosed.csv"};
    sb_error_clear(&err);
    assert_int_equal(sb_import_file_opts(f->ing, DATA "liger_basic.csv", NULL, &opts, NULL, &err), SB_ERR);
    expect_error(&err, "op_names_unclosed.csv: line 3: malformed CSV: unterminated quoted field");
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 0);
}

/* ---- nvbench ---- */

static void test_nvbench_stored(void **state)
{
    fixture *f = *state;
    sqlite3 *db = f->db;
    sb_import_stats st = {0};
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_import_file(f->ing, DATA "nvbench.json", NULL, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.rows, 3);
    assert_int_equal(st.stored, 3);
    assert_int_equal(st.skipped_runs, 1);

    const char *f32 = "FROM configs c JOIN metrics m ON m.run_id = c.run_id JOIN provenance p ON p.run_id = c.run_id "
                      "WHERE c.op = 'copy' AND c.dtype = 'fp32'";
    char sql[1024];
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, f32), sql)
    assert_string_equal(q_text(db, Q("c.provider")), "nvbench");
    assert_string_equal(q_text(db, Q("c.backend")), "cuda");
    assert_string_equal(q_text(db, Q("c.shape_key")), "Elements=1048576");
    assert_string_equal(q_text(db, Q("json_extract(c.params_json, '$.T')")), "F32");
    assert_near(q_real(db, Q("json_extract(c.params_json, '$.Alpha')")), 0.5);
    assert_string_equal(q_text(db, Q("c.l2")), "cold");
    assert_near(q_real(db, Q("m.mean_ms")), 0.0125);
    assert_near(q_real(db, Q("m.stdev_ms")), 0.00025);
    assert_near(q_real(db, Q("m.min_ms")), 0.01125);
    assert_near(q_real(db, Q("m.max_ms")), 0.01625);
    assert_int_equal(q_int(db, Q("m.sample_count")), 2000);
    assert_true(q_isnull(db, Q("m.median_ms"))); /* nvbench gives no median without its sample file */
    assert_int_equal(q_int(db, Q("m.quantiles_only")), 1);
    assert_near(q_real(db, Q("m.bytes")), 8388608.0);
    assert_string_equal(q_text(db, Q("p.sku")), "h100-sxm5-80gb");
    assert_string_equal(q_text(db, Q("p.compute_capability")), "9.0");
    assert_int_equal(q_int(db, Q("p.sm_count")), 132);
    assert_string_equal(q_text(db, Q("p.tool_name")), "nvbench");
    assert_string_equal(q_text(db, Q("p.tool_version")), "0.1.0");
#undef Q
    assert_non_null(strstr(q_text(db, "SELECT reason FROM runs WHERE status = 'skipped'"),
                           "skipped by nvbench: Not enough memory"));
    assert_string_equal(q_text(db, "SELECT c.dtype FROM configs c JOIN runs r ON r.id = c.run_id WHERE r.status = 'skipped'"),
                        "fp16");

    /* with the sample file next to the JSON: real samples and a median */
    sb_import_stats st2 = {0};
    assert_int_equal(sb_import_file(f->ing, DATA "nvbench_bin.json", "nvbench-json", &st2, &err), SB_OK);
    assert_int_equal(st2.stored, 1);
    const char *bin = "FROM runs r JOIN metrics m ON m.run_id = r.id WHERE r.source_path LIKE '%nvbench_bin.json%'";
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, bin), sql)
    assert_int_equal(q_int(db, Q("m.quantiles_only")), 0);
    assert_int_equal(q_int(db, Q("m.sample_count")), 5);
    assert_true(fabs(q_real(db, Q("m.median_ms")) - 0.012) < 1e-8);
    /* bandwidth x mean is every byte declared, named or not: the named
     * reads and writes (6 MiB) leave 2 MiB out */
    assert_true(q_real(db, Q("m.bytes")) == 8388608.0);
    assert_true(fabs(q_real(db, Q("m.gbps")) - 8388608.0 / 1.2e-5 / 1e9) < 0.01);
#undef Q
    assert_int_equal(q_int(db, "SELECT length(s.value_ms) / 8 FROM run_samples s JOIN runs r ON r.id = s.run_id "
                               "WHERE r.source_path LIKE '%nvbench_bin.json%'"), 5);
    /* the per-sample SM clocks (nvbench_bin.json-freqs-bin/0.bin, Hz as
     * float32: 1980, 1980, 1755, 1965, 1980 MHz) kept in MHz, one repeat
     * parallel to the samples */
#define CLK(k) "SELECT json_extract(raw_json, '$.timing.sample_sm_clock_mhz" k "') FROM runs " \
               "WHERE source_path LIKE '%nvbench_bin.json%'"
    assert_int_equal(q_int(db, "SELECT json_array_length(raw_json, '$.timing.sample_sm_clock_mhz') FROM runs "
                               "WHERE source_path LIKE '%nvbench_bin.json%'"), 1);
    assert_int_equal(q_int(db, "SELECT json_array_length(raw_json, '$.timing.sample_sm_clock_mhz[0]') FROM runs "
                               "WHERE source_path LIKE '%nvbench_bin.json%'"), 5);
    assert_true(fabs(q_real(db, CLK("[0][0]")) - 1980.0) < 1e-3);
    assert_true(fabs(q_real(db, CLK("[0][1]")) - 1980.0) < 1e-3);
    assert_true(fabs(q_real(db, CLK("[0][2]")) - 1755.0) < 1e-3);
    assert_true(fabs(q_real(db, CLK("[0][3]")) - 1965.0) < 1e-3);
    assert_true(fabs(q_real(db, CLK("[0][4]")) - 1980.0) < 1e-3);
    /* and no longer summarised in run_params */
    assert_int_equal(q_int(db, "SELECT json_extract(raw_json, '$.config.run_params.sm_clock_samples_min_mhz') IS NULL "
                               "FROM runs WHERE source_path LIKE '%nvbench_bin.json%'"), 1);
#undef CLK
    assert_non_null(strstr(q_text(db, "SELECT notes FROM runs WHERE source_path LIKE '%nvbench_bin.json%'"),
                           "SM clock of each sample from nvbench_bin.json-freqs-bin/0.bin: 1755 to 1980 MHz, median 1980"));

    assert_int_equal(sb_import_file(f->ing, DATA "nvbench_v2.json", NULL, NULL, &err), SB_ERR);
    expect_error(&err, "/meta/version/json/major");
    expect_error(&err, "version 2.0.0");
    assert_int_equal(sb_import_file(f->ing, DATA "nvbench_baddevice.json", NULL, NULL, &err), SB_ERR);
    expect_error(&err, "/benchmarks/0/states/0");
    expect_error(&err, "\"device\"");
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM runs"), 4);
}

/* nvbench_axes.json follows nvbench's json_printer (file version 1.0.0,
 * the summaries of an nvbench with median and quartiles): a type axis and
 * an int64 axis, float64 and string axes with skipped states, and a
 * benchmark without axes. It is a format-conformant fixture written from
 * nvbench's printer and examples, not a file nvbench wrote. */
static void test_nvbench_axes(void **state)
{
    fixture *f = *state;
    sqlite3 *db = f->db;
    sb_import_stats st = {0};
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_import_file(f->ing, DATA "nvbench_axes.json", NULL, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.runs, 10);
    assert_int_equal(st.skipped_runs, 2);
    char sql[1024];
    const char *m = "SELECT %s FROM configs c JOIN runs r ON r.id = c.run_id LEFT JOIN metrics m ON m.run_id = c.run_id "
                    "JOIN provenance p ON p.run_id = c.run_id WHERE %s";
#define Q(expr, where) (snprintf(sql, sizeof sql, m, expr, where), sql)
    /* type axis -> dtype and params, int64 axis -> shape */
    const char *f64 = "c.op = 'copy_type_sweep' AND json_extract(c.params_json, '$.T') = 'F64'";
    assert_string_equal(q_text(db, Q("c.dtype", f64)), "fp64");
    assert_string_equal(q_text(db, Q("c.shape_key", f64)), "Elements=1048576");
    assert_int_equal(q_int(db, Q("m.quantiles_only", f64)), 1);
    assert_near(q_real(db, Q("m.mean_ms", f64)), 0.016);
    assert_near(q_real(db, Q("m.median_ms", f64)), 0.0158);
    assert_near(q_real(db, Q("m.stdev_ms", f64)), 0.0002);
    assert_near(q_real(db, Q("m.min_ms", f64)), 0.015);
    assert_int_equal(q_int(db, Q("m.sample_count", f64)), 1235);
    assert_true(q_isnull(db, Q("m.p20_ms", f64)));
    assert_true(q_real(db, Q("m.bytes", f64)) == 16777216.0);
    assert_near(q_real(db, Q("m.gbps", f64)), 16777216.0 / 0.0158e-3 / 1e9);
    /* a type nvbench names but solbook has no dtype for */
    assert_string_equal(q_text(db, Q("c.dtype", "json_extract(c.params_json, '$.T') = 'I32'")), "unknown");
    /* compute capability 8.6, a card outside data/skus.csv */
    assert_string_equal(q_text(db, Q("p.arch", f64)), "sm86");
    assert_string_equal(q_text(db, Q("p.compute_capability", f64)), "8.6");
    assert_string_equal(q_text(db, Q("p.sku", f64)), "unknown-nvidia-rtx-a6000");
    /* float64 and string axes only: params, an empty shape */
    const char *bar = "c.op = 'runtime_skip' AND json_extract(c.params_json, '$.Kramble') = 'Bar' "
                      "AND json_extract(c.params_json, '$.Duration') = 0.0001";
    assert_string_equal(q_text(db, Q("c.shape_key", bar)), "");
    assert_string_equal(q_text(db, Q("r.status", bar)), "passed");
    assert_near(q_real(db, Q("m.median_ms", bar)), 0.1002);
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM configs WHERE op = 'runtime_skip'"), 6);
    assert_string_equal(q_text(db, Q("r.reason", "c.op = 'runtime_skip' AND json_extract(c.params_json, '$.Kramble') = "
                                                  "'Foo' AND json_extract(c.params_json, '$.Duration') = 0.0005")),
                        "skipped by nvbench: Long 'Foo' benchmarks are skipped.");
    /* no axes: the declared element count is the shape; bandwidth x mean
     * gives the reads and the unnamed writes */
    const char *tp = "c.op = 'throughput_bench'";
    assert_string_equal(q_text(db, Q("c.shape_key", tp)), "NumElements=16777216");
    assert_string_equal(q_text(db, Q("c.params_json", tp)), "{}");
    assert_true(q_real(db, Q("m.bytes", tp)) == 134217728.0);
#undef Q
    /* touched or copied, the file stores nothing new */
    const char *when = "SELECT group_concat(DISTINCT started_at) FROM provenance";
    char first[4096];
    snprintf(first, sizeof first, "%s", q_text(db, when));
    struct timespec later[2] = {{.tv_sec = 1700000000}, {.tv_sec = 1700000000}};
    char dir[] = "/tmp/solbook-test-nvbench-XXXXXX", copy[256];
    assert_non_null(mkdtemp(dir));
    snprintf(copy, sizeof copy, "%s/nvbench_axes.json", dir);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(sb_file_read_all(DATA "nvbench_axes.json", &text, &len, &err), SB_OK);
    assert_int_equal(sb_file_write_atomic(copy, text, len, &err), SB_OK);
    free(text);
    assert_int_equal(utimensat(AT_FDCWD, copy, later, 0), 0);
    sb_import_stats again = {0};
    assert_int_equal(sb_import_file(f->ing, copy, NULL, &again, &err), SB_OK);
    assert_int_equal(again.stored, 0);
    assert_int_equal(again.duplicates, 10);
    assert_string_equal(q_text(db, when), first);
    /* the same file with one figure changed is a new run with its own time */
    assert_int_equal(sb_file_read_all(DATA "nvbench_axes.json", &text, &len, &err), SB_OK);
    char *at = strstr(text, "\"1234\"");
    assert_non_null(at);
    memcpy(at, "\"1299\"", 6);
    assert_int_equal(sb_file_write_atomic(copy, text, len, &err), SB_OK);
    free(text);
    assert_int_equal(utimensat(AT_FDCWD, copy, later, 0), 0);
    sb_import_stats changed = {0};
    assert_int_equal(sb_import_file(f->ing, copy, NULL, &changed, &err), SB_OK);
    assert_int_equal(changed.stored, 1);
    assert_string_equal(q_text(db, "SELECT p.started_at FROM provenance p JOIN metrics m ON m.run_id = p.run_id "
                                   "WHERE m.sample_count = 1299"), "2023-11-14T22:13:20Z");
    unlink(copy);
    rmdir(dir);
}

/* ---- Google Benchmark ---- */

static void test_gbench_stored(void **state)
{
    fixture *f = *state;
    sqlite3 *db = f->db;
    sb_error err;
    sb_error_clear(&err);
    /* BM_gemm names no dtype: without --dtype it is dtype "unknown" */
    json_t *docs = NULL;
    assert_int_equal(sb_import_convert(DATA "gbench.json", NULL, NULL, &docs, NULL, &err), SB_OK);
    size_t unknown = 0, k;
    json_t *d;
    json_array_foreach(docs, k, d) {
        json_t *c = json_object_get(d, "config");
        if (strcmp(json_string_value(json_object_get(c, "op")), "gemm") == 0) {
            assert_string_equal(json_string_value(json_object_get(c, "dtype")), "unknown");
            unknown++;
        }
    }
    assert_int_equal(unknown, 1);
    json_decref(docs);

    sb_import_options opts = {.dtype = "fp32"};
    sb_import_stats st = {0};
    int rc = sb_import_file_opts(f->ing, DATA "gbench.json", NULL, &opts, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.rows, 15);
    assert_int_equal(st.runs, 4);
    assert_int_equal(st.skipped_runs, 1);
    assert_int_equal(st.stored, 4);

    const char *copy = "FROM configs c JOIN metrics m ON m.run_id = c.run_id JOIN provenance p ON p.run_id = c.run_id "
                       "WHERE c.op = 'copy' AND c.dtype = 'fp32'";
    char sql[1024];
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, copy), sql)
    assert_string_equal(q_text(db, Q("c.shape_key")), "arg0=1024");
    assert_string_equal(q_text(db, Q("json_extract(c.params_json, '$.timing')")), "manual_time");
    assert_string_equal(q_text(db, Q("json_extract(c.params_json, '$.template')")), "float");
    assert_string_equal(q_text(db, Q("c.provider")), "gbench");
    assert_string_equal(q_text(db, Q("c.backend")), "cpu");
    assert_int_equal(q_int(db, Q("c.repeats")), 3);
    assert_int_equal(q_int(db, Q("m.sample_count")), 3);
    assert_int_equal(q_int(db, Q("m.quantiles_only")), 0);
    assert_near(q_real(db, Q("m.median_ms")), 0.0011);
    assert_near(q_real(db, Q("m.mean_ms")), 0.0011);
    assert_near(q_real(db, Q("m.min_ms")), 0.0010);
    assert_near(q_real(db, Q("m.stdev_ms")), 0.0001);
    assert_near(q_real(db, Q("m.bytes")), 4096.0);
    assert_string_equal(q_text(db, Q("p.device_kind")), "cpu");
    assert_string_equal(q_text(db, Q("p.sku")), "cpu");
    assert_string_equal(q_text(db, Q("p.hostname")), "bench-host");
    assert_string_equal(q_text(db, Q("p.tool_name")), "google-benchmark");
    assert_string_equal(q_text(db, Q("p.tool_version")), "v1.8.3");
    assert_string_equal(q_text(db, Q("p.started_at")), "2025-03-04T09:20:30Z");
#undef Q
    /* three repetitions, one sample each; the second is 1.2 us */
    assert_string_equal(q_text(db, "SELECT s.rep_lengths FROM run_samples s JOIN configs c ON c.run_id = s.run_id "
                                   "WHERE c.op = 'copy' AND c.dtype = 'fp32'"),
                        "[1,1,1]");
    double *v;
    size_t nv;
    sb_db *h;
    assert_int_equal(sb_db_open(f->db_path, SB_DB_READ, &h, &err), SB_OK);
    assert_int_equal(sb_samples_load(h, q_int(db, "SELECT run_id FROM configs WHERE op = 'copy' AND dtype = 'fp32'"),
                                     &v, &nv, &err),
                     SB_OK);
    sb_db_close(h);
    assert_int_equal(nv, 3);
    assert_near(v[1], 0.0012);
    free(v);
    /* __half template, milliseconds */
    assert_near(q_real(db, "SELECT m.median_ms FROM metrics m JOIN configs c ON c.run_id = m.run_id "
                           "WHERE c.op = 'copy' AND c.dtype = 'fp16'"), 0.002);

    const char *gemm = "FROM configs c JOIN metrics m ON m.run_id = c.run_id WHERE c.op = 'gemm'";
#define Q(expr) (snprintf(sql, sizeof sql, "SELECT %s %s", expr, gemm), sql)
    assert_string_equal(q_text(db, Q("c.shape_key")), "K=128,M=512,N=256");
    assert_string_equal(q_text(db, Q("c.dtype")), "fp32");
    assert_int_equal(q_int(db, Q("m.quantiles_only")), 1);
    assert_near(q_real(db, Q("m.median_ms")), 0.0024);
    assert_near(q_real(db, Q("m.mean_ms")), 0.0025);
    assert_near(q_real(db, Q("m.stdev_ms")), 0.0001);
    assert_near(q_real(db, Q("m.rel_noise")), 0.04);
    assert_int_equal(q_int(db, Q("m.sample_count")), 3);
    assert_true(q_isnull(db, Q("m.min_ms")));
#undef Q
    assert_string_equal(q_text(db, "SELECT c.dtype FROM configs c JOIN runs r ON r.id = c.run_id WHERE r.status = 'skipped'"),
                        "fp64");
    assert_non_null(strstr(q_text(db, "SELECT reason FROM runs WHERE status = 'skipped'"), "cudaMalloc failed"));
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM configs WHERE op = 'complex'"), 0);

    assert_int_equal(sb_import_file_opts(f->ing, DATA "gbench_badunit.json", NULL, &opts, NULL, &err), SB_ERR);
    expect_error(&err, "/benchmarks/1");
    expect_error(&err, "time_unit");
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM runs"), 4);
}

/* tests/import/gbench_sample.cc's own output (Google Benchmark 1.7.1 on
 * this project's build machine): the figures each benchmark declares
 * come back exactly. */
static void test_gbench_real_output(void **state)
{
    fixture *f = *state;
    sqlite3 *db = f->db;
    sb_error err;
    sb_error_clear(&err);
    sb_import_stats st = {0};
    int rc = sb_import_file(f->ing, DATA "gbench_sample.json", NULL, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.rows, 18);
    assert_int_equal(st.runs, 7); /* memcpy x3, sum, sort x3; BigO and RMS are not runs */
    const char *m = "SELECT %s FROM configs c JOIN metrics m ON m.run_id = c.run_id JOIN runs r ON r.id = c.run_id "
                    "JOIN provenance p ON p.run_id = c.run_id WHERE %s";
    char sql[1024];
#define Q(expr, where) (snprintf(sql, sizeof sql, m, expr, where), sql)
    /* 1 MiB memcpy, CPU time: SetBytesProcessed(iterations * 1048576) */
    assert_string_equal(q_text(db, Q("c.dtype", "c.shape_key = 'arg0=1048576'")), "unknown");
    assert_int_equal(q_int(db, Q("m.bytes", "c.shape_key = 'arg0=1048576'")), 1048576);
    assert_true(q_real(db, Q("m.bytes", "c.shape_key = 'arg0=1048576'")) == 1048576.0);
    /* UseRealTime, 3 repetitions with aggregates: the repetitions are the samples */
    const char *rt = "c.shape_key = 'arg0=4096'";
    assert_true(q_real(db, Q("m.bytes", rt)) == 4096.0);
    assert_string_equal(q_text(db, Q("json_extract(c.params_json, '$.timing')", rt)), "real_time");
    assert_int_equal(q_int(db, Q("m.sample_count", rt)), 3);
    assert_int_equal(q_int(db, Q("m.quantiles_only", rt)), 0);
    assert_near(q_real(db, Q("m.median_ms", rt)), 90.37482757163886e-6);
    /* ReportAggregatesOnly: mean, median, stddev, cv of 3 repetitions */
    const char *agg = "c.shape_key = 'arg0=65536'";
    assert_int_equal(q_int(db, Q("m.quantiles_only", agg)), 1);
    assert_int_equal(q_int(db, Q("m.sample_count", agg)), 3);
    assert_near(q_real(db, Q("m.median_ms", agg)), 5334.5997999940655e-6);
    assert_near(q_real(db, Q("m.mean_ms", agg)), 6232.9051333260095e-6);
    assert_true(q_real(db, Q("m.bytes", agg)) == 65536.0);
    /* SetItemsProcessed(iterations * 1000), a <float> template */
    const char *sum = "c.op = 'sum'";
    assert_string_equal(q_text(db, Q("c.dtype", sum)), "fp32");
    assert_int_equal(q_int(db, Q("json_extract(c.params_json, '$.items_per_call')", sum)), 1000);
    assert_true(q_isnull(db, Q("m.bytes", sum)));
    /* the complexity family: three timed sizes, the fit named in the notes */
    assert_int_equal(q_int(db, "SELECT COUNT(*) FROM configs WHERE op = 'sort'"), 3);
    assert_non_null(strstr(q_text(db, Q("r.notes", "c.shape_key = 'arg0=1024' AND c.op = 'sort'")),
                           "complexity fit of this family (BigO, RMS) is not imported"));
    assert_string_equal(q_text(db, Q("p.started_at", sum)), "2026-11-26T15:42:31Z");
    assert_string_equal(q_text(db, Q("p.hostname", sum)), "vm");
    assert_int_equal(q_int(db, Q("p.sm_count", sum)), 2); /* context.num_cpus */
#undef Q
}

/* torch_benchmark.json is in the layout bench/scripts/torch_benchmark_dump.py
 * writes (the shim's own test, e2e_import_torch, needs torch): a Measurement
 * of 5 blocks of 100 calls and a do_bench list in ms. */
static void test_torch_benchmark(void **state)
{
    fixture *f = *state;
    sqlite3 *db = f->db;
    sb_error err;
    sb_error_clear(&err);
    const char *format = NULL;
    assert_int_equal(sb_import_detect(DATA "torch_benchmark.json", &format, &err), SB_OK);
    assert_string_equal(format, "torch-benchmark-json");
    sb_import_stats st = {0};
    int rc = sb_import_file(f->ing, DATA "torch_benchmark.json", NULL, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st.stored, 2);
    const char *m = "SELECT %s FROM configs c JOIN metrics m ON m.run_id = c.run_id JOIN runs r ON r.id = c.run_id "
                    "JOIN provenance p ON p.run_id = c.run_id WHERE c.provider = '%s'";
    char sql[1024];
#define Q(expr, prov) (snprintf(sql, sizeof sql, m, expr, prov), sql)
    /* raw_times are seconds per block of number_per_run calls: 0.0126 s / 100 = 0.126 ms */
    assert_true(q_real(db, Q("m.median_ms", "torch")) == 0.0126 / 100 * 1e3);
    assert_int_equal(q_int(db, Q("m.sample_count", "torch")), 5);
    assert_string_equal(q_text(db, Q("c.shape_key", "torch")), "K=1024,M=1024,N=1024");
    assert_string_equal(q_text(db, Q("c.dtype", "torch")), "bf16");
    assert_string_equal(q_text(db, Q("c.backend", "torch")), "torch");
    assert_string_equal(q_text(db, Q("p.sku", "torch")), "h100-sxm5-80gb");
    assert_string_equal(q_text(db, Q("p.tool_name", "torch")), "torch.utils.benchmark");
    assert_int_equal(q_int(db, Q("json_extract(r.raw_json, '$.config.run_params.calls_per_sample')", "torch")), 100);
    assert_non_null(strstr(q_text(db, Q("r.notes", "torch")), "records no commit"));
    /* do_bench times are ms as returned: median of 0.119 0.121 0.122 0.125 */
    assert_true(q_real(db, Q("m.median_ms", "triton")) == (0.121 + 0.122) / 2);
    assert_int_equal(q_int(db, Q("m.sample_count", "triton")), 4);
    assert_string_equal(q_text(db, Q("c.backend", "triton")), "triton");
#undef Q
}

/* triton.testing.perf_report's CSV: one rounded figure a case, read as
 * the caller says; the notes name what the format lost. */
static void test_triton_perf_csv(void **state)
{
    fixture *f = *state;
    sqlite3 *db = f->db;
    sb_error err;
    sb_error_clear(&err);
    sb_import_options o = {0};
    sb_import_stats st = {0};
    /* The file says neither unit nor statistic: both must be given. */
    assert_int_equal(sb_import_file_opts(f->ing, DATA "triton_perf/softmax-performance.csv", "triton-perf-csv", &o,
                                         &st, &err),
                     SB_ERR);
    expect_error(&err, "give --y-unit");
    o.y_unit = "ms";
    sb_error_clear(&err);
    assert_int_equal(sb_import_file_opts(f->ing, DATA "triton_perf/softmax-performance.csv", "triton-perf-csv", &o,
                                         &st, &err),
                     SB_ERR);
    expect_error(&err, "give --y-stat");
    o.y_stat = "median";
    sb_error_clear(&err);
    int rc = sb_import_file_opts(f->ing, DATA "triton_perf/softmax-performance.csv", "triton-perf-csv", &o, &st, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    /* 4 rows x 2 providers, one figure missing (NaN written empty). */
    assert_int_equal(st.rows, 4);
    assert_int_equal(st.stored, 7);
    assert_int_equal(q_int(db, "SELECT count(*) FROM configs WHERE op = 'softmax-performance'"), 7);
    assert_true(q_real(db, "SELECT m.median_ms FROM metrics m JOIN configs c USING (run_id) "
                           "WHERE c.provider = 'torch' AND c.shape_key = 'N=8192'") == 0.161792);
    assert_int_equal(q_int(db, "SELECT m.quantiles_only FROM metrics m JOIN configs c USING (run_id) "
                               "WHERE c.provider = 'torch' AND c.shape_key = 'N=8192'"), 1);
    assert_true(q_isnull(db, "SELECT m.mean_ms FROM metrics m JOIN configs c USING (run_id) "
                             "WHERE c.provider = 'torch' AND c.shape_key = 'N=8192'"));
    assert_int_equal(q_int(db, "SELECT count(*) FROM configs WHERE provider = 'torch' AND shape_key = 'N=4096'"), 0);
    assert_string_equal(q_text(db, "SELECT backend || ' ' || dtype || ' ' || suite FROM configs "
                                   "WHERE provider = 'triton' AND shape_key = 'N=256'"),
                        "triton unknown triton-perf-report");
    const char *notes = q_text(db, "SELECT r.notes FROM runs r JOIN configs c ON c.run_id = r.id "
                                   "WHERE c.provider = 'triton' AND c.shape_key = 'N=1024'");
    assert_non_null(strstr(notes, "line 3, column \"Triton\": lossy import"));
    assert_non_null(strstr(notes, "read as the median in ms"));
    assert_non_null(strstr(notes, "no samples"));
    assert_non_null(strstr(notes, "rounded to 6 decimals"));
    assert_string_equal(q_text(db, "SELECT json_extract(r.raw_json, '$.source.file') || ':' || "
                                   "json_extract(r.raw_json, '$.source.row') FROM runs r JOIN configs c ON c.run_id = r.id "
                                   "WHERE c.provider = 'triton' AND c.shape_key = 'N=1024'"),
                        "softmax-performance.csv:3");
    /* Re-importing stores nothing new. */
    sb_import_stats again = {0};
    assert_int_equal(sb_import_file_opts(f->ing, DATA "triton_perf/softmax-performance.csv", "triton-perf-csv", &o,
                                         &again, &err),
                     SB_OK);
    assert_int_equal(again.stored, 0);
    assert_int_equal(again.duplicates, 7);

    /* Three x columns written as floats, one decimal, microseconds read
     * exactly (12.3 us is the double nearest 0.0123 ms), as the mean. */
    sb_import_options o2 = {.y_unit = "us", .y_stat = "mean", .x_cols = 3, .dtype = "fp16"};
    sb_import_stats st2 = {0};
    rc = sb_import_file_opts(f->ing, DATA "triton_perf/matmul-performance-fp16.csv", "triton-perf-csv", &o2, &st2,
                             &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(st2.stored, 4);
    assert_true(q_real(db, "SELECT m.mean_ms FROM metrics m JOIN configs c USING (run_id) "
                           "WHERE c.provider = 'cublas' AND c.shape_key = 'K=512,M=512,N=512'") == 0.0123);
    assert_true(q_isnull(db, "SELECT m.median_ms FROM metrics m JOIN configs c USING (run_id) "
                             "WHERE c.provider = 'cublas' AND c.shape_key = 'K=512,M=512,N=512'"));
    assert_string_equal(q_text(db, "SELECT dtype FROM configs WHERE provider = 'cublas' LIMIT 1"), "fp16");
    assert_non_null(strstr(q_text(db, "SELECT r.notes FROM runs r JOIN configs c ON c.run_id = r.id "
                                      "WHERE c.provider = 'cublas' LIMIT 1"),
                           "rounded to 1 decimal (perf_report"));
}

/* Bad figures and layouts are refused with the file and the line; nothing
 * from the file is stored. */
static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Triton 3.x's "LINE (YLABEL)" columns: the label is cut from the
 * provider's name, and a label ending in a time unit gives the unit, so
 * --y-unit may be left out. */
static void test_triton_perf_csv_label(void **state)
{
    fixture *f = *state;
    char dir[] = "/tmp/solbook-triton-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/rms-norm.csv", dir);
    write_text(path, "N,Triton (Runtime (us)),Torch (Runtime (us))\n1024.000000,12.300000,20.100000\n");
    sb_import_options o = {.y_stat = "median"};
    sb_import_stats st = {0};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_import_file_opts(f->ing, path, "triton-perf-csv", &o, &st, &err), SB_OK);
    assert_int_equal(st.stored, 2);
    assert_string_equal(q_text(f->db, "SELECT group_concat(provider || '=' || median_ms, ' ') FROM (SELECT provider, "
                                      "median_ms FROM configs JOIN metrics USING (run_id) ORDER BY provider)"),
                        "torch=0.0201 triton=0.0123");
    assert_string_equal(q_text(f->db, "SELECT shape_key FROM configs LIMIT 1"), "N=1024");
    assert_non_null(strstr(q_text(f->db, "SELECT notes FROM runs LIMIT 1"),
                           "read as the median in us (--y-stat: the file does not say which statistic; the unit from "
                           "the columns' label)"));
    unlink(path);
    rmdir(dir);
}

/* A column label longer than the 200 bytes a note quotes, a two-byte
 * character across the cut: the note quotes the label up to the whole
 * character before it, and is stored (cut inside the character, it was
 * no UTF-8, so no JSON text, and the run lost the note that says the
 * import is lossy). */
static void test_triton_perf_csv_long_label(void **state)
{
    fixture *f = *state;
    char dir[] = "/tmp/solbook-triton-XXXXXX", path[256], text[512], want[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/long.csv", dir);
    char label[202];
    memset(label, 'a', 199);
    label[199] = '\0';
    snprintf(text, sizeof text, "N,%s\xc3\xa9 (ms)\n256,0.1\n", label);
    write_text(path, text);
    sb_import_options o = {.y_stat = "median"};
    sb_import_stats st = {0};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_import_file_opts(f->ing, path, "triton-perf-csv", &o, &st, &err), SB_OK);
    assert_int_equal(st.stored, 1);
    const char *notes = q_text(f->db, "SELECT notes FROM runs WHERE source_path LIKE '%long.csv%'");
    assert_non_null(notes);
    snprintf(want, sizeof want, "column \"%s\": lossy import", label);
    assert_non_null(strstr(notes, want));
    unlink(path);
    rmdir(dir);
}

static void test_triton_perf_csv_refused(void **state)
{
    fixture *f = *state;
    char dir[] = "/tmp/solbook-triton-XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"N,Triton\n256,0.5\n512,fast\n", "line 3: \"Triton\" fast is not a non-negative number"},
        {"N,Triton\n256,-0.5\n", "line 2: \"Triton\" -0.5 is not a non-negative number"},
        {"N,Triton\n256,0.5,0.7\n", "line 2: 3 fields, the header has 2"},
        {"N\n256\n", "line 1: 1 column: the 1 x column and no provider column"},
        {"N,Triton,Triton\n256,0.5,0.6\n", "line 1: column \"Triton\" appears twice"},
        {"N,Triton\n,0.5\n", "line 2: x value \"N\" is empty"},
        {"mode,Triton\nfwd,0.5\n", "line 2: no whole number >= 0 among the x values"},
        /* newer Triton's "LINE (YLABEL)" columns: a label that is a time
         * unit must agree with --y-unit (ms here), and a rate is no time */
        {"N,Triton (us),Torch (us)\n256,5.5,6.1\n", "line 1: the columns are labelled \"us\" but --y-unit is ms"},
        {"N,Triton (GB/s),Torch (GB/s)\n256,900.5,700.1\n",
         "line 1: the columns are labelled \"GB/s\", a rate, not a time"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/bad%zu.csv", dir, i);
        write_text(path, bad[i].text);
        sb_import_options o = {.y_unit = "ms", .y_stat = "median"};
        sb_import_stats st = {0};
        sb_error err;
        sb_error_clear(&err);
        assert_int_equal(sb_import_file_opts(f->ing, path, "triton-perf-csv", &o, &st, &err), SB_ERR);
        assert_string_equal(err.file, path);
        expect_error(&err, bad[i].needle);
        unlink(path);
    }
    rmdir(dir);
    assert_int_equal(q_int(f->db, "SELECT count(*) FROM runs"), 0);
}

/* nvbench_bin.json copied to dir/t.json with its sample file name
 * replaced by name. */
static void write_nvbench_naming(const char *dir, const char *name)
{
    char *buf = NULL;
    size_t len = 0;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_file_read_all(DATA "nvbench_bin.json", &buf, &len, &err), SB_OK);
    const char *old = "build/nvbench_bin.json-bin/0.bin";
    char *at = strstr(buf, old);
    assert_non_null(at);
    char path[512];
    snprintf(path, sizeof path, "%s/t.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s%s", (int)(at - buf), buf, name, at + strlen(old));
    fclose(f);
    free(buf);
}

/* A sample file's name comes from the document: the importer reads only
 * inside the JSON's folder and refuses "..", links and non-.bin names with
 * one line, storing nothing from the file. */
static void test_nvbench_confined(void **state)
{
    fixture *f = *state;
    char top[] = "/tmp/solbook-test-confined-XXXXXX";
    assert_non_null(mkdtemp(top));
    char dir[256], path[512], bins[512], secret[512], outside[512];
    snprintf(dir, sizeof dir, "%s/doc", top);
    snprintf(bins, sizeof bins, "%s/t.json-bin", dir);
    snprintf(secret, sizeof secret, "%s/secret.bin", top); /* 20 bytes: the size the JSON records */
    snprintf(outside, sizeof outside, "%s/elsewhere", top);
    snprintf(path, sizeof path, "%s/t.json", dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(mkdir(outside, 0700), 0);
    FILE *sf = fopen(secret, "wb");
    assert_non_null(sf);
    float v[5] = {1e-5f, 1e-5f, 1e-5f, 1e-5f, 1e-5f};
    fwrite(v, 4, 5, sf);
    fclose(sf);
    char link_to[600];
    snprintf(link_to, sizeof link_to, "%s/0.bin", outside);
    assert_int_equal(symlink(secret, link_to), 0);

    static const struct { const char *name, *needle; } cases[] = {
        {"../secret.bin", "has a \"..\" part: refused"},
        {"x/../../secret.bin", "has a \"..\" part: refused"},
        {"t.json-bin/passwd", "is not an nvbench .bin file: refused"},
    };
    sb_error err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_nvbench_naming(dir, cases[i].name);
        sb_error_clear(&err);
        assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
        expect_error(&err, cases[i].needle);
        expect_error(&err, "/benchmarks/0/states/0");
        char line[3000];
        sb_error_format(&err, line, sizeof line);
        assert_null(strchr(line, '\n'));
    }
    /* the sample file a link to a file outside */
    write_nvbench_naming(dir, "t.json-bin/0.bin");
    assert_int_equal(mkdir(bins, 0700), 0);
    char bin0[600];
    snprintf(bin0, sizeof bin0, "%s/0.bin", bins);
    assert_int_equal(symlink(secret, bin0), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "\"t.json-bin/0.bin\" is a symbolic link: refused");
    unlink(bin0);
    rmdir(bins);
    /* the -bin folder a link to a folder outside */
    assert_int_equal(symlink(outside, bins), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "is a symbolic link: refused");
    unlink(bins);
    /* a FIFO where the sample file should be: refused, not waited on */
    assert_int_equal(mkdir(bins, 0700), 0);
    assert_int_equal(mkfifo(bin0, 0600), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "is not a regular file: refused");
    unlink(bin0);
    /* a hard link to the file outside: a name inside the folder for bytes
     * that lie elsewhere (their samples would be stored and shipped) */
    assert_int_equal(link(secret, bin0), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "\"t.json-bin/0.bin\" is a hard link (2 names): refused");
    unlink(bin0);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 0);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM run_samples"), 0);

    /* the real thing inside the folder is read: samples and the SM clock */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%snvbench_bin.json-bin/0.bin' '%s'", DATA, bin0);
    assert_int_equal(system(cmd), 0);
    sb_error_clear(&err);
    int rc = sb_import_file(f->ing, path, NULL, NULL, &err);
    if (rc != SB_OK)
        sb_error_print(&err, stderr);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(q_int(f->db, "SELECT length(value_ms) / 8 FROM run_samples"), 5);
    assert_int_equal(q_int(f->db, "SELECT json_extract(raw_json, '$.provenance.device.clocks.sm_max_mhz') FROM runs"), 1980);
    assert_non_null(strstr(q_text(f->db, "SELECT notes FROM runs"), "nvbench records no commit"));
    /* its per-sample clock file is named "build/nvbench_bin.json-freqs-bin/0.bin",
     * not there: the samples are kept and the notes say why no clocks */
    assert_non_null(strstr(q_text(f->db, "SELECT notes FROM runs"),
                           "per-sample SM clocks not read: clock file nvbench_bin.json-freqs-bin/0.bin not found"));

    /* the clock file goes through the same checks as the sample file: a
     * link out of the folder is refused with one line, storing nothing */
    char freqs[600], freq0[700];
    snprintf(freqs, sizeof freqs, "%s/nvbench_bin.json-freqs-bin", dir);
    snprintf(freq0, sizeof freq0, "%s/0.bin", freqs);
    assert_int_equal(mkdir(freqs, 0700), 0);
    assert_int_equal(symlink(secret, freq0), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "clock file \"build/nvbench_bin.json-freqs-bin/0.bin\"");
    expect_error(&err, "is a symbolic link: refused");
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 1);
    unlink(freq0);
    /* a clock file of another length than 4 x the samples is not used */
    FILE *ff = fopen(freq0, "wb");
    assert_non_null(ff);
    float hz[4] = {1.98e9f, 1.98e9f, 1.98e9f, 1.98e9f};
    fwrite(hz, 4, 4, ff);
    fclose(ff);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_OK);
    /* (a new run: its notes differ from the first import's) */
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 2);
    assert_non_null(strstr(q_text(f->db, "SELECT notes FROM runs ORDER BY id DESC LIMIT 1"),
                           "clock file nvbench_bin.json-freqs-bin/0.bin holds 16 bytes, not 4 x 5"));
    assert_int_equal(q_int(f->db, "SELECT json_extract(raw_json, '$.timing.sample_sm_clock_mhz') IS NULL "
                                  "FROM runs ORDER BY id DESC LIMIT 1"), 1);
    /* a clock that is no rate (0 Hz) refuses the file */
    ff = fopen(freq0, "wb");
    assert_non_null(ff);
    float hz0[5] = {1.98e9f, 0.0f, 1.98e9f, 1.98e9f, 1.98e9f};
    fwrite(hz0, 4, 5, ff);
    fclose(ff);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "clock file nvbench_bin.json-freqs-bin/0.bin holds a value that is not a clock rate in Hz");
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 2);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    assert_int_equal(system(cmd), 0);
}

/* asv's parameter names come from results/benchmarks.json, one folder above
 * the results file; by position without it or when its benchmark version
 * differs; a link or a malformed file there refuses the import. The
 * results file is the held-out one asv wrote (tests/data/ingest/heldout). */
static void test_asv_param_names(void **state)
{
    fixture *f = *state;
    char top[] = "/tmp/solbook-test-asv-XXXXXX";
    assert_non_null(mkdtemp(top));
    const char *held = SOLBOOK_TEST_DATA "/ingest/heldout/asv/results";
    const char *file = "5e46367f-existing-py_work_main_.venv-import_bin_python3.json";
    char cmd[2400], path[600], bj[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/results/heldout' && cp '%s/heldout/%s' '%s/heldout/machine.json' '%s/results/heldout/'",
             top, held, file, held, top);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/results/heldout/%s", top, file);
    snprintf(bj, sizeof bj, "%s/results/benchmarks.json", top);
    sb_error err;

    /* without benchmarks.json: asv's default names, and the notes say so */
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_OK);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE json_extract(raw_json, '$.config.shape.param1') = 512 "
                                  "AND json_extract(raw_json, '$.config.params.param2') = 'bytes'"), 1);
    assert_non_null(strstr(q_text(f->db, "SELECT notes FROM runs LIMIT 1"), "parameters named by position"));

    /* with it: length and kind, for every combination */
    snprintf(cmd, sizeof cmd, "cp '%s/benchmarks.json' '%s'", held, bj);
    assert_int_equal(system(cmd), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_OK);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE json_extract(raw_json, '$.config.shape.length') IN (64, 512) "
                                  "AND json_extract(raw_json, '$.config.params.kind') IN ('str', 'bytes') "
                                  "AND instr(notes, 'named by position') = 0"), 4);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 8);

    /* another benchmark version: its names may not fit, so by position
     * (the same runs as the first import: nothing new) */
    snprintf(cmd, sizeof cmd, "sed -i 's/\"version\": \"d205/\"version\": \"e205/' '%s'", bj);
    assert_int_equal(system(cmd), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_OK);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 8);

    /* not JSON, or a link: refused, nothing stored */
    FILE *bf = fopen(bj, "w");
    assert_non_null(bf);
    fputs("{\"bench_held.TimeJoin.time_join\": ", bf);
    fclose(bf);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "the benchmarks file one folder up is not a JSON object");
    unlink(bj);
    snprintf(cmd, sizeof cmd, "%s/benchmarks.json", held);
    assert_int_equal(symlink(cmd, bj), 0);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "\"benchmarks.json\" is a symbolic link: refused");
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 8);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    assert_int_equal(system(cmd), 0);
}

/* asv writes a null "result" for a benchmark that failed for every
 * combination (as versioned-hdf5's benchmarks did where their setup
 * raised): each combination is stored as a skipped run, and the
 * benchmarks beside it are imported as usual. */
static void test_asv_null_result(void **state)
{
    fixture *f = *state;
    char top[] = "/tmp/solbook-test-asv-null-XXXXXX";
    assert_non_null(mkdtemp(top));
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/results/box", top);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/0123abcd-virtualenv-py3.11.json", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"commit_hash\": \"0123abcd0123abcd0123abcd0123abcd0123abcd\", \"env_name\": \"virtualenv-py3.11\", "
          "\"date\": 1729957230000, \"params\": {\"machine\": \"box\", \"python\": \"3.11\"}, \"python\": \"3.11\", "
          "\"requirements\": {}, \"env_vars\": {}, \"result_columns\": [\"result\", \"params\", \"version\", "
          "\"started_at\", \"duration\", \"stats_number\", \"stats_repeat\", \"samples\"], \"results\": {"
          "\"d.TimeDel.time_delete\": [null, [[\"10\", \"30\", \"50\"]], \"v1\", 1730160963546, 0.16982], "
          "\"m.time_resize\": [null, [], \"v2\", 1730161004441, 0.059752], "
          "\"h.time_get\": [[0.25], [], \"v3\", 1730161004501, 0.5, [1], [3], [[0.5, 0.25, 0.125]]]}, "
          "\"durations\": {}, \"version\": 2}", fp);
    fclose(fp);
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_OK);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 5);
    /* one skipped run a combination: n = 10, 30, 50, and the benchmark
     * without params */
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE status = 'skipped' AND "
                                  "reason = 'imported: asv recorded no result for this parameter combination'"), 4);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE status = 'skipped' AND "
                                  "json_extract(raw_json, '$.config.shape.param1') IN (10, 30, 50)"), 3);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE json_extract(raw_json, '$.timing') IS NOT NULL "
                                  "AND status = 'skipped'"), 0);
    /* the benchmark that ran: its three samples, median 250 ms */
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE status = 'passed' AND "
                                  "json_extract(raw_json, '$.timing.stats.median') = 250.0 AND "
                                  "json_extract(raw_json, '$.timing.stats.count') = 3"), 1);
    /* a "result" that is neither a list nor null still refuses the file */
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"commit_hash\": \"0123abcd0123abcd0123abcd0123abcd0123abcd\", \"date\": 1729957230000, "
          "\"params\": {\"machine\": \"box\"}, \"result_columns\": [\"result\", \"params\"], "
          "\"results\": {\"h.time_get\": [0.25, []]}, \"version\": 2}", fp);
    fclose(fp);
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, NULL, NULL, &err), SB_ERR);
    expect_error(&err, "benchmark entry without \"result\" and \"params\" lists");
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 5);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    assert_int_equal(system(cmd), 0);
}

/* A case parameter longer than the schema allows (a params value of 256
 * characters, a shape or params name of 64) is cut with a hash of the whole
 * text, not refused: pytest-benchmark writes an object it cannot serialise
 * as "UNSERIALIZABLE[" and its whole repr (4165 bytes in Trajax's
 * committed results). Two values that share their first 300 bytes stay
 * two cases; a cut never splits a UTF-8 character. */
static void test_long_case_params(void **state)
{
    fixture *f = *state;
    char path[] = "/tmp/solbook-test-long-params-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    assert_non_null(fp);
    char common[301];
    memset(common, 'x', 300);
    common[300] = '\0';
    /* 220 bytes, then "é" (2 bytes) across byte 221, where the cut of this
     * value falls (256 bytes less its 35-byte tail) */
    char accented[600];
    memset(accented, 'a', 220);
    snprintf(accented + 220, sizeof accented - 220, "\xc3\xa9%s", common);
    const char *longname = "a_parameter_name_that_is_longer_than_the_sixty_four_characters_allowed";
    fprintf(fp, "{\"datetime\": \"2025-12-19T11:34:06.634787+00:00\", \"version\": \"5.2.3\", \"benchmarks\": [");
    for (int k = 0; k < 2; k++)
        fprintf(fp, "%s{\"name\": \"test_step[%d]\", \"group\": null, \"params\": {\"cfg\": \"UNSERIALIZABLE[%s%c]\", "
                    "\"acc\": \"%s\", \"nested\": {\"list\": \"%s\"}, \"%s\": 7, \"%s_text\": \"t\"}, "
                    "\"stats\": {\"median\": 0.5, \"mean\": 0.5, \"rounds\": 3}}",
                k ? ", " : "", k, common, 'A' + k, accented, common, longname, longname);
    fputs("]}", fp);
    fclose(fp);
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_import_file(f->ing, path, "pytest-benchmark-json", NULL, &err), SB_OK);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs"), 2);
    /* each value at most 256 characters, its start kept, the whole length
     * and a hash after it */
    assert_int_equal(q_int(f->db, "SELECT COUNT(DISTINCT json_extract(raw_json, '$.config.params.cfg')) FROM runs"), 2);
    assert_int_equal(q_int(f->db, "SELECT MAX(length(json_extract(raw_json, '$.config.params.cfg'))) FROM runs"), 256);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE json_extract(raw_json, '$.config.params.cfg') "
                                  "GLOB 'UNSERIALIZABLE[[]xxx*x [[]cut: 317 bytes, fnv [0-9a-f][0-9a-f]*]'"), 2);
    /* the cut steps back before the 2-byte character rather than split it */
    assert_int_equal(q_int(f->db, "SELECT length(json_extract(raw_json, '$.config.params.acc')) FROM runs LIMIT 1"),
                     220 + (int)strlen(" [cut: 522 bytes, fnv 000000000000]"));
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE json_extract(raw_json, '$.config.params.acc') "
                                  "GLOB 'aaa*a [[]cut: 522 bytes, fnv *]'"), 2);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs WHERE json_extract(raw_json, '$.config.params.nested') "
                                  "GLOB '{\"list\":\"xxx*x [[]cut: 311 bytes, fnv *]'"), 2);
    /* names: 64 characters, ending in '_' and 12 hex digits; the integer
     * one is a shape name, still an identifier */
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs, json_each(json_extract(raw_json, '$.config.shape')) "
                                  "WHERE length(key) = 64 AND key GLOB 'a_parameter_name_that_is_longer_than_the_sixt"
                                  "y_four_[0-9a-f]*' AND value = 7"), 2);
    assert_int_equal(q_int(f->db, "SELECT COUNT(*) FROM runs, json_each(json_extract(raw_json, '$.config.params')) "
                                  "WHERE length(key) = 64 AND key GLOB 'a_parameter_name_*' AND value = 't'"), 2);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_detect),
        cmocka_unit_test_setup_teardown(test_not_regular_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_liger_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_liger_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_liger_nodtype, setup, teardown),
        cmocka_unit_test(test_liger_model_sweep),
        cmocka_unit_test_setup_teardown(test_in_batch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_op_names_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvbench_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvbench_axes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvbench_confined, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torch_benchmark, setup, teardown),
        cmocka_unit_test_setup_teardown(test_triton_perf_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_triton_perf_csv_long_label, setup, teardown),
        cmocka_unit_test_setup_teardown(test_triton_perf_csv_label, setup, teardown),
        cmocka_unit_test_setup_teardown(test_triton_perf_csv_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gbench_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gbench_real_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asv_param_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asv_null_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_case_params, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
