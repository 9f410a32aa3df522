/* test_claims_pairs.c - claims.c refuses a headline pair whose two sides
 * differ in GPU UUID, session, timing method or correctness check
 * (docs/CLAIMS.md, rule 8), naming the pair; and takes a like pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "claims.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_pairs_refused),
        cmocka_unit_test(test_headline_with_mixed_pair_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
