/* test_ingest.c - validated storage: every refusal class stores nothing and
 * names the file; idempotency; --strict batches; sidecars; directory walks. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "canonical_json.h"
#include "connection.h"
#include "home.h"
#include "ingest.h"
#include "json_file.h"
#include "run_query.h"
#include "sample_blob.h"
#include "sha256.h"
#include "store.h"

/* The executable is linked with --wrap=pthread_create, so that the
 * pipeline's thread starts (the reader first, then one preparer a CPU)
 * can be made to fail (test_threads_that_do_not_start): call k (from 1)
 * fails when bit k-1 of fail_mask is set. The test's own switch, zero
 * but while that test ingests. */
static unsigned fail_mask;
static unsigned calls;

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    unsigned k = calls++;
    if (k < 32 && (fail_mask >> k) & 1)
        return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}

static char dir[] = "/tmp/sb_test_ingest_XXXXXX";
static int db_counter;

typedef struct fx {
    sb_ingest *ing;
    char db_path[256];
} fx;

static int group_setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->db_path, sizeof f->db_path, "%s/t%d.db", dir, db_counter++);
    char schemas[1024];
    sb_error e;
    sb_error_clear(&e);
    if (sb_data_path(schemas, sizeof schemas, "schemas", &e) != SB_OK ||
        sb_ingest_open(f->db_path, schemas, &f->ing, &e) != SB_OK) {
        fprintf(stderr, "%s: %s: %s\n", e.file, e.where, e.msg);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    sb_ingest_close(f->ing);
    free(f);
    return 0;
}

/* A small test file's bytes into buf (it must fit). */
static size_t read_whole(const char *path, char *buf, size_t size)
{
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    size_t n = fread(buf, 1, size, in);
    fclose(in);
    assert_true(n > 0 && n < size);
    return n;
}

static void data(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/ingest/%s", SOLBOOK_TEST_DATA, rel);
}

/* The document of tests/data/ingest/REL, loaded (never NULL). */
static json_t *load_doc(const char *rel)
{
    char path[1024];
    data(path, sizeof path, rel);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    return doc;
}

static sqlite3 *conn(fx *f)
{
    return sb_db_handle(sb_ingest_db(f->ing));
}

