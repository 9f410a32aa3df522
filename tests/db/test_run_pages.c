/* test_run_pages.c - db/run_pages.h and db/run_summary.h: runs merged
 * with the rows of their tables by id, page blocks, counts, look-ups. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bulk_reader.h"
#include "run_pages.h"
#include "run_summary.h"
#include "store.h"

static char dir[] = "/tmp/sb_test_run_pages_XXXXXX";
static char path[256];

/* Three runs: 7 (a result with three samples in two repeats, two Nsight
 * Compute values, a failed correctness check), 8 (a calibration with two
 * ceilings) and 205 (a skipped result with nothing else). */
static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/runs.db", dir);
    sb_db *db;
    sb_error e;
    if (sb_db_open(path, SB_DB_WRITE, &db, &e) != SB_OK)
        return -1;
    int rc = sb_db_exec(
        db,
        "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at, notes,"
        " raw_json) VALUES"
        " (7, 'aaaa1111', 'solbook.result.v1', 'passed', 'a.json', '2026-11-21T00:00:00Z',"
        "  'a <b>note</b>', '{\"a\":1}'),"
        " (8, 'aaaa2222', 'solbook.calibration.v1', 'passed', 'b.json', '2026-11-21T00:00:00Z',"
        "  NULL, '{\"b\":2}'),"
        " (205, 'bbbb3333', 'solbook.result.v1', 'skipped', 'c.json', '2026-11-21T00:00:00Z',"
        "  NULL, '{}');"
        "INSERT INTO run_samples VALUES (7, '[2,1]', "
        " X'000000000000F83F" "0000000000000440" "0000000000000C40');"
        "INSERT INTO metrics (run_id, sample_count, median_ms, p20_ms) VALUES (7, 3, 2.5, 1.5);"
        "INSERT INTO correctness (run_id, passed, reference) VALUES (7, 0, 'float64');"
        "INSERT INTO profiler_metrics VALUES (7, 1, 'k1', 'dram__bytes', 'byte', 64, 'x.csv'),"
        " (7, 0, 'k0', 'sm__cycles', NULL, NULL, 'x.csv');"
        "INSERT INTO ceilings VALUES (8, 'gemm.fp16', 'TFLOP/s', 700), (8, 'bw.copy', 'GB/s', 3000);",
        &e);
    if (rc != SB_OK)
        fprintf(stderr, "setup: %s\n", e.msg);
    sb_db_close(db);
    return rc == SB_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_rows_merged_by_id(void **state)
{
    (void)state;
    sb_db *c;
    sb_error e;
    assert_int_equal(sb_bulk_reader_open(path, &c, &e), SB_OK);
    sb_run_pages *p;
    assert_int_equal(sb_run_pages_open(c, 0, 1000, &p, &e), SB_OK);
    const sb_run_page_row *r;

    assert_int_equal(sb_run_pages_next(p, &r, &e), SB_OK);
    assert_non_null(r);
    assert_int_equal(r->id, 7);
    assert_string_equal(r->status, "passed");
    assert_string_equal(r->notes, "a <b>note</b>");
    assert_int_equal(r->raw_len, 7);
    assert_memory_equal(r->raw_json, "{\"a\":1}", 7);
    assert_false(r->has_config);
    assert_false(r->has_provenance);
    assert_null(r->sku);
    assert_true(r->has_metrics);
    assert_true(r->median_ms == 2.5 && r->p20_ms == 1.5 && isnan(r->p80_ms));
    assert_int_equal(r->sample_count, 3);
    assert_int_equal(r->correct, 0);
    /* the packed samples, unpacked in their stored order */
    assert_int_equal(r->nsamples, 3);
    assert_true(r->samples[0] == 1.5 && r->samples[1] == 2.5 && r->samples[2] == 3.5);
    /* Nsight Compute values by kernel, NULLs kept as NULL and NAN */
    assert_int_equal(r->nncu, 2);
    assert_int_equal(r->ncu[0].kernel_index, 0);
    assert_string_equal(r->ncu[0].metric, "sm__cycles");
    assert_null(r->ncu[0].unit);
    assert_true(isnan(r->ncu[0].value));
    assert_string_equal(r->ncu[1].kernel_name, "k1");
    assert_string_equal(r->ncu[1].unit, "byte");
    assert_true(r->ncu[1].value == 64);
    assert_string_equal(r->ncu[1].source_path, "x.csv");
    assert_int_equal(r->nceilings, 0);

    assert_int_equal(sb_run_pages_next(p, &r, &e), SB_OK);
    assert_int_equal(r->id, 8);
    assert_int_equal(r->nsamples, 0);
    assert_int_equal(r->nncu, 0);
    assert_false(r->has_metrics);
    assert_int_equal(r->correct, -1);
    assert_int_equal(r->sample_count, -1);
    assert_int_equal(r->nceilings, 2);
    assert_string_equal(r->ceilings[0].name, "bw.copy");
    assert_string_equal(r->ceilings[0].unit, "GB/s");
    assert_true(r->ceilings[1].value == 700);

    assert_int_equal(sb_run_pages_next(p, &r, &e), SB_OK);
    assert_int_equal(r->id, 205);
    assert_string_equal(r->status, "skipped");
    assert_int_equal(r->nceilings, 0);
    assert_int_equal(sb_run_pages_next(p, &r, &e), SB_OK);
    assert_null(r);
    sb_run_pages_close(p);

    /* a range holds only its own runs */
    assert_int_equal(sb_run_pages_open(c, 8, 205, &p, &e), SB_OK);
    assert_int_equal(sb_run_pages_next(p, &r, &e), SB_OK);
    assert_int_equal(r->id, 8);
    assert_int_equal(sb_run_pages_next(p, &r, &e), SB_OK);
    assert_null(r);
    sb_run_pages_close(p);
    sb_db_close(c);
}

