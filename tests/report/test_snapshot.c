/* test_snapshot.c - the snapshot reports read (model/snapshot.h), filled
 * by db/snapshot_read.h: every calibrated SKU's ceilings are its newest
 * calibration's, a ceiling far from the datasheet is set aside for the
 * newest credible one of its name, its calibrations come newest first,
 * and a SKU without one reads as none; and the run details a report asks
 * for (model/run_details.h, db/run_details_read.h). */
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
    sb_sku_table *skus = NULL;
    assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    sb_snapshot *snap = NULL;
    assert_int_equal(sb_snapshot_read(db, skus, &snap, &err), SB_OK);

    size_t n = 0;
    long long run = 0;
    const sb_ceiling *c = sb_snapshot_ceilings(snap, "h100-sxm5-80gb", &n, &run);
    assert_int_equal(n, 2);
    assert_int_equal(run, new_h100);
    assert_string_equal(c[0].name, "bw.copy");
    assert_string_equal(c[0].unit, "GB/s");
    assert_true(c[0].value == 3000.0);
    assert_int_equal(c[0].run_id, new_h100);
    assert_string_equal(c[1].name, "gemm.fp16");
    assert_true(c[1].value == 700.0);
    assert_true(sb_snapshot_ceilings(snap, "h200-sxm-141gb", &n, &run)[0].value == 4000.0);
    assert_int_equal(run, h200);
    assert_null(sb_snapshot_set_aside(snap, &n));
    assert_int_equal(n, 0);

    const sb_calibration *cal = sb_snapshot_calibrations(snap, "h100-sxm5-80gb", &n);
    assert_int_equal(n, 2);
    assert_int_equal(cal[0].run_id, new_h100);
    assert_int_equal(cal[1].run_id, old_h100);
    assert_int_equal(cal[1].n, 2);
    assert_true(cal[1].ceilings[0].value == 2800.0);
    assert_int_equal(cal[1].ceilings[0].run_id, old_h100);

    /* no calibration: nothing, and no run */
    assert_null(sb_snapshot_ceilings(snap, "a100-sxm4-80gb", &n, &run));
    assert_int_equal(n, 0);
    assert_int_equal(run, -1);
    assert_null(sb_snapshot_calibrations(snap, "a100-sxm4-80gb", &n));
    assert_int_equal(n, 0);
    sb_snapshot_free(snap);
    sb_db_close(db);

    /* A newer calibration stating 1 GB/s copy on an H100 (datasheet 3,350)
     * and 1e6 TFLOP/s fp16 on the H200 is set aside for those ceilings:
     * the H100's copy stays the newest credible one, its fp16 comes from
     * the new run; the H200 keeps its older fp16. */
    w = fx_open(p);
    long long bad_h100 = fx_add_calibration(w, "h100-sxm5-80gb", "h100", "2026-11-20T09:00:00Z", 1.0, 720.0);
    long long bad_h200 = fx_add_calibration(w, "h200-sxm-141gb", "h200", "2026-11-20T09:00:00Z", 4100.0, 1e6);
    sb_db_close(w);
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    assert_int_equal(sb_snapshot_read(db, skus, &snap, &err), SB_OK);
    c = sb_snapshot_ceilings(snap, "h100-sxm5-80gb", &n, &run);
    assert_int_equal(n, 2);
    assert_int_equal(run, bad_h100);
    assert_true(c[0].value == 3000.0);
    assert_int_equal(c[0].run_id, new_h100);
    assert_true(c[1].value == 720.0);
    assert_int_equal(c[1].run_id, bad_h100);
    c = sb_snapshot_ceilings(snap, "h200-sxm-141gb", &n, &run);
    assert_int_equal(n, 2);
    assert_int_equal(run, bad_h200);
    assert_true(c[0].value == 4100.0);
    assert_true(c[1].value == 710.0);
    assert_int_equal(c[1].run_id, h200);
    const sb_ceiling_aside *a = sb_snapshot_set_aside(snap, &n);
    assert_int_equal(n, 2);
    assert_string_equal(a[0].sku, "h100-sxm5-80gb");
    assert_string_equal(a[0].ceiling.name, "bw.copy");
    assert_int_equal(a[0].ceiling.run_id, bad_h100);
    assert_true(a[0].datasheet == 3350.0);
    assert_string_equal(a[1].sku, "h200-sxm-141gb");
    assert_string_equal(a[1].ceiling.name, "gemm.fp16");
    assert_true(a[1].ceiling.value == 1e6);
    assert_true(a[1].datasheet == 989.5);
    sb_snapshot_free(snap);
    /* without the datasheet nothing is set aside */
    assert_int_equal(sb_snapshot_read(db, NULL, &snap, &err), SB_OK);
    c = sb_snapshot_ceilings(snap, "h100-sxm5-80gb", &n, &run);
    assert_true(c[0].value == 1.0);
    assert_null(sb_snapshot_set_aside(snap, &n));
    sb_snapshot_free(snap);
    sb_db_close(db);
    sb_sku_table_free(skus);
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

/* What a calibration needs to be a card's: one measured ceiling. */
static sb_calibration *one_cal(long long run_id, double copy)
{
    sb_calibration *k = calloc(1, sizeof *k);
    assert_non_null(k);
    k->ceilings = calloc(1, sizeof *k->ceilings);
    assert_non_null(k->ceilings);
    k->run_id = run_id;
    k->n = 1;
    snprintf(k->ceilings[0].name, sizeof k->ceilings[0].name, "bw.copy");
    k->ceilings[0].value = copy;
    return k;
}

static void test_add_card_once(void **state)
{
    (void)state;
    sb_snapshot *s = sb_snapshot_new();
    assert_non_null(s);
    sb_error err;
    assert_int_equal(sb_snapshot_add_card(s, "x", NULL, one_cal(7, 1.0), 1, &err), SB_OK);
    /* a second card of the same SKU is refused (and freed) */
    assert_int_equal(sb_snapshot_add_card(s, "x", NULL, one_cal(8, 2.0), 1, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "added twice"));
    size_t n = 0;
    long long run = 0;
    assert_true(sb_snapshot_ceilings(s, "x", &n, &run)->value == 1.0);
    assert_int_equal(run, 7);
    /* not finite or not positive: set aside with or without a datasheet */
    assert_int_equal(sb_snapshot_add_card(s, "y", NULL, one_cal(9, -1.0), 1, &err), SB_OK);
    assert_null(sb_snapshot_ceilings(s, "y", &n, &run));
    assert_int_equal(run, -1);
    const sb_ceiling_aside *a = sb_snapshot_set_aside(s, &n);
    assert_int_equal(n, 1);
    assert_int_equal(a[0].ceiling.run_id, 9);
    assert_true(a[0].datasheet == 0);
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