static long long q_int(fx *f, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(conn(f), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(conn(f)));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static double q_real(fx *f, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(conn(f), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(conn(f)));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void q_text(fx *f, const char *sql, char *buf, size_t size)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(conn(f), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(conn(f)));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* Sample idx of repeat rep of the one stored run, unpacked. */
static double q_sample(fx *f, int rep, int idx)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT substr(value_ms, 8 * ((SELECT coalesce(sum(value), 0) FROM json_each(rep_lengths) "
                      "WHERE key < ?1) + ?2) + 1, 8) FROM run_samples";
    if (sqlite3_prepare_v2(conn(f), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(conn(f)));
    sqlite3_bind_int(st, 1, rep);
    sqlite3_bind_int(st, 2, idx);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v;
    assert_int_equal(sqlite3_column_bytes(st, 0), 8);
    assert_int_equal(sb_sample_blob_decode(sqlite3_column_blob(st, 0), 8, &v), 0);
    sqlite3_finalize(st);
    return v;
}

static long long total_rows(fx *f)
{
    return q_int(f, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM provenance) + "
                    "(SELECT count(*) FROM configs) + (SELECT count(*) FROM run_samples) + "
                    "(SELECT count(*) FROM metrics) + (SELECT count(*) FROM correctness) + "
                    "(SELECT count(*) FROM profiler_metrics) + (SELECT count(*) FROM ceilings) + "
                    "(SELECT count(*) FROM training)");
}

static long long ingest_ok(fx *f, const char *rel, int expect_dup)
{
    char path[1024];
    data(path, sizeof path, rel);
    long long id = -1;
    int dup = -1;
    sb_error e;
    sb_error_clear(&e);
    if (sb_ingest_file(f->ing, path, &id, &dup, &e) != SB_OK)
        fail_msg("%s refused: %s: %s: %s", rel, e.file, e.where, e.msg);
    assert_int_equal(dup, expect_dup);
    assert_true(id > 0);
    return id;
}

/* One refusal: the one-line error names the file, where, and the problem,
 * and the database is unchanged. */
static void refused(fx *f, const char *rel, const char *where, const char *needle)
{
    char path[1024];
    data(path, sizeof path, rel);
    long long before = total_rows(f);
    long long id = -1;
    int dup = -1;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(sb_ingest_file(f->ing, path, &id, &dup, &e), SB_ERR);
    assert_int_equal(id, 0);
    assert_string_equal(e.file, path);
    char line[4096];
    sb_error_format(&e, line, sizeof line);
    assert_null(strchr(line, '\n'));
    if (strncmp(line, path, strlen(path)) != 0)
        fail_msg("'%s' does not start with the file name", line);
    if (where && strncmp(e.where, where, strlen(where)) != 0)
        fail_msg("%s: where is '%s', expected '%s'", rel, e.where, where);
    if (!strstr(line, needle))
        fail_msg("%s: error '%s' does not mention '%s'", rel, line, needle);
    assert_int_equal(total_rows(f), before);
}

static void test_refusals(void **state)
{
    fx *f = *state;
    refused(f, "bad/malformed.json", "line 7, column", "invalid JSON");
    refused(f, "bad/nan.json", "line 23", "NaN and Infinity");
    refused(f, "bad/infinity.json", "line 23", "NaN and Infinity");
    refused(f, "bad/duplicate_key.json", "line 7", "duplicate");
    refused(f, "bad/int_overflow.json", "line 21", "too big integer");
    refused(f, "bad/too_deep.json", NULL, "deeper than 64");
    refused(f, "bad/invalid_utf8.json", "line 90", "byte 0xff");
    refused(f, "bad/empty.json", NULL, "empty file");
    refused(f, "bad/truncated.json", "line", "premature end of input");
    refused(f, "bad/unknown_schema.json", "/schema", "unknown schema \"solbook.result.v9\"");
    refused(f, "bad/missing_schema.json", "/schema", "missing \"schema\" field");
    refused(f, "bad/schema_invalid.json", "/config/dtype", "enum");
    refused(f, "bad/count_mismatch.json", "/timing/stats/count", "stats.count is 16 but timing.samples holds 15");
    /* the SM clock of each sample is parallel to the samples, and a rate */
    refused(f, "bad/clock_mismatch.json", "/timing/sample_sm_clock_mhz/2",
            "repeat 2 has 4 sample clocks but 5 samples");
    refused(f, "bad/clock_zero.json", "/timing/sample_sm_clock_mhz/2/2", "exclusiveMinimum");
    refused(f, "bad/impossible_date.json", "/provenance/finished_at",
            "\"2026-13-45T25:61:61Z\" is not a date and time of the calendar");
    refused(f, "bad/no_such_file.json", NULL, "No such file");
    assert_int_equal(total_rows(f), 0);
}

static void test_result_stored_whole(void **state)
{
    fx *f = *state;
    long long id = ingest_ok(f, "good/gemm_h100_cublas.json", 0);
    char t[512];
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 1);
    q_text(f, "SELECT schema || ' ' || status || ' ' || run_uuid FROM runs", t, sizeof t);
    assert_string_equal(t, "solbook.result.v1 passed 00112233445566778899aabbccddeeff");
    q_text(f, "SELECT shape_key FROM configs", t, sizeof t);
    assert_string_equal(t, "K=4096,M=4096,N=4096");
    q_text(f, "SELECT case_key FROM configs", t, sizeof t);
    assert_string_equal(t, "gemm|fwd|fp16|K=4096,M=4096,N=4096|{\"transa\":\"n\",\"transb\":\"n\"}");
    assert_int_equal(q_int(f, "SELECT profiler IS NULL FROM configs"), 1);
    q_text(f, "SELECT provider || ' ' || backend || ' ' || timer || ' ' || l2 || ' ' || iters || 'x' || repeats FROM configs", t, sizeof t);
    assert_string_equal(t, "cublas cuda cuda-event warm 5x3");
    q_text(f, "SELECT arch || ' ' || sku || ' ' || gpu_name || ' ' || git_sha FROM provenance", t, sizeof t);
    assert_string_equal(t, "h100 h100-sxm5-80gb NVIDIA H100 80GB HBM3 0123456789abcdef0123456789abcdef01234567");
    assert_int_equal(q_int(f, "SELECT sm_count FROM provenance"), 132);
    assert_int_equal(q_int(f, "SELECT memory_bytes FROM provenance"), 85520809984LL);
    assert_int_equal(q_int(f, "SELECT sm_clock_mhz FROM provenance"), 1980);
    assert_int_equal(q_int(f, "SELECT git_dirty FROM provenance"), 0);
    /* Every sample, exact (the file's 0.20500000000000002 is not 0.205), in
     * its repeat. */
    assert_int_equal(q_int(f, "SELECT length(value_ms) / 8 FROM run_samples"), 15);
    q_text(f, "SELECT rep_lengths FROM run_samples", t, sizeof t);
    assert_string_equal(t, "[5,5,5]");
    assert_true(q_sample(f, 1, 2) == 0.201);
    assert_true(q_sample(f, 2, 4) == 0.201);
    assert_true(q_sample(f, 0, 2) == 0.20500000000000002);
    assert_int_equal(q_int(f, "SELECT sample_count FROM metrics"), 15);
    assert_float_equal(q_real(f, "SELECT median_ms FROM metrics"), 0.203, 1e-12);
    assert_float_equal(q_real(f, "SELECT tflops FROM metrics"), 670.0, 1e-9);
    assert_float_equal(q_real(f, "SELECT flops FROM metrics"), 137438953472.0, 0);
    assert_int_equal(q_int(f, "SELECT peak_device_bytes FROM metrics"), 100663296);
    q_text(f, "SELECT bound || ' ' || datasheet_peak_name FROM metrics", t, sizeof t);
    assert_string_equal(t, "compute fp16_dense_tflops");
    assert_int_equal(q_int(f, "SELECT pct_measured_ceiling IS NULL FROM metrics"), 1);
    assert_int_equal(q_int(f, "SELECT passed FROM correctness"), 1);
    assert_int_equal(q_int(f, "SELECT checked_elements FROM correctness"), 65536);
    assert_int_equal(q_int(f, "SELECT bitwise_repeatable * 10 + batch_invariant FROM correctness"), 10);
    /* raw_json is the canonical form less the samples, which run_samples
     * holds once; joined back they are the document whose digest is
     * content_sha256, byte for byte the file's canonical JSON. */
    q_text(f, "SELECT substr(raw_json, 1, 30) FROM runs", t, sizeof t);
    assert_string_equal(t, "{\"config\":{\"backend\":\"cuda\",\"d");
    assert_int_equal(q_int(f, "SELECT json_extract(raw_json, '$.timing.samples') IS NULL FROM runs"), 1);
    assert_int_equal(q_int(f, "SELECT json_extract(raw_json, '$.timing.stats.count') FROM runs"), 15);
    assert_true(q_int(f, "SELECT samples_at FROM runs") > 0);
    sb_buf whole = SB_BUF_INIT;
    sb_error e;
    assert_int_equal(sb_run_raw_json(sb_ingest_db(f->ing), id, &whole, &e), SB_OK);
    char path[1024], sha[SB_SHA256_HEX_LEN + 1];
    json_t *doc;
    data(path, sizeof path, "good/gemm_h100_cublas.json");
    assert_int_equal(sb_json_load_file(path, &doc, &e), SB_OK);
    char *canonical = sb_canonical_json(doc, NULL);
    assert_string_equal(sb_buf_str(&whole), canonical);
    assert_int_equal(sb_sha256_hex(whole.data, whole.len, sha, &e), SB_OK);
    q_text(f, "SELECT content_sha256 FROM runs", t, sizeof t);
    assert_string_equal(t, sha);
    free(canonical);
    json_decref(doc);
    sb_buf_free(&whole);
}

static void test_idempotent(void **state)
{
    fx *f = *state;
    long long a = ingest_ok(f, "good/gemm_h100_cublas.json", 0);
    long long b = ingest_ok(f, "good/gemm_h100_cublas.json", 1);
    assert_int_equal(a, b);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(q_int(f, "SELECT coalesce(sum(length(value_ms)), 0) / 8 FROM run_samples"), 15);

    /* The same content with other whitespace and key order is a duplicate;
     * the same config run again (other run_uuid, samples) is a new run. */
    char path[1024];
    data(path, sizeof path, "good/gemm_h100_cublas.json");
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    char *compact = json_dumps(doc, JSON_COMPACT);
    json_t *again = json_loads(compact, 0, &je);
    free(compact);
    long long id;
    int dup;
    sb_error e;
    assert_int_equal(sb_ingest_document(f->ing, again, "again.json", "solbook", &id, &dup, &e), SB_OK);
    assert_int_equal(dup, 1);
    assert_int_equal(id, a);
    json_object_set_new(doc, "run_uuid", json_string("ffffffffffffffffffffffffffffffff"));
    assert_int_equal(sb_ingest_document(f->ing, doc, "rerun.json", "solbook", &id, &dup, &e), SB_OK);
    assert_int_equal(dup, 0);
    assert_true(id != a);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(q_int(f, "SELECT count(DISTINCT case_key) FROM configs"), 1);
    assert_int_equal(q_int(f, "SELECT coalesce(sum(length(value_ms)), 0) / 8 FROM run_samples"), 30);
    json_decref(doc);
    json_decref(again);
}

/* stats.median must be a median of the run's own samples: between the two
 * middle samples of an even count, whatever median its producer took, the
 * middle one of an odd count; the kernel time's likewise. Nothing of a
 * refused run is stored. */
static void test_median_of_the_samples(void **state)
{
    fx *f = *state;
    json_t *doc = load_doc("good/gemm_h100_cublas.json");
    long long id;
    int dup;
    sb_error e;
    sb_error_clear(&e);
    json_t *proto = json_object_get(doc, "protocol"), *timing = json_object_get(doc, "timing");
    json_t *stats = json_object_get(timing, "stats");
    json_object_set_new(proto, "iters", json_integer(2));
    json_object_set_new(proto, "repeats", json_integer(2));
    json_object_set_new(timing, "samples", json_pack("[[f,f],[f,f]]", 4.0, 1.0, 9.0, 2.0));
    json_object_set_new(stats, "count", json_integer(4));
    json_object_set_new(stats, "median", json_real(0.5));
    assert_int_equal(sb_ingest_document(f->ing, doc, "low.json", "solbook", &id, &dup, &e), SB_ERR);
    assert_string_equal(e.where, "/timing/stats/median");
    assert_non_null(strstr(e.msg, "0.5 is not the median of its 4 samples (between 2 and 4)"));
    json_object_set_new(stats, "median", json_real(4.01));
    assert_int_equal(sb_ingest_document(f->ing, doc, "high.json", "solbook", &id, &dup, &e), SB_ERR);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 0);
    /* the lower middle, the mean of the middles and the upper middle */
    const double fine[] = {2.0, 3.0, 4.0};
    for (size_t i = 0; i < 3; i++) {
        json_object_set_new(stats, "median", json_real(fine[i]));
        json_object_set_new(doc, "run_uuid", json_sprintf("%032zx", i + 1));
        assert_int_equal(sb_ingest_document(f->ing, doc, "fine.json", "solbook", &id, &dup, &e), SB_OK);
    }
    /* an odd count has one middle */
    json_object_set_new(proto, "iters", json_integer(3));
    json_object_set_new(proto, "repeats", json_integer(1));
    json_object_set_new(timing, "samples", json_pack("[[f,f,f]]", 7.0, 1.0, 3.0));
    json_object_set_new(stats, "count", json_integer(3));
    json_object_set_new(stats, "median", json_real(2.0));
    assert_int_equal(sb_ingest_document(f->ing, doc, "odd.json", "solbook", &id, &dup, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "2 is not the median of its 3 samples (3)"));
    json_object_set_new(stats, "median", json_real(3.0));
    /* the kernel time's median against the kernel samples */
    json_t *kernel = json_pack("{s:s,s:[[f,f,f]],s:{s:i,s:f}}", "method", "held-launch", "samples", 2.0, 1.0, 2.5,
                               "stats", "count", 3, "median", 1.0);
    assert_non_null(kernel);
    json_object_set_new(timing, "kernel", kernel);
    json_object_set_new(doc, "run_uuid", json_string("00000000000000000000000000000009"));
    assert_int_equal(sb_ingest_document(f->ing, doc, "kernel.json", "solbook", &id, &dup, &e), SB_ERR);
    assert_string_equal(e.where, "/timing/kernel/stats/median");
    json_object_set_new(json_object_get(kernel, "stats"), "median", json_real(2.0));
    assert_int_equal(sb_ingest_document(f->ing, doc, "kernel.json", "solbook", &id, &dup, &e), SB_OK);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 4);
    json_decref(doc);
}

/* The suite is a label: the same computation run by another preset is the
 * same case. A run timed under a profiler is stored whole and marked. */
static void test_case_identity_and_profiler(void **state)
{
    fx *f = *state;
    char path[1024];
    data(path, sizeof path, "good/gemm_h100_cublas.json");
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    long long id;
    int dup;
    sb_error e;
    sb_error_clear(&e);
    json_t *cfg = json_object_get(doc, "config"), *proto = json_object_get(doc, "protocol");
    assert_int_equal(sb_ingest_document(f->ing, doc, "a.json", "solbook", &id, &dup, &e), SB_OK);
    json_object_set_new(cfg, "suite", json_string("gemm-spec-quick"));
    assert_int_equal(sb_ingest_document(f->ing, doc, "quick.json", "solbook", &id, &dup, &e), SB_OK);
    json_object_set_new(cfg, "suite", json_string("gemm-spec-ncu"));
    assert_int_equal(sb_ingest_document(f->ing, doc, "ncu-suite.json", "solbook", &id, &dup, &e), SB_OK);
    json_object_set_new(cfg, "suite", json_string("adhoc"));
    json_object_set_new(proto, "profiler", json_string("nsys"));
    assert_int_equal(sb_ingest_document(f->ing, doc, "nsys.json", "solbook", &id, &dup, &e), SB_OK);
    json_object_set_new(proto, "profiler", json_string("gprof"));
    assert_int_equal(sb_ingest_document(f->ing, doc, "bad.json", "solbook", &id, &dup, &e), SB_ERR);
    assert_string_equal(e.where, "/protocol/profiler");
    json_decref(doc);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 4);
    assert_int_equal(q_int(f, "SELECT count(DISTINCT case_key) FROM configs"), 1);
    assert_int_equal(q_int(f, "SELECT count(DISTINCT suite) FROM configs"), 4);
    char t[256];
    q_text(f, "SELECT group_concat(coalesce(profiler, '-'), ' ') FROM (SELECT profiler FROM configs ORDER BY run_id)",
           t, sizeof t);
    assert_string_equal(t, "- - ncu nsys");
    /* Everything of a profiled run is kept. */
    assert_int_equal(q_int(f, "SELECT length(value_ms) / 8 FROM run_samples s JOIN configs c USING (run_id) WHERE c.profiler = 'nsys'"), 15);
    /* One sample, and a profile of two launches beside it: every timed
     * launch ran under ncu (ncu_profile.sh's runs), so the run is marked. */
    doc = json_load_file(path, 0, &je);
    cfg = json_object_get(doc, "config");
    proto = json_object_get(doc, "protocol");
    json_t *timing = json_object_get(doc, "timing");
    json_object_set_new(cfg, "suite", json_string("adhoc"));
    json_object_set_new(proto, "iters", json_integer(1));
    json_object_set_new(proto, "repeats", json_integer(1));
    json_object_set_new(timing, "samples", json_pack("[[f]]", 0.25));
    json_object_set_new(json_object_get(timing, "stats"), "count", json_integer(1));
    json_object_set_new(json_object_get(timing, "stats"), "median", json_real(0.25));
    json_object_set_new(json_object_get(timing, "stats"), "repeat_median_rel_spread", json_null());
    assert_int_equal(sb_ingest_document(f->ing, doc, "one.json", "solbook", &id, &dup, &e), SB_OK);
    json_decref(doc);
    char csv[1024];
    data(csv, sizeof csv, "ncu/two_kernels.csv");
    long rows = 0;
    assert_int_equal(sb_ingest_attach_ncu(f->ing, id, csv, 0, 0, &rows, &e), SB_OK);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT profiler FROM configs WHERE run_id = %lld", id);
    q_text(f, sql, t, sizeof t);
    assert_string_equal(t, "ncu");
}

