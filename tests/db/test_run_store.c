/* test_run_store.c - writing runs through db/run_store.h: every row and
 * NULL lands where it should, samples keep their order and repeat lengths
 * (an empty repeat too), a run that fails part-way leaves nothing while the runs beside it
 * in the same transaction stay, and a run that cannot even be undone ends
 * the transaction rather than leave half of itself to be committed.
 * Two digests that share their first 8 bytes (runs.content_key) are two
 * runs, each found by its own digest, while the same digest again is
 * refused and found as the run already stored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>

#include "connection.h"
#include "content_key.h"
#include "results_query.h"
#include "run_devices.h"
#include "run_store.h"
#include "run_summary.h"
#include "store.h"

static char dir[] = "/tmp/sb_test_run_store_XXXXXX";
static int counter;

typedef struct fx {
    sb_db *db;
    sb_run_store *rs;
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
    char path[256];
    snprintf(path, sizeof path, "%s/r%d.db", dir, counter++);
    sb_error e;
    sb_error_clear(&e);
    if (sb_db_open(path, SB_DB_WRITE, &f->db, &e) != SB_OK || sb_run_store_open(f->db, &f->rs, &e) != SB_OK) {
        fprintf(stderr, "%s: %s\n", e.file, e.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    sb_run_store_close(f->rs);
    sb_db_close(f->db);
    free(f);
    return 0;
}

static long long q(fx *f, const char *sql)
{
    sqlite3_stmt *st;
    sqlite3 *c = sb_db_handle(f->db);
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(c));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -999 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static long long rows_of_all(fx *f)
{
    return q(f, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM provenance) + "
                "(SELECT count(*) FROM configs) + (SELECT count(*) FROM run_samples) + "
                "(SELECT count(*) FROM metrics) + (SELECT count(*) FROM correctness) + "
                "(SELECT count(*) FROM training) + (SELECT count(*) FROM ceilings)");
}

/* A result run: n_reps repeats of the given lengths, samples rep*1000+idx. */
typedef struct result {
    sb_run_record rec;
    sb_config_row config;
    sb_metrics_row metrics;
    sb_correctness_row correctness;
    char sha[65], path[32];
    double samples[1200];
    size_t rep_len[8];
} result;

static void make_result(result *r, int n, const size_t *lens, size_t n_reps)
{
    memset(r, 0, sizeof *r);
    snprintf(r->sha, sizeof r->sha, "%064d", n);
    snprintf(r->path, sizeof r->path, "run%d.json", n);
    r->rec.run = (sb_run_row){.content_sha256 = r->sha, .schema = "solbook.result.v1", .status = "passed",
                              .source_path = r->path, .source_format = "solbook",
                              .ingested_at = "2026-01-01T00:00:00Z", .raw_json = "{}", .raw_json_len = 2};
    r->rec.provenance = (sb_provenance_row){.git_sha = "unknown", .tool_name = "t", .tool_version = "1",
                                            .device_kind = "gpu", .gpu_name = "g", .arch = "h100",
                                            .sku = "h100-sxm5-80gb", .power_limit_w = NAN,
                                            .packages_json = "{}", .sm_count = {1, 132}};
    r->config = (sb_config_row){.suite = "gemm-spec", .op = "gemm", .mode = "fwd", .provider = "cublas",
                                .backend = "cuda", .dtype = "bf16", .timer = "cuda-event", .l2 = "cold",
                                .shape_key = "M=1", .shape_json = "{}", .params_json = "{}",
                                .case_key = "gemm|fwd|bf16|M=1|{}", .warmup_ms = NAN};
    r->metrics = (sb_metrics_row){.min_ms = NAN, .p20_ms = NAN, .median_ms = 1.25, .p80_ms = NAN,
                                  .max_ms = NAN, .mean_ms = NAN, .stdev_ms = NAN, .rel_noise = NAN,
                                  .repeat_spread = NAN, .flops = NAN, .bytes = NAN, .tflops = NAN,
                                  .gbps = NAN, .pct_datasheet_peak = NAN, .pct_measured_ceiling = NAN,
                                  .kernel_median_ms = NAN, .kernel_p20_ms = NAN, .kernel_p80_ms = NAN};
    r->correctness = (sb_correctness_row){.reference = "float64-host", .max_abs_err = NAN, .max_rel_err = NAN, .rel_l2_err = NAN,
                                          .atol = NAN, .rtol = NAN, .passed = {1, 1}};
    size_t k = 0, total = 0;
    for (size_t i = 0; i < n_reps; i++) {
        r->rep_len[i] = lens[i];
        for (size_t j = 0; j < lens[i]; j++)
            r->samples[k++] = (double)(i * 1000 + j);
        total += lens[i];
    }
    r->metrics.sample_count = (sb_opt_int){1, (long long)total};
    r->rec.config = &r->config;
    r->rec.metrics = &r->metrics;
    r->rec.correctness = &r->correctness;
    r->rec.samples = r->samples;
    r->rec.rep_len = r->rep_len;
    r->rec.n_reps = n_reps;
}

