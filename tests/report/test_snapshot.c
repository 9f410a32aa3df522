/* test_snapshot.c - the snapshot reports read (model/snapshot.h), filled
 * by db/snapshot_read.h: every calibrated SKU's newest ceilings are what
 * sb_ceilings_latest reads, its calibrations come newest first, and a SKU
 * without one reads as none; and the run details a report asks for
 * (model/run_details.h, db/run_details_read.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "fixture.h"
#include "ncu_csv.h"
#include "results_query.h"
#include "run_details_read.h"
#include "snapshot_read.h"

static char tmpdir[256];

static void test_calibrations(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/snap.db", tmpdir);
    sb_db *w = fx_create(p);
    long long old_h100 = fx_add_calibration(w, "h100-sxm5-80gb", "h100", "2026-11-10T09:00:00Z", 2800.0, 650.0);
    long long new_h100 = fx_add_calibration(w, "h100-sxm5-80gb", "h100", "2026-11-17T09:00:00Z", 3000.0, 700.0);
    long long h200 = fx_add_calibration(w, "h200-sxm-141gb", "h200", "2026-11-12T09:00:00Z", 4000.0, 710.0);
    sb_db_close(w);
    sb_db *db = NULL;
    sb_error err;
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    sb_snapshot *snap = NULL;
    assert_int_equal(sb_snapshot_read(db, &snap, &err), SB_OK);

    size_t n = 0;
    long long run = 0;
    const sb_ceiling *c = sb_snapshot_ceilings(snap, "h100-sxm5-80gb", &n, &run);
    assert_int_equal(n, 2);
    assert_int_equal(run, new_h100);
    assert_string_equal(c[0].name, "bw.copy");
    assert_string_equal(c[0].unit, "GB/s");
    assert_true(c[0].value == 3000.0);
    assert_string_equal(c[1].name, "gemm.fp16");
    assert_true(c[1].value == 700.0);
    /* the same rows as the query of one SKU */
    const char *skus[] = {"h100-sxm5-80gb", "h200-sxm-141gb", "a100-sxm4-80gb"};
    for (size_t k = 0; k < 3; k++) {
        sb_ceiling *q = NULL;
        size_t nq = 0;
        long long rq = 0;
        assert_int_equal(sb_ceilings_latest(db, skus[k], &q, &nq, &rq, &err), SB_OK);
        c = sb_snapshot_ceilings(snap, skus[k], &n, &run);
        assert_int_equal(n, nq);
        assert_int_equal(run, rq);
        for (size_t i = 0; i < nq; i++) {
            assert_string_equal(c[i].name, q[i].name);
            assert_true(c[i].value == q[i].value);
        }
        free(q);
    }
    assert_true(sb_snapshot_ceilings(snap, "h200-sxm-141gb", &n, &run)[0].value == 4000.0);
    assert_int_equal(run, h200);

    const sb_calibration *cal = sb_snapshot_calibrations(snap, "h100-sxm5-80gb", &n);
    assert_int_equal(n, 2);
    assert_int_equal(cal[0].run_id, new_h100);
    assert_int_equal(cal[1].run_id, old_h100);
    assert_int_equal(cal[1].n, 2);
    assert_true(cal[1].ceilings[0].value == 2800.0);

    /* no calibration: nothing, and no run */
    assert_null(sb_snapshot_ceilings(snap, "a100-sxm4-80gb", &n, &run));
    assert_int_equal(n, 0);
    assert_int_equal(run, -1);
    assert_null(sb_snapshot_calibrations(snap, "a100-sxm4-80gb", &n));
    assert_int_equal(n, 0);
    sb_snapshot_free(snap);
    sb_db_close(db);
}