static void test_failed_skipped_training_calibration(void **state)
{
    fx *f = *state;
    ingest_ok(f, "good/failed_gemm_h100.json", 0);
    ingest_ok(f, "good/skipped_gemm_h100.json", 0);
    char t[512];
    q_text(f, "SELECT group_concat(status || ':' || reason, ';') FROM runs", t, sizeof t);
    assert_string_equal(t, "failed:max_rel_err 0.3 over rtol 0.01;skipped:does not fit in device memory: needs 96 GB");
    assert_int_equal(q_int(f, "SELECT coalesce(sum(length(value_ms)), 0) / 8 FROM run_samples"), 0);
    /* Failed and skipped runs have memory but no timing: metrics rows without stats. */
    assert_int_equal(q_int(f, "SELECT count(*) FROM metrics WHERE median_ms IS NULL AND sample_count IS NULL "
                              "AND peak_device_bytes = 100663296"), 2);
    assert_int_equal(q_int(f, "SELECT count(*) FROM correctness WHERE passed = 0"), 1);
    assert_int_equal(q_int(f, "SELECT count(*) FROM correctness WHERE passed IS NULL"), 1);

    long long tr = ingest_ok(f, "good/training_h100_llama.json", 0);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT length(value_ms) / 8 FROM run_samples WHERE run_id = %lld", tr);
    assert_int_equal(q_int(f, sql), 6);
    q_text(f, "SELECT model_name || ' ' || strategy || ' ' || patch_name || ' ' || patch_kernels_json FROM training", t, sizeof t);
    assert_string_equal(t, "llama-3.2-1b single liger [\"rmsnorm\",\"rope\",\"swiglu\",\"flce\"]");
    assert_float_equal(q_real(f, "SELECT median_step_ms FROM training"), 810.625, 1e-9);
    assert_int_equal(q_int(f, "SELECT seq_len * micro_batch_size FROM training"), 16384);
    snprintf(sql, sizeof sql, "SELECT sample_count FROM metrics WHERE run_id = %lld", tr);
    assert_int_equal(q_int(f, sql), 6);

    long long cal = ingest_ok(f, "good/calibration_h200.json", 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM ceilings WHERE run_id = %lld", cal);
    assert_int_equal(q_int(f, sql), 7);
    assert_float_equal(q_real(f, "SELECT value FROM ceilings WHERE name = 'bw.copy' AND unit = 'GB/s'"), 4251.5, 0);
    assert_float_equal(q_real(f, "SELECT value FROM ceilings WHERE name = 'bw.memcpy_d2d'"), 4105.75, 0);
    assert_float_equal(q_real(f, "SELECT value FROM ceilings WHERE name = 'gemm.fp16' AND unit = 'TFLOP/s'"), 742.5, 0);
    q_text(f, "SELECT status || ' ' || arch FROM runs JOIN provenance ON run_id = id WHERE schema = 'solbook.calibration.v1'", t, sizeof t);
    assert_string_equal(t, "passed h200");
}

static void test_ncu_attach(void **state)
{
    fx *f = *state;
    long long id = ingest_ok(f, "good/gemm_h100_cublas.json", 0);
    char csv[1024];
    data(csv, sizeof csv, "ncu/two_kernels.csv");
    long rows = 0;
    sb_error e;
    sb_error_clear(&e);
    assert_int_equal(q_int(f, "SELECT profiler IS NULL FROM configs"), 1);
    if (sb_ingest_attach_ncu(f->ing, id, csv, 0, 0, &rows, &e) != SB_OK)
        fail_msg("%s: %s: %s", e.file, e.where, e.msg);
    assert_int_equal(rows, 14);
    /* Two profiled launches beside 15 samples: a separate profiling run's
     * profile; the run stays a timing. */
    assert_int_equal(q_int(f, "SELECT profiler IS NULL FROM configs"), 1);
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 14);
    assert_int_equal(q_int(f, "SELECT count(DISTINCT kernel_index) FROM profiler_metrics"), 2);
    assert_float_equal(q_real(f, "SELECT value FROM profiler_metrics WHERE kernel_index = 0 AND metric = 'gpu__time_duration.sum'"), 1204.32, 1e-9);
    char t[512];
    q_text(f, "SELECT unit FROM profiler_metrics WHERE kernel_index = 1 AND metric = 'dram__bytes_read.sum'", t, sizeof t);
    assert_string_equal(t, "Mbyte");
    /* Attaching again replaces rather than doubling. */
    assert_int_equal(sb_ingest_attach_ncu(f->ing, id, csv, 0, 0, &rows, &e), SB_OK);
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 14);
    /* A malformed CSV stores nothing and keeps what was there. */
    char bad[1024];
    data(bad, sizeof bad, "ncu/bad_field_count.csv");
    assert_int_equal(sb_ingest_attach_ncu(f->ing, id, bad, 0, 0, &rows, &e), SB_ERR);
    assert_string_equal(e.file, bad);
    assert_string_equal(e.where, "line 4 (row 4)");
    assert_int_equal(rows, 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 14);
    /* Its 14 values at a bound of 14 are stored whole; at 13 the
     * fourteenth refuses it: the 13 before it are taken back and the
     * profile stored before is kept (13 rows would be a half-stored one). */
    assert_int_equal(sb_ingest_attach_ncu(f->ing, id, csv, 0, 14, &rows, &e), SB_OK);
    assert_int_equal(rows, 14);
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 14);
    assert_int_equal(sb_ingest_attach_ncu(f->ing, id, csv, 0, 13, &rows, &e), SB_ERR);
    assert_string_equal(e.file, csv);
    assert_string_equal(e.msg, "Nsight Compute sidecar holds more than 13 metric values (--max-sidecar-rows 13)");
    assert_int_equal(rows, 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 14);
    /* An unknown run. */
    assert_int_equal(sb_ingest_attach_ncu(f->ing, id + 100, csv, 0, 0, &rows, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "no run"));
    assert_string_equal(e.file, csv);
}

