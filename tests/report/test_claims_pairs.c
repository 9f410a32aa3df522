/* test_claims_pairs.c - claims.c refuses a headline pair whose two sides
 * differ in GPU UUID, session, timing method or correctness check
 * (docs/CLAIMS.md, rule 8), naming the pair; and takes a like pair. A
 * week's headlines are of the session runs that finished in it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "claims.h"
#include "isoweek.h"
#include "sessions.h"

static sb_session_run side(long long id, const char *provider)
{
    sb_session_run r;
    memset(&r, 0, sizeof r);
    r.run_id = id;
    r.session_id = (char *)"f0d8a8fb00000000000000000000000a";
    r.timing_method = (char *)"held-launch";
    r.check_version = (char *)"float64-rows-poisoned-1";
    r.gpu_uuid = (char *)"GPU-b8e7e832-0000-0000-0000-000000000000";
    r.sku = (char *)"h100-sxm5-80gb";
    r.op = (char *)"rmsnorm";
    r.mode = (char *)"fwd";
    r.dtype = (char *)"bf16";
    r.shape_key = (char *)"M=4096,N=4096";
    r.provider = (char *)provider;
    r.status = (char *)"passed";
    return r;
}

/* One side changed in one field: refused, and the message names the pair,
 * its runs and what differs. */
static void expect_refused(sb_session_run a, sb_session_run b, const char *what)
{
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_claims_pair_check(&a, &b, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "fused over liger"));
    assert_non_null(strstr(err.msg, "runs 11 and 12"));
    assert_non_null(strstr(err.msg, what));
}

static void test_mixed_pairs_refused(void **state)
{
    (void)state;
    sb_session_run a = side(11, "fused"), b = side(12, "liger");
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_claims_pair_check(&a, &b, &err), SB_OK);

    b.gpu_uuid = (char *)"GPU-76b7fdd5-0000-0000-0000-000000000000";
    expect_refused(a, b, "GPU UUID GPU-b8e7e832-0000-0000-0000-000000000000 against GPU-76b7fdd5");
    b = side(12, "liger");
    b.gpu_uuid = NULL;
    expect_refused(a, b, "GPU UUID GPU-b8e7e832-0000-0000-0000-000000000000 against (none)");
    b = side(12, "liger");
    b.sku = (char *)"h200-sxm-141gb";
    expect_refused(a, b, "SKU h100-sxm5-80gb against h200-sxm-141gb");
    b = side(12, "liger");
    b.session_id = (char *)"a10443cf00000000000000000000000b";
    expect_refused(a, b, "session f0d8a8fb");
    b = side(12, "liger");
    b.timing_method = (char *)"profiler-kernel-sum";
    expect_refused(a, b, "timing method held-launch against profiler-kernel-sum");
    b = side(12, "liger");
    b.check_version = (char *)"float64-rows-0";
    expect_refused(a, b, "correctness check float64-rows-poisoned-1 against float64-rows-0");
}

/* A headline holding one mixed pair among like ones is refused as a whole. */
static void test_headline_with_mixed_pair_refused(void **state)
{
    (void)state;
    sb_session_run runs[4] = {side(11, "fused"), side(12, "liger"), side(13, "fused"), side(14, "liger")};
    runs[3].timing_method = (char *)"cuda-graph";
    sb_session_pair pairs[2];
    memset(pairs, 0, sizeof pairs);
    pairs[0].target = &runs[0];
    pairs[0].base = &runs[1];
    pairs[1].target = &runs[2];
    pairs[1].base = &runs[3];
    size_t idx[2] = {0, 1};
    sb_session_headline hl;
    memset(&hl, 0, sizeof hl);
    hl.pair = idx;
    hl.count = 1;
    sb_session_headlines h;
    memset(&h, 0, sizeof h);
    h.report.pairs = pairs;
    h.report.npairs = 2;
    h.v = &hl;
    h.n = 1;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_claims_headlines_check(&h, &err), SB_OK);
    hl.count = 2;
    assert_int_equal(sb_claims_headlines_check(&h, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "runs 13 and 14"));
    assert_non_null(strstr(err.msg, "timing method held-launch against cuda-graph"));
}

/* A session run as sb_session_runs_select gives it: every string its own. */
static sb_session_run owned(long long id, const char *provider, const char *samples)
{
    sb_session_run r = side(id, provider);
    char **strs[] = {&r.session_id, &r.timing_method, &r.check_version, &r.gpu_uuid, &r.op, &r.mode, &r.dtype,
                     &r.shape_key, &r.provider, &r.status};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        *strs[i] = strdup(*strs[i]);
    r.params_json = strdup("{}");
    r.case_key = strdup("rmsnorm|fwd|bf16|M=4096,N=4096|{}");
    r.suite = strdup("liger-perkernel");
    r.sku = strdup("h100-sxm5-80gb");
    r.arch = strdup("H100");
    r.git_sha = strdup("2c65d93");
    /* started on the Sunday of 2026-W48, finished on the Monday of W49 */
    r.started_at = strdup("2026-11-29T23:59:00Z");
    r.finished_at = strdup("2026-11-30T00:01:00Z");
    r.kernel_samples = strdup(samples);
    r.peak_absolute_bytes = r.peak_beyond_inputs_bytes = -1;
    r.hold_timeouts = -1;
    return r;
}

/* The headlines of one week: a session that started in W48 and finished
 * in W49 is W49's, as its runs are counted there. */
static size_t week_headlines(int week)
{
    sb_session_runs runs = {calloc(2, sizeof(sb_session_run)), 2};
    assert_non_null(runs.v);
    runs.v[0] = owned(11, "fused", "[[1.0, 1.0, 1.0], [1.1, 1.1, 1.1], [0.9, 0.9, 0.9]]");
    runs.v[1] = owned(12, "liger", "[[2.0, 2.0, 2.0], [2.1, 2.1, 2.1], [1.9, 1.9, 1.9]]");
    long long from, to;
    sb_isoweek_range(2026, week, &from, &to);
    const char *const bases[] = {"liger", NULL};
    sb_session_headlines h;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_session_headlines_take(&runs, NULL, bases, from, to, &h, &err), SB_OK);
    size_t n = h.n;
    if (n) {
        assert_string_equal(h.v[0].provider, "fused");
        assert_string_equal(h.v[0].baseline, "liger");
        assert_true(h.v[0].geomean.ratio > 1.9 && h.v[0].geomean.ratio < 2.1);
    }
    sb_session_headlines_free(&h);
    return n;
}

static void test_week_by_finish_time(void **state)
{
    (void)state;
    assert_int_equal(week_headlines(49), 1);
    assert_int_equal(week_headlines(48), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_pairs_refused),
        cmocka_unit_test(test_headline_with_mixed_pair_refused),
        cmocka_unit_test(test_week_by_finish_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