/* What an ask names is read, launch by launch, and nothing else. */
static void test_run_details(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/details.db", tmpdir);
    sb_db *w = fx_create(p);
    static const double s[] = {1.0, 1.1, 1.2};
    fx_result r = {.provider = "cublas", .shape_key = "K=64,M=64,N=64", .sku = "h100-sxm5-80gb",
                   .arch = "h100", .finished_at = "2026-11-17T10:00:00Z", .samples = s, .nsamples = 3};
    long long profiled = fx_add_result(w, &r);
    long long plain = fx_add_result(w, &r);
    r.sku = "h200-sxm-141gb";
    r.arch = "h200";
    long long other = fx_add_result(w, &r);
    fx_add_ncu(w, profiled, 3);
    fx_add_ncu(w, other, 6);
    sb_db_close(w);
    sb_db *db = NULL;
    sb_error err;
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    static const char *const columns[] = {"rel_noise"};
    sb_details_ask ask = {0};
    ask.metrics = SB_NCU_SOL_METRICS;
    ask.nmetrics = SB_NCU_SOL_METRIC_COUNT;
    ask.columns = columns;
    ask.ncolumns = 1;
    ask.clocks = 1;
    assert_int_equal(sb_details_ask_run(&ask, profiled, &err), SB_OK);
    assert_int_equal(sb_details_ask_run(&ask, plain, &err), SB_OK);
    assert_int_equal(sb_details_ask_run(&ask, profiled, &err), SB_OK); /* once */
    assert_int_equal(ask.nruns, 2);
    assert_int_equal(sb_details_ask_arch(&ask, "h100", &err), SB_OK);
    assert_int_equal(sb_details_ask_arch(&ask, "a100", &err), SB_OK);
    sb_run_details *d = NULL;
    assert_int_equal(sb_run_details_read(db, &ask, &d, &err), SB_OK);
    const double *v;
    const char *unit;
    /* fx_add_ncu stores 50 + i for the i-th metric, unit % */
    assert_int_equal(sb_run_details_values(d, profiled, SB_NCU_SOL_METRICS[2], &v, &unit), 1);
    assert_true(v[0] == 52.0);
    assert_string_equal(unit, "%");
    assert_int_equal(sb_run_details_values(d, profiled, SB_NCU_SOL_METRICS[3], &v, &unit), 0);
    assert_int_equal(sb_run_details_values(d, plain, SB_NCU_SOL_METRICS[0], &v, &unit), 0);
    assert_string_equal(unit, "");
    /* a run not asked for reads as nothing, though it has values */
    assert_int_equal(sb_run_details_values(d, other, SB_NCU_SOL_METRICS[0], &v, &unit), 0);
    assert_null(sb_run_details_clocks(d, other));
    /* the fixture's runs recorded no clocks and no relative noise */
    const sb_run_clocks *c = sb_run_details_clocks(d, plain);
    assert_non_null(c);
    assert_string_equal(c->clocks, "");
    assert_string_equal(c->reasons, "");
    assert_true(isnan(c->power_limit_w));
    assert_true(isnan(sb_run_details_column(d, plain, "rel_noise")));
    assert_int_equal(sb_run_details_arch_runs(d, "h100"), 2);
    assert_int_equal(sb_run_details_arch_runs(d, "a100"), 0);
    assert_int_equal(sb_run_details_arch_runs(d, "h200"), -1);
    sb_run_details_free(d);
    sb_details_ask_free(&ask);
    sb_db_close(db);
}

static void test_add_card_once(void **state)
{
    (void)state;
    sb_snapshot *s = sb_snapshot_new();
    assert_non_null(s);
    sb_error err;
    sb_ceiling *c = calloc(1, sizeof *c);
    assert_non_null(c);
    snprintf(c->name, sizeof c->name, "bw.copy");
    c->value = 1.0;
    assert_int_equal(sb_snapshot_add_card(s, "x", c, 1, 7, NULL, 0, &err), SB_OK);
    /* a second card of the same SKU is refused (and freed) */
    sb_ceiling *d = calloc(1, sizeof *d);
    assert_non_null(d);
    assert_int_equal(sb_snapshot_add_card(s, "x", d, 1, 8, NULL, 0, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "added twice"));
    size_t n = 0;
    long long run = 0;
    assert_true(sb_snapshot_ceilings(s, "x", &n, &run)->value == 1.0);
    assert_int_equal(run, 7);
    sb_snapshot_free(s);
}

static int setup(void **state)
{
    (void)state;
    return fx_tmpdir_make(tmpdir, sizeof tmpdir, "snapshot");
}

static int teardown(void **state)
{
    (void)state;
    return fx_tmpdir_remove(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibrations),
        cmocka_unit_test(test_run_details),
        cmocka_unit_test(test_add_card_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