typedef struct seen {
    int errors;
    char last_error[2048];
    int stored, dups, ncu;
} seen;

static void on_error(void *ctx, const sb_error *e)
{
    seen *s = ctx;
    s->errors++;
    sb_error_format(e, s->last_error, sizeof s->last_error);
}

static void on_file(void *ctx, const char *path, long long run_id, int dup, long ncu_rows)
{
    seen *s = ctx;
    (void)path;
    (void)run_id;
    if (ncu_rows)
        s->ncu++;
    else if (dup)
        s->dups++;
    else
        s->stored++;
}

static void test_walk(void **state)
{
    fx *f = *state;
    char good[1024];
    data(good, sizeof good, "good");
    char *paths[] = {good};
    seen s = {0};
    sb_ingest_walk w = {.on_error = on_error, .on_file = on_file, .ctx = &s};
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, &w, &st), SB_OK);
    /* 8 JSON files in three levels (README.txt skipped) and one sidecar. */
    assert_int_equal(st.stored, 8);
    assert_int_equal(st.refused, 0);
    assert_int_equal(st.ncu_attached, 1);
    assert_int_equal(st.files_seen, 9);
    assert_int_equal(s.stored, 8);
    assert_int_equal(s.ncu, 1);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 8);
    /* Sorted order: a100/ first, the deep h200/deep/ file before h200/swiglu. */
    char t[2048];
    q_text(f, "SELECT group_concat(replace(source_path, rtrim(source_path, 'abcdefghijklmnopqrstuvwxyz0123456789_.'), ''), ',') FROM (SELECT source_path FROM runs ORDER BY id)", t, sizeof t);
    assert_string_equal(t, "rmsnorm_a100_liger.json,calibration_h200.json,failed_gemm_h100.json,gemm_h100_cublas.json,"
                           "copy_h100_fused.json,swiglu_h200_huggingface.json,skipped_gemm_h100.json,training_h100_llama.json");
    /* The sidecar went to the gemm run. */
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics p JOIN runs r ON r.id = p.run_id "
                              "WHERE r.source_path LIKE '%gemm_h100_cublas.json'"), 7);
    /* Again: all duplicates. */
    memset(&s, 0, sizeof s);
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, &w, &st), SB_OK);
    assert_int_equal(st.duplicates, 8);
    assert_int_equal(st.stored, 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 8);
}