static void test_rows_and_nulls(void **state)
{
    fx *f = *state;
    sb_error e;
    sb_error_clear(&e);
    /* 1 + 300 + 0 + 7 + 511 samples, an empty repeat among them. */
    static const size_t lens[] = {1, 300, 0, 7, 511};
    static result r;
    make_result(&r, 1, lens, 5);
    long long id = 0, found = -1;
    assert_int_equal(sb_run_store_insert(f->rs, &r.rec, &id, &e), SB_ERR); /* no transaction */
    assert_non_null(strstr(e.msg, "no transaction is open"));
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    if (sb_run_store_insert(f->rs, &r.rec, &id, &e) != SB_OK)
        fail_msg("%s: %s", e.file, e.msg);
    assert_int_equal(sb_db_commit(f->db, &e), SB_OK);
    assert_true(id > 0);
    assert_int_equal(sb_run_store_find(f->rs, r.sha, &found, &e), SB_OK);
    assert_int_equal(found, id);
    assert_int_equal(sb_run_store_find(f->rs, "nope", &found, &e), SB_OK);
    assert_int_equal(found, 0);
    /* a new database: 32 KiB pages, the WAL checkpointed every 64 MiB */
    assert_int_equal(q(f, "PRAGMA page_size"), 32768);
    assert_int_equal(q(f, "PRAGMA wal_autocheckpoint"), 2048);
    assert_int_equal(q(f, "SELECT count(*) FROM run_samples"), 1);
    assert_int_equal(q(f, "SELECT length(value_ms) / 8 FROM run_samples"), 819);
    assert_int_equal(q(f, "SELECT rep_lengths = '[1,300,0,7,511]' FROM run_samples"), 1);
    double *v;
    size_t n;
    assert_int_equal(sb_samples_load(f->db, id, &v, &n, &e), SB_OK);
    assert_int_equal(n, 819);
    for (size_t i = 0, k = 0; i < 5; i++)
        for (size_t j = 0; j < lens[i]; j++, k++)
            if (v[k] != (double)(i * 1000 + j))
                fail_msg("sample %zu of repeat %zu: %g", j, i, v[k]);
    free(v);
    assert_int_equal(q(f, "SELECT sm_count FROM provenance"), 132);
    assert_int_equal(q(f, "SELECT power_limit_w IS NULL AND git_dirty IS NULL AND hostname IS NULL FROM provenance"), 1);
    assert_int_equal(q(f, "SELECT warmup_ms IS NULL AND iters IS NULL AND profiler IS NULL FROM configs"), 1);
    assert_int_equal(q(f, "SELECT median_ms * 100 FROM metrics"), 125);
    assert_int_equal(q(f, "SELECT sample_count FROM metrics"), 819);
    assert_int_equal(q(f, "SELECT min_ms IS NULL AND kernel_method IS NULL FROM metrics"), 1);
    assert_int_equal(q(f, "SELECT passed FROM correctness"), 1);
    assert_int_equal(q(f, "SELECT atol IS NULL AND unwritten IS NULL FROM correctness"), 1);
    /* A profile: replaced whole, refused for an unknown run. */
    sb_profiler_metric_row p[2] = {{0, "k", "gpu__time_duration.sum", "nsecond", 5.0},
                                   {1, "k", "gpu__time_duration.sum", NULL, 6.0}};
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    assert_int_equal(sb_run_store_put_profile(f->rs, id, "run1.ncu.csv", p, 2, &e), SB_OK);
    assert_int_equal(sb_run_store_put_profile(f->rs, id, "run1.ncu.csv", p, 1, &e), SB_OK);
    assert_int_equal(sb_run_store_put_profile(f->rs, id + 5, "x.ncu.csv", p, 1, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "to attach the profile to"));
    assert_int_equal(sb_db_commit(f->db, &e), SB_OK);
    assert_int_equal(q(f, "SELECT count(*) FROM profiler_metrics"), 1);
}

/* Three runs in one transaction, the middle one refused by a trigger on
 * its last table: the other two are stored whole, nothing of it is. */