static void test_blocks_counts(void **state)
{
    (void)state;
    sb_db *c;
    sb_error e;
    assert_int_equal(sb_bulk_reader_open(path, &c, &e), SB_OK);
    sb_run_block *b;
    size_t n;
    assert_int_equal(sb_run_blocks(c, 100, &b, &n, &e), SB_OK);
    assert_int_equal(n, 2);
    assert_true(b[0].block == 0 && b[0].runs == 2 && b[0].first == 7 && b[0].last == 8);
    assert_true(b[1].block == 2 && b[1].runs == 1 && b[1].first == 205 && b[1].last == 205);
    /* a digest per block, 64 hex digits, the same on a second read, and
     * different for blocks holding different runs */
    char d1[2][65], d2[2][65];
    assert_int_equal(sb_run_block_digests(c, 100, b, n, d1, &e), SB_OK);
    assert_int_equal(sb_run_block_digests(c, 100, b, n, d2, &e), SB_OK);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(strlen(d1[i]), 64);
        assert_int_equal(strspn(d1[i], "0123456789abcdef"), 64);
        assert_string_equal(d1[i], d2[i]);
    }
    assert_string_not_equal(d1[0], d1[1]);
    free(b);
    sb_db_close(c);
}

static void count_kind(void *ctx, const char *schema, const char *status, long long runs)
{
    char *out = ctx;
    size_t len = strlen(out);
    snprintf(out + len, 256 - len, "%s/%s=%lld;", schema, status, runs);
}

static void collect_id(void *ctx, long long id)
{
    long long *ids = ctx;
    ids[++ids[0]] = id;
}

static void test_summary(void **state)
{
    (void)state;
    sb_db *c;
    sb_error e;
    assert_int_equal(sb_bulk_reader_open(path, &c, &e), SB_OK);
    char kinds[256] = "";
    assert_int_equal(sb_run_kind_counts(c, count_kind, kinds, &e), SB_OK);
    assert_string_equal(kinds, "solbook.calibration.v1/passed=1;solbook.result.v1/passed=1;"
                               "solbook.result.v1/skipped=1;");
    sb_run_hash_lookup *q;
    assert_int_equal(sb_run_hash_lookup_open(c, &q, &e), SB_OK);
    long long ids[8] = {0};
    assert_int_equal(sb_run_hash_lookup_ids(q, "aaaa", collect_id, ids, &e), SB_OK);
    assert_true(ids[0] == 2 && ids[1] == 7 && ids[2] == 8);
    ids[0] = 0;
    assert_int_equal(sb_run_hash_lookup_ids(q, "bbbb3333", collect_id, ids, &e), SB_OK);
    assert_true(ids[0] == 1 && ids[1] == 205);
    ids[0] = 0;
    assert_int_equal(sb_run_hash_lookup_ids(q, "cccc", collect_id, ids, &e), SB_OK);
    assert_int_equal(ids[0], 0);
    sb_run_hash_lookup_close(q);
    sb_db_close(c);
}

static void test_bulk_reader_refuses_missing(void **state)
{
    (void)state;
    char p[300];
    snprintf(p, sizeof p, "%s/none.db", dir);
    sb_db *c = (sb_db *)1;
    sb_error e;
    assert_int_equal(sb_bulk_reader_open(p, &c, &e), SB_ERR);
    assert_null(c);
    assert_non_null(strstr(e.msg, "no such database"));
    assert_int_equal(access(p, F_OK), -1);
}

static void add_runs(void *ctx, const char *schema, const char *status, long long runs)
{
    (void)schema;
    (void)status;
    *(long long *)ctx += runs;
}

static long long runs_seen(sb_db *c)
{
    long long n = 0;
    sb_error e;
    assert_int_equal(sb_run_kind_counts(c, add_runs, &n, &e), SB_OK);
    return n;
}

/* A run stored while a reader of several connections works (an ingest
 * beside a site build) is seen by none of them: they all read the state
 * they started at together, while a reader opened afterwards sees it. */
static void test_bulk_readers_one_state(void **state)
{
    (void)state;
    sb_db *r[3];
    sb_error e;
    assert_int_equal(sb_bulk_readers_open(path, r, 3, &e), SB_OK);
    long long before = runs_seen(r[0]);
    sb_db *w;
    assert_int_equal(sb_db_open(path, SB_DB_WRITE, &w, &e), SB_OK);
    assert_int_equal(sb_db_exec(w,
                                "INSERT INTO runs (id, content_sha256, schema, status, source_path, ingested_at,"
                                " raw_json) VALUES (900, 'dddd4444', 'solbook.result.v1', 'passed', 'd.json',"
                                " '2026-11-22T00:00:00Z', '{}')",
                                &e),
                     SB_OK);
    sb_db_close(w);
    /* the second and third connections have not read anything before the
     * insert, and still see the state the first one does */
    assert_int_equal(runs_seen(r[2]), before);
    assert_int_equal(runs_seen(r[1]), before);
    assert_int_equal(runs_seen(r[0]), before);
    sb_db *later;
    assert_int_equal(sb_bulk_reader_open(path, &later, &e), SB_OK);
    assert_int_equal(runs_seen(later), before + 1);
    sb_db_close(later);
    for (int i = 0; i < 3; i++)
        sb_db_close(r[i]);
    assert_int_equal(sb_db_open(path, SB_DB_WRITE, &w, &e), SB_OK);
    assert_int_equal(sb_db_exec(w, "DELETE FROM runs WHERE id = 900", &e), SB_OK);
    sb_db_close(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_merged_by_id),
        cmocka_unit_test(test_blocks_counts),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_bulk_reader_refuses_missing),
        cmocka_unit_test(test_bulk_readers_one_state),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
