/* test_snapshot.c - the snapshot reports read (model/snapshot.h), filled
 * by db/snapshot_read.h: every calibrated SKU's newest ceilings are what
 * sb_ceilings_latest reads, its calibrations come newest first, and a SKU
 * without one reads as none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "results_query.h"
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
        cmocka_unit_test(test_add_card_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