static void test_strict(void **state)
{
    fx *f = *state;
    char good[1024], bad[1024];
    data(good, sizeof good, "good");
    data(bad, sizeof bad, "bad/nan.json");
    char *paths[] = {good, bad};
    seen s = {0};
    sb_ingest_walk w = {.strict = 1, .on_error = on_error, .on_file = on_file, .ctx = &s};
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 2, &w, &st), SB_ERR);
    assert_int_equal(st.refused, 1);
    assert_int_equal(st.stored, 0);
    assert_int_equal(s.errors, 1);
    assert_non_null(strstr(s.last_error, "nan.json: line 23"));
    assert_int_equal(total_rows(f), 0);
    /* Without --strict the good files go in and the bad one is reported. */
    memset(&s, 0, sizeof s);
    w.strict = 0;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 2, &w, &st), SB_ERR);
    assert_int_equal(st.refused, 1);
    assert_int_equal(st.stored, 8);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 8);
    /* Strict with only good files commits them all (here: duplicates). */
    paths[1] = good;
    w.strict = 1;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, &w, &st), SB_OK);
    assert_int_equal(st.duplicates, 8);
}

/* Reading ahead: what is read before the ingest is given gets stored as
 * sb_ingest_paths stores it; a reading freed unstored stops its thread,
 * even one waiting for room in a full ring, and writes nothing. */