static void test_failure_mid_run(void **state)
{
    fx *f = *state;
    sb_error e;
    sb_error_clear(&e);
    sqlite3 *c = sb_db_handle(f->db);
    assert_int_equal(sqlite3_exec(c, "CREATE TEMP TRIGGER refuse BEFORE INSERT ON correctness "
                                     "WHEN (SELECT source_path FROM runs WHERE id = NEW.run_id) = 'run2.json' "
                                     "BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    static const size_t lens[] = {50, 50, 50, 50, 50};
    static result r[3];
    long long id[3];
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    for (int i = 0; i < 3; i++) {
        make_result(&r[i], i + 1, lens, 5);
        int rc = sb_run_store_insert(f->rs, &r[i].rec, &id[i], &e);
        assert_int_equal(rc, i == 1 ? SB_ERR : SB_OK);
    }
    assert_true(sb_run_store_in_transaction(f->rs));
    assert_int_equal(sb_db_commit(f->db, &e), SB_OK);
    assert_int_equal(q(f, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(q(f, "SELECT count(*) FROM runs WHERE source_path = 'run2.json'"), 0);
    assert_int_equal(q(f, "SELECT sum(length(value_ms)) / 8 FROM run_samples"), 500);
    /* Two runs' rows, each in runs, provenance, configs, run_samples, metrics
     * and correctness. */
    assert_int_equal(rows_of_all(f), 2 * 6);
    assert_int_equal(id[1], 0);
}

/* The failed run's rows cannot be removed either: the transaction ends,
 * the error says so, and nothing of it (nor of the runs before it in the
 * transaction) is stored. */
static void test_undo_fails(void **state)
{
    fx *f = *state;
    sb_error e;
    sb_error_clear(&e);
    sqlite3 *c = sb_db_handle(f->db);
    assert_int_equal(sqlite3_exec(c, "CREATE TEMP TRIGGER refuse BEFORE INSERT ON correctness "
                                     "BEGIN SELECT RAISE(ABORT, 'refused (test)'); END;"
                                     "CREATE TEMP TRIGGER keep BEFORE DELETE ON run_samples "
                                     "BEGIN SELECT RAISE(ABORT, 'cannot delete (test)'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    static const size_t lens[] = {10};
    static result r;
    make_result(&r, 7, lens, 1);
    long long id;
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    assert_int_equal(sb_run_store_insert(f->rs, &r.rec, &id, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "refused (test)"));
    assert_non_null(strstr(e.msg, "the transaction was rolled back"));
    assert_string_equal(e.file, "run7.json");
    assert_false(sb_run_store_in_transaction(f->rs));
    assert_int_equal(rows_of_all(f), 0);
}

static void collect_id(void *ctx, long long id)
{
    long long *ids = ctx;
    ids[++ids[0]] = id;
}

/* Digests with equal first 8 bytes (one key, forced: SHA-256 would take
 * about 2^32 runs to give such a pair) are different content: both are
 * stored and each is found as itself. The same digest again is a
 * duplicate: found as the stored run, and refused if inserted anyway. */
static void test_key_collision(void **state)
{
    fx *f = *state;
    sb_error e;
    sb_error_clear(&e);
    static const size_t lens[] = {4};
    static result r[3];
    static const char *const sha[3] = {
        "8badf00d8badf00d00000000000000000000000000000000000000000000000a",
        "8badf00d8badf00dffffffffffffffffffffffffffffffffffffffffffffffff",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    };
    long long id[3];
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    for (int i = 0; i < 3; i++) {
        make_result(&r[i], 100 + i, lens, 1);
        snprintf(r[i].sha, sizeof r[i].sha, "%s", sha[i]);
        long long found = -1;
        assert_int_equal(sb_run_store_find(f->rs, sha[i], &found, &e), SB_OK);
        assert_int_equal(found, 0);
        if (sb_run_store_insert(f->rs, &r[i].rec, &id[i], &e) != SB_OK)
            fail_msg("%s: %s", e.file, e.msg);
    }
    assert_int_equal(sb_db_commit(f->db, &e), SB_OK);
    assert_int_equal(q(f, "SELECT count(*) FROM runs"), 3);
    assert_int_equal(q(f, "SELECT count(DISTINCT content_key) FROM runs"), 2);
    /* SQLite's key of each stored digest is the one C looks up with: the
     * first 16 hex digits minus 2^63, so 8badf00d... is positive and
     * 01234567... negative */
    char sql[200];
    for (int i = 0; i < 3; i++) {
        snprintf(sql, sizeof sql, "SELECT content_key = %lld FROM runs WHERE id = %lld",
                 sb_content_key(sha[i]), id[i]);
        assert_int_equal(q(f, sql), 1);
        long long found = -1;
        assert_int_equal(sb_run_store_find(f->rs, sha[i], &found, &e), SB_OK);
        assert_int_equal(found, id[i]);
    }
    assert_true(sb_content_key(sha[0]) == 0x0badf00d8badf00dLL);
    assert_true(sb_content_key(sha[2]) == 0x0123456789abcdefLL - 0x7fffffffffffffffLL - 1);
    assert_int_equal(q(f, "SELECT content_key FROM runs WHERE content_sha256 LIKE '0%'"),
                     sb_content_key(sha[2]));
    /* a third digest with the same key, not stored: not found */
    long long found = -1;
    assert_int_equal(sb_run_store_find(f->rs,
                                       "8badf00d8badf00d00000000000000000000000000000000000000000000000b",
                                       &found, &e),
                     SB_OK);
    assert_int_equal(found, 0);
    /* the same digest again: refused whole, the stored runs untouched */
    long long before = rows_of_all(f);
    static result again;
    make_result(&again, 200, lens, 1);
    snprintf(again.sha, sizeof again.sha, "%s", sha[1]);
    long long id_again = -1;
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    assert_int_equal(sb_run_store_insert(f->rs, &again.rec, &id_again, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "runs.content_sha256"));
    assert_int_equal(sb_db_commit(f->db, &e), SB_OK);
    assert_int_equal(rows_of_all(f), before);
    assert_int_equal(q(f, "SELECT count(*) FROM runs WHERE source_path = 'run200.json'"), 0);
    /* nor can an update make two runs of one digest */
    sqlite3 *c = sb_db_handle(f->db);
    snprintf(sql, sizeof sql, "UPDATE runs SET content_sha256 = '%s' WHERE id = %lld", sha[0], id[1]);
    assert_int_not_equal(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
    /* a prefix: the runs whose digests start with it, through the key's range */
    sb_run_hash_lookup *hl;
    assert_int_equal(sb_run_hash_lookup_open(f->db, &hl, &e), SB_OK);
    long long ids[8] = {0};
    assert_int_equal(sb_run_hash_lookup_ids(hl, "8badf00d8bad", collect_id, ids, &e), SB_OK);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], id[0]);
    assert_int_equal(ids[2], id[1]);
    ids[0] = 0;
    assert_int_equal(sb_run_hash_lookup_ids(hl, sha[1], collect_id, ids, &e), SB_OK);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], id[1]);
    ids[0] = 0;
    assert_int_equal(sb_run_hash_lookup_ids(hl, "0123456789abcdef0", collect_id, ids, &e), SB_OK);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], id[2]);
    ids[0] = 0;
    assert_int_equal(sb_run_hash_lookup_ids(hl, "8badf00d8bae", collect_id, ids, &e), SB_OK);
    assert_int_equal(ids[0], 0);
    sb_run_hash_lookup_close(hl);
}

/* runs.gpu_uuid is the stored provenance's device.uuid (NULL without
 * one), what regressions and compare read for each run. */
static void test_gpu_uuid(void **state)
{
    fx *f = *state;
    sb_error e;
    sb_error_clear(&e);
    static const size_t lens[] = {2};
    static result r[2];
    static const char with[] = "{\"provenance\":{\"device\":{\"uuid\":\"GPU-0f1e2d3c\"}}}";
    long long id[2];
    assert_int_equal(sb_db_begin(f->db, &e), SB_OK);
    for (int i = 0; i < 2; i++) {
        make_result(&r[i], 300 + i, lens, 1);
        if (i == 0) {
            r[i].rec.run.raw_json = with;
            r[i].rec.run.raw_json_len = sizeof with - 1;
        }
        assert_int_equal(sb_run_store_insert(f->rs, &r[i].rec, &id[i], &e), SB_OK);
    }
    assert_int_equal(sb_db_commit(f->db, &e), SB_OK);
    char sql[120];
    snprintf(sql, sizeof sql, "SELECT gpu_uuid = 'GPU-0f1e2d3c' FROM runs WHERE id = %lld", id[0]);
    assert_int_equal(q(f, sql), 1);
    snprintf(sql, sizeof sql, "SELECT gpu_uuid FROM runs WHERE id = %lld", id[1]);
    assert_int_equal(q(f, sql), -999);
    sb_run_devices d;
    assert_int_equal(sb_run_devices_load(f->db, &d, &e), SB_OK);
    assert_int_equal(d.n, 2);
    assert_string_equal(sb_run_device(&d, id[0]), "GPU-0f1e2d3c");
    assert_null(sb_run_device(&d, id[1]));
    sb_run_devices_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rows_and_nulls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_mid_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_undo_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_collision, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_uuid, setup, teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