static void test_read_ahead(void **state)
{
    fx *f = *state;
    char good[1024];
    data(good, sizeof good, "good");
    char *paths[] = {good};
    sb_ingest_reading *r = sb_ingest_read_ahead(paths, 1, NULL);
    assert_non_null(r);
    seen s = {0};
    sb_ingest_walk w = {.on_error = on_error, .on_file = on_file, .ctx = &s};
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths_read(f->ing, r, &w, &st), SB_OK);
    assert_int_equal(st.stored, 8);
    assert_int_equal(st.ncu_attached, 1);
    char t[2048];
    q_text(f, "SELECT group_concat(replace(source_path, rtrim(source_path, 'abcdefghijklmnopqrstuvwxyz0123456789_.'), ''), ',') FROM (SELECT source_path FROM runs ORDER BY id)", t, sizeof t);
    assert_string_equal(t, "rmsnorm_a100_liger.json,calibration_h200.json,failed_gemm_h100.json,gemm_h100_cublas.json,"
                           "copy_h100_fused.json,swiglu_h200_huggingface.json,skipped_gemm_h100.json,training_h100_llama.json");

    /* More files than the largest ring (8 preparers x 128 slots). */
    char many[512], src[1024], file[700];
    snprintf(many, sizeof many, "%s/many%d", dir, db_counter);
    assert_int_equal(mkdir(many, 0755), 0);
    data(src, sizeof src, "good/gemm_h100_cublas.json");
    char buf[1 << 16];
    size_t n = read_whole(src, buf, sizeof buf);
    for (int i = 0; i < 1100; i++) {
        snprintf(file, sizeof file, "%s/r%04d.json", many, i);
        FILE *out = fopen(file, "wb");
        assert_non_null(out);
        assert_int_equal(fwrite(buf, 1, n, out), n);
        assert_int_equal(fclose(out), 0);
    }
    paths[0] = many;
    r = sb_ingest_read_ahead(paths, 1, NULL);
    assert_non_null(r);
    usleep(100 * 1000); /* time to fill the ring and wait */
    sb_ingest_reading_free(r);
    sb_ingest_reading_free(NULL);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 8);
    /* Stored, the 1,100 copies are one run. */
    r = sb_ingest_read_ahead(paths, 1, NULL);
    assert_non_null(r);
    assert_int_equal(sb_ingest_paths_read(f->ing, r, &w, &st), SB_OK);
    assert_int_equal(st.files_seen, 1100);
    assert_int_equal(st.duplicates, 1100);
}

/* Ingests the folder top, which holds refusals: stored and refused files,
 * the last error holding want. */
static void walk_refused(fx *f, const char *top, long stored, long refused, const char *want)
{
    char *paths[] = {(char *)top};
    seen s = {0};
    sb_ingest_walk w = {.on_error = on_error, .on_file = on_file, .ctx = &s};
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, &w, &st), SB_ERR);
    assert_int_equal(st.stored, stored);
    assert_int_equal(st.refused, refused);
    assert_int_equal(s.errors, refused);
    if (!strstr(s.last_error, want))
        fail_msg("'%s' does not contain '%s'", s.last_error, want);
}

/* Copies the fixture rel to path. */
static void copy_fixture(const char *rel, const char *path)
{
    char src[1024], buf[1 << 16];
    data(src, sizeof src, rel);
    size_t n = read_whole(src, buf, sizeof buf);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(buf, 1, n, out), n);
    assert_int_equal(fclose(out), 0);
}

static void test_symlink_loop_and_unreadable(void **state)
{
    fx *f = *state;
    char top[512], sub[600], link[700], file[700], src[1024], dangling[700];
    snprintf(top, sizeof top, "%s/walk%d", dir, db_counter);
    snprintf(sub, sizeof sub, "%s/sub", top);
    assert_int_equal(mkdir(top, 0755), 0);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(link, sizeof link, "%s/loop", sub);
    assert_int_equal(symlink("..", link), 0);
    snprintf(dangling, sizeof dangling, "%s/gone.json", top);
    assert_int_equal(symlink("does-not-exist.json", dangling), 0);
    /* a link inside the folder is followed (sub/run.json -> ../real.json:
     * one run, the same file twice); one out of it is not */
    data(src, sizeof src, "good/gemm_h100_cublas.json");
    snprintf(file, sizeof file, "%s/real.json", top);
    copy_fixture("good/gemm_h100_cublas.json", file);
    snprintf(file, sizeof file, "%s/run.json", sub);
    assert_int_equal(symlink("../real.json", file), 0);
    char outside[700];
    snprintf(outside, sizeof outside, "%s/zz-outside.json", sub);
    assert_int_equal(symlink(src, outside), 0);
    /* names the walk would pass over are passed over unread, dangling
     * or looping: they refuse nothing */
    char other[700];
    snprintf(other, sizeof other, "%s/notes.txt", top);
    assert_int_equal(symlink("does-not-exist.txt", other), 0);
    snprintf(other, sizeof other, "%s/real.ncu.csv", sub);
    assert_int_equal(symlink("real.ncu.csv", other), 0);
    /* The last error (sorted: gone.json, sub/loop, sub/zz-outside.json)
     * names the link out of the folder. */
    char want[800];
    snprintf(want, sizeof want, "%s: symbolic link out of the folder given: not followed", outside);
    walk_refused(f, top, 1, 3, want);
}

/* A gathered file (files_in_place) is read only where its gathering
 * found it (limits.insides): a folder on the way swapped for a link to
 * another folder after the gathering leads out of it, where the folder
 * resolved again at listing would follow the link and take the outside
 * file. With the folder as gathered, the same file before the swap is
 * stored. */
static void test_gathered_folder_swapped(void **state)
{
    fx *f = *state;
    char top[512], sub[600], out_sub[600], file[700], out_file[700], real_sub[700];
    snprintf(top, sizeof top, "%s/gath%d", dir, db_counter);
    snprintf(sub, sizeof sub, "%s/tree-sub", top);
    snprintf(out_sub, sizeof out_sub, "%s/outside-sub", top);
    assert_int_equal(mkdir(top, 0755), 0);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(mkdir(out_sub, 0755), 0);
    snprintf(file, sizeof file, "%s/run.json", sub);
    snprintf(out_file, sizeof out_file, "%s/run.json", out_sub);
    copy_fixture("good/gemm_h100_cublas.json", out_file);
    char *rs = realpath(sub, NULL);
    assert_non_null(rs);
    snprintf(real_sub, sizeof real_sub, "%s", rs);
    free(rs);
    /* the gathered folder now a link to the outside one */
    char aside[700];
    snprintf(aside, sizeof aside, "%s/tree-sub-real", top);
    assert_int_equal(rename(sub, aside), 0);
    assert_int_equal(symlink("outside-sub", sub), 0);
    char *paths[] = {file}, *insides[] = {real_sub};
    seen s = {0};
    sb_ingest_walk w = {.on_error = on_error, .on_file = on_file, .ctx = &s};
    w.limits.files_in_place = 1;
    w.limits.insides = insides;
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, &w, &st), SB_ERR);
    assert_int_equal(st.stored, 0);
    assert_int_equal(st.refused, 1);
    if (!strstr(s.last_error, "leads out of the folder given"))
        fail_msg("'%s' does not say the file leads out", s.last_error);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 0);
    /* put back: the same path is stored */
    assert_int_equal(unlink(sub), 0);
    assert_int_equal(rename(aside, sub), 0);
    copy_fixture("good/gemm_h100_cublas.json", file);
    seen s2 = {0};
    w.ctx = &s2;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, &w, &st), SB_OK);
    assert_int_equal(st.stored, 1);
}

/* A sidecar that is a hard link to a file outside the document's folder
 * (ncu, then nsys) refuses its document: neither the run nor a value of
 * the outside file is stored, and the refusal names the sidecar. A
 * sidecar of its own beside the document is attached. */
static void test_sidecar_hard_link(void **state)
{
    fx *f = *state;
    const char *kinds[][2] = {{".ncu.csv", "ncu/two_kernels.csv"}, {".nsys.csv", "nsys/gpukernsum_first.csv"}};
    for (size_t k = 0; k < 2; k++) {
        char top[512], outside[512], doc[700], side[700], secret[700];
        snprintf(top, sizeof top, "%s/hard%d-%zu", dir, db_counter, k);
        snprintf(outside, sizeof outside, "%s/elsewhere%d-%zu", dir, db_counter, k);
        assert_int_equal(mkdir(top, 0755), 0);
        assert_int_equal(mkdir(outside, 0755), 0);
        snprintf(doc, sizeof doc, "%s/run.json", top);
        copy_fixture("good/gemm_h100_cublas.json", doc);
        snprintf(secret, sizeof secret, "%s/secret.csv", outside);
        copy_fixture(kinds[k][1], secret);
        snprintf(side, sizeof side, "%s/run%s", top, kinds[k][0]);
        assert_int_equal(link(secret, side), 0);
        char want[800];
        snprintf(want, sizeof want, "%s: sidecar is a hard link (2 names): refused", side);
        walk_refused(f, top, 0, 1, want);
        assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 0);
        assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 0);
        assert_int_equal(q_int(f, "SELECT count(*) FROM kernel_summaries"), 0);
    }
    /* the same profile as a file of its own beside the document is read */
    char top[512], doc[700], side[700];
    snprintf(top, sizeof top, "%s/own%d", dir, db_counter);
    assert_int_equal(mkdir(top, 0755), 0);
    snprintf(doc, sizeof doc, "%s/run.json", top);
    copy_fixture("good/gemm_h100_cublas.json", doc);
    snprintf(side, sizeof side, "%s/run.ncu.csv", top);
    copy_fixture("ncu/two_kernels.csv", side);
    char *paths[] = {top};
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 1, NULL, &st), SB_OK);
    assert_int_equal(st.stored, 1);
    assert_int_equal(q_int(f, "SELECT count(*) FROM profiler_metrics"), 14);
}

/* A sidecar that is no regular file (a FIFO, a directory) refuses its
 * document in one line, as a link does: read as absent, the run would be
 * stored without the profile that came with it and without a word. The
 * FIFO is never opened, so the walk does not wait on it. */
static void test_sidecar_not_regular(void **state)
{
    fx *f = *state;
    const char *suffixes[] = {".ncu.csv", ".nsys.csv"};
    for (size_t k = 0; k < 2; k++)
        for (int fifo = 0; fifo < 2; fifo++) {
            char top[512], doc[700], side[700];
            snprintf(top, sizeof top, "%s/special%d-%zu-%d", dir, db_counter, k, fifo);
            assert_int_equal(mkdir(top, 0755), 0);
            snprintf(doc, sizeof doc, "%s/run.json", top);
            copy_fixture("good/gemm_h100_cublas.json", doc);
            snprintf(side, sizeof side, "%s/run%s", top, suffixes[k]);
            assert_int_equal(fifo ? mkfifo(side, 0644) : mkdir(side, 0755), 0);
            char want[800];
            snprintf(want, sizeof want, "%s: sidecar is not a regular file: refused", side);
            walk_refused(f, top, 0, 1, want);
            assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 0);
        }
}

/* A file that fails half-way through storing (here: a trigger refuses its
 * ceilings after its run and provenance rows went in) leaves nothing, while
 * the files before and after it in the same group commit are kept. */
static void test_failure_mid_file(void **state)
{
    fx *f = *state;
    assert_int_equal(sqlite3_exec(conn(f),
                                  "CREATE TEMP TRIGGER refuse_ceilings BEFORE INSERT ON ceilings "
                                  "BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    char a[1024], b[1024], c[1024];
    data(a, sizeof a, "good/a100");
    data(b, sizeof b, "good/calibration_h200.json");
    data(c, sizeof c, "good/training_h100_llama.json");
    char *paths[] = {a, b, c};
    seen s = {0};
    sb_ingest_walk w = {.on_error = on_error, .on_file = on_file, .ctx = &s};
    sb_ingest_stats st;
    assert_int_equal(sb_ingest_paths(f->ing, paths, 3, &w, &st), SB_ERR);
    assert_int_equal(st.stored, 2);
    assert_int_equal(st.refused, 1);
    char want[1200];
    snprintf(want, sizeof want, "%s: cannot store into ceilings", b);
    if (!strstr(s.last_error, want) || !strstr(s.last_error, "disk full (test)"))
        fail_msg("'%s' does not contain '%s'", s.last_error, want);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs WHERE schema = 'solbook.calibration.v1'"), 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM provenance"), 2);
    assert_int_equal(q_int(f, "SELECT coalesce(sum(length(value_ms)), 0) / 8 FROM run_samples"), 10 + 6);
    /* The same through sb_ingest_file (its own transaction). */
    long long id;
    int dup;
    sb_error e;
    assert_int_equal(sb_ingest_file(f->ing, b, &id, &dup, &e), SB_ERR);
    assert_int_equal(q_int(f, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(sqlite3_exec(conn(f), "DROP TRIGGER refuse_ceilings", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sb_ingest_file(f->ing, b, &id, &dup, &e), SB_OK);
    assert_int_equal(q_int(f, "SELECT count(*) FROM ceilings"), 7);
}

/* Kernel time is stored apart from call time: from timing.kernel, or from
 * the call samples of a solbench run queued behind its blocking kernel; a
 * run measured neither way has none. torch-eager is stored as huggingface,
 * and the provider's packages are kept. */
static void test_kernel_time_and_provider_name(void **state)
{
    fx *f = *state;
    long long eager = ingest_ok(f, "kernel_time/torch_eager_kernel.json", 0);
    long long held = ingest_ok(f, "kernel_time/solbench_held.json", 0);
    long long plain = ingest_ok(f, "good/gemm_h100_cublas.json", 0);
    char sql[512], buf[256];

    snprintf(sql, sizeof sql, "SELECT provider FROM configs WHERE run_id = %lld", eager);
    q_text(f, sql, buf, sizeof buf);
    assert_string_equal(buf, "huggingface");
    snprintf(sql, sizeof sql, "SELECT kernel_method FROM metrics WHERE run_id = %lld", eager);
    q_text(f, sql, buf, sizeof buf);
    assert_string_equal(buf, "held-launch");
    /* the fixture's kernel samples are half its call samples */
    snprintf(sql, sizeof sql, "SELECT kernel_median_ms / median_ms FROM metrics WHERE run_id = %lld", eager);
    assert_float_equal(q_real(f, sql), 0.5, 1e-6);
    snprintf(sql, sizeof sql, "SELECT kernel_sample_count FROM metrics WHERE run_id = %lld", eager);
    assert_int_equal(q_int(f, sql), 60);
    snprintf(sql, sizeof sql, "SELECT json_extract(packages_json, '$.torch') FROM provenance WHERE run_id = %lld",
             eager);
    q_text(f, sql, buf, sizeof buf);
    assert_string_equal(buf, "2.11.0+cu130");

    snprintf(sql, sizeof sql, "SELECT kernel_median_ms = median_ms AND kernel_p20_ms = p20_ms AND "
                              "kernel_method = 'held-launch' FROM metrics WHERE run_id = %lld", held);
    assert_int_equal(q_int(f, sql), 1);

    snprintf(sql, sizeof sql, "SELECT kernel_median_ms IS NULL AND kernel_method IS NULL FROM metrics "
                              "WHERE run_id = %lld", plain);
    assert_int_equal(q_int(f, sql), 1);
    snprintf(sql, sizeof sql, "SELECT packages_json FROM provenance WHERE run_id = %lld", plain);
    q_text(f, sql, buf, sizeof buf);
    assert_string_equal(buf, "{}");

    refused(f, "kernel_time/bad_kernel_count.json", "/timing/kernel/stats/count", "kernel stats.count is 61");
}

/* An ingest whose threads cannot all be started stores the same runs in
 * the same order as one whose threads can. Ingests the test data's good/
 * tree into a new database with the calls in mask failing, and gives the
 * stored runs' file names in id order. */
static void ingest_with(unsigned mask, const char *db_name, char *order, size_t size,
                        sb_ingest_stats *st)
{
    char db_path[512], schemas[1024], good[1024];
    snprintf(db_path, sizeof db_path, "%s/%s", dir, db_name);
    snprintf(good, sizeof good, "%s/ingest/good", SOLBOOK_TEST_DATA);
    sb_error e;
    sb_error_clear(&e);
    sb_ingest *ing;
    assert_int_equal(sb_data_path(schemas, sizeof schemas, "schemas", &e), SB_OK);
    assert_int_equal(sb_ingest_open(db_path, schemas, &ing, &e), SB_OK);
    char *paths[] = {good};
    fail_mask = mask;
    calls = 0;
    assert_int_equal(sb_ingest_paths(ing, paths, 1, NULL, st), SB_OK);
    fail_mask = 0;
    /* The reader was asked for, and with it (when it started) the
     * preparers: the wrapper saw the pipeline's calls. */
    assert_true(calls >= 1);
    assert_true((mask & 1) ? calls == 1 : calls >= 2);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(sb_db_handle(sb_ingest_db(ing)),
                                        "SELECT group_concat(name, ',') FROM (SELECT "
                                        "replace(source_path, rtrim(source_path, "
                                        "'abcdefghijklmnopqrstuvwxyz0123456789_.'), '') AS name "
                                        "FROM runs ORDER BY id)",
                                        -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    snprintf(order, size, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sb_ingest_close(ing);
}

static void test_threads_that_do_not_start(void **state)
{
    (void)state;
    static const char want[] =
        "rmsnorm_a100_liger.json,calibration_h200.json,failed_gemm_h100.json,gemm_h100_cublas.json,"
        "copy_h100_fused.json,swiglu_h200_huggingface.json,skipped_gemm_h100.json,"
        "training_h100_llama.json";
    static const struct {
        unsigned mask;
        const char *what;
    } cases[] = {
        {0, "every thread starts"},
        {1u << 0, "no reader: read and stored one at a time"},
        {~0u << 1, "a reader and no preparer: the storer prepares all"},
        {1u << 1, "the first preparer missing: the storer prepares its share"},
        {1u << 2, "the second preparer missing (one CPU: none)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[32], order[1024];
        snprintf(name, sizeof name, "threads%zu.db", i);
        sb_ingest_stats st;
        ingest_with(cases[i].mask, name, order, sizeof order, &st);
        if (st.stored != 8 || st.ncu_attached != 1 || st.refused != 0 || strcmp(order, want) != 0)
            fail_msg("%s: %ld stored, %ld ncu, %ld refused, order %s", cases[i].what, st.stored,
                     st.ncu_attached, st.refused, order);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_result_stored_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idempotent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_median_of_the_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(test_case_identity_and_profiler, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_skipped_training_calibration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ncu_attach, setup, teardown),
        cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_ahead, setup, teardown),
        cmocka_unit_test(test_threads_that_do_not_start),
        cmocka_unit_test_setup_teardown(test_symlink_loop_and_unreadable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gathered_folder_swapped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sidecar_hard_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sidecar_not_regular, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_mid_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_time_and_provider_name, setup, teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
