/* test_session_flood.c - sb_session_compare on many runs: the newest
 * session's pair of each case, SKU, target and baseline is the one
 * grouped, groups come in the order of their first pairs, and a session's
 * case flooded with providers (a hostile folder of 1,000 runs took hours:
 * its pairs grow as the square) is left out and counted, not paired,
 * and has no A/A comparisons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sessions.h"
#include "stats.h"

#define SAMPLES "[[1.0, 1.0, 1.0], [1.1, 1.1, 1.1], [0.9, 0.9, 0.9]]"
#define SLOWER "[[2.0, 2.0, 2.0], [2.2, 2.2, 2.2], [1.8, 1.8, 1.8]]"

static char names[200][16];

static sb_session_run run(long long id, const char *session, const char *case_key, const char *provider,
                          const char *samples)
{
    sb_session_run r;
    memset(&r, 0, sizeof r);
    r.run_id = id;
    r.session_id = (char *)session;
    r.timing_method = (char *)"held-launch";
    r.check_version = (char *)"float64-rows-poisoned-1";
    r.gpu_uuid = (char *)"GPU-b8e7e832-0000-0000-0000-000000000000";
    r.sku = (char *)"h100-sxm5-80gb";
    r.arch = (char *)"h100";
    r.op = (char *)"rmsnorm";
    r.mode = (char *)"fwd";
    r.dtype = (char *)"bf16";
    r.shape_key = (char *)case_key;
    r.case_key = (char *)case_key;
    r.provider = (char *)provider;
    r.status = (char *)"passed";
    r.kernel_samples = (char *)samples;
    r.peak_absolute_bytes = r.peak_beyond_inputs_bytes = -1;
    r.hold_timeouts = -1;
    return r;
}

/* Two sessions measure case A; the older one also case B. Only the newer
 * session's pairs of A are grouped, with the older one's of B; the group
 * holds them in the order of the pairs. */
static void test_newest_pairs_grouped(void **state)
{
    (void)state;
    sb_session_run v[] = {
        run(1, "s1", "A", "fused", SAMPLES), run(2, "s1", "A", "liger", SLOWER),
        run(3, "s1", "B", "fused", SAMPLES), run(4, "s1", "B", "liger", SLOWER),
        run(5, "s2", "A", "fused", SAMPLES), run(6, "s2", "A", "liger", SAMPLES),
    };
    sb_session_runs runs = {v, sizeof v / sizeof v[0]};
    sb_session_report r;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_session_compare(&runs, "fused", 0.95, 0.02, &r, &err), SB_OK);
    assert_int_equal(r.npairs, 3);
    assert_false(r.pairs[0].newest); /* s1's A, replaced by s2's */
    assert_true(r.pairs[1].newest);
    assert_true(r.pairs[2].newest);
    assert_int_equal(r.ngroups, 1);
    assert_string_equal(r.groups[0].provider, "fused");
    assert_string_equal(r.groups[0].baseline, "liger");
    assert_int_equal(r.groups[0].count, 2);
    assert_int_equal(r.groups[0].pair[0], 1);
    assert_int_equal(r.groups[0].pair[1], 2);
    assert_int_equal(r.refused, 0);
    sb_session_report_free(&r);

    /* every provider a target: groups in the order of their first pair */
    assert_int_equal(sb_session_compare(&runs, NULL, 0.95, 0.02, &r, &err), SB_OK);
    assert_int_equal(r.npairs, 6);
    assert_int_equal(r.ngroups, 2);
    assert_string_equal(r.groups[0].provider, "fused");
    assert_string_equal(r.groups[1].provider, "liger");
    assert_string_equal(r.groups[1].baseline, "fused");
    assert_int_equal(r.groups[1].count, 2);
    sb_session_report_free(&r);
}

/* n providers of one case in one session. */
static size_t flood(size_t n, sb_session_report *r)
{
    sb_session_run *v = calloc(n, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "p%03zu", i);
        v[i] = run((long long)i + 1, "s1", "A", names[i], i % 2 ? SLOWER : SAMPLES);
    }
    sb_session_runs runs = {v, n};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_session_compare(&runs, NULL, 0.95, 0.02, r, &err), SB_OK);
    size_t pairs = r->npairs;
    free(v);
    return pairs;
}

static void test_flooded_case_left_out(void **state)
{
    (void)state;
    sb_session_report r;
    size_t n = SB_SESSION_CASE_RUNS_MAX;
    assert_int_equal(flood(n, &r), n * (n - 1));
    assert_int_equal(r.refused, 0);
    assert_int_equal(r.ngroups, n * (n - 1));
    sb_session_report_free(&r);

    assert_int_equal(flood(n + 1, &r), 0);
    assert_int_equal(r.refused, 1);
    assert_int_equal(r.ngroups, 0);
    char want[128];
    snprintf(want, sizeof want, "one of %zu runs of one case in one session, more than %d", n + 1,
             SB_SESSION_CASE_RUNS_MAX);
    assert_non_null(strstr(r.first_refusal, want));
    sb_session_report_free(&r);
}

static const sb_noise_opts NOISE_OPTS = {0.95, 0.02, 0.01, 0.03};

/* sb_noise_measure of v's n runs at NOISE_OPTS into *r. */
static void noise_of(sb_session_run *v, size_t n, sb_noise_report *r)
{
    sb_session_runs runs = {v, n};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_noise_measure(&runs, &NOISE_OPTS, r, &err), SB_OK);
}

/* n runs of one provider's case in one session, copies 0 and 1 by turns:
 * their A/A comparisons, none where the case is flooded. */
static size_t aa_flood(size_t n)
{
    sb_session_run *v = calloc(n, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        v[i] = run((long long)i + 1, "s1", "A", "fused", i % 4 < 2 ? SAMPLES : SLOWER);
        v[i].copy = (int)(i % 2);
    }
    sb_noise_report r;
    noise_of(v, n, &r);
    size_t got = r.kind[SB_NOISE_SESSION].n;
    sb_noise_report_free(&r);
    free(v);
    return got;
}

static void test_flooded_case_no_noise(void **state)
{
    (void)state;
    assert_true(aa_flood(SB_SESSION_CASE_RUNS_MAX) > 0);
    assert_int_equal(aa_flood(SB_SESSION_CASE_RUNS_MAX + 2), 0);
}

/* The held-out threshold of every A/A comparison, against the comparisons
 * of its key that share no session with it, each gathered, sorted and
 * picked by sb_aa_change as the definition says: nine sessions on two
 * cards of one SKU, two providers, two copies, round medians that differ. */
static char held_samples[64][160];

static int same_key(const sb_noise_cmp *x, const sb_noise_cmp *y)
{
    return sb_noise_same_card(x->kind) == sb_noise_same_card(y->kind) && x->let_go == y->let_go &&
           x->a->input_sets == y->a->input_sets && strcmp(x->a->provider, y->a->provider) == 0 &&
           strcmp(x->a->case_key, y->a->case_key) == 0 && strcmp(x->a->sku, y->a->sku) == 0;
}

static int shares_session(const sb_noise_cmp *x, const sb_noise_cmp *y)
{
    return strcmp(x->a->session_id, y->a->session_id) == 0 || strcmp(x->a->session_id, y->b->session_id) == 0 ||
           strcmp(x->b->session_id, y->a->session_id) == 0 || strcmp(x->b->session_id, y->b->session_id) == 0;
}

static void test_held_out_thresholds(void **state)
{
    (void)state;
    static const char *sessions[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"};
    static const char *providers[] = {"fused", "liger"};
    sb_session_run v[36];
    size_t n = 0;
    for (size_t s = 0; s < 9; s++)
        for (size_t p = 0; p < 2; p++)
            for (int copy = 0; copy < 2; copy++, n++) {
                double base = 1.0 + 0.01 * (double)((n * 7919) % 23), step = 0.002 * (double)(n % 5);
                snprintf(held_samples[n], sizeof held_samples[n], "[[%.4f,%.4f,%.4f],[%.4f,%.4f,%.4f],[%.4f,%.4f,%.4f]]",
                         base, base, base, base + step, base + step, base + step, base - step, base - step,
                         base - step);
                v[n] = run((long long)n + 1, sessions[s], "A", providers[p], held_samples[n]);
                v[n].copy = copy;
                v[n].gpu_uuid = (char *)(s % 2 ? "GPU-b8e7e832-0000-0000-0000-000000000000"
                                               : "GPU-91a2875a-0000-0000-0000-000000000000");
            }
    sb_noise_report r;
    noise_of(v, n, &r);
    assert_true(r.kind[SB_NOISE_SESSION].n > 0 && r.kind[SB_NOISE_CARD].n > 0 && r.kind[SB_NOISE_SKU].n > 0);
    double *held = malloc(r.ncmp * sizeof *held);
    assert_non_null(held);
    size_t judged = 0;
    for (size_t i = 0; i < r.ncmp; i++) {
        const sb_noise_cmp *c = &r.cmp[i];
        size_t m = 0;
        for (size_t j = 0; j < r.ncmp; j++)
            if (same_key(c, &r.cmp[j]) && !shares_session(c, &r.cmp[j]))
                held[m++] = r.cmp[j].change;
        assert_int_equal(c->held_out, m);
        if (!m) {
            assert_true(c->threshold != c->threshold);
            continue;
        }
        sb_sort_ascending(held, m);
        double floor = c->kind == SB_NOISE_SESSION ? NOISE_OPTS.paired_threshold : NOISE_OPTS.unpaired_threshold;
        assert_true(c->threshold == sb_aa_threshold(sb_aa_change(held, m), floor));
        judged++;
    }
    assert_int_equal(r.ncmp, 18 + 32 + 40); /* in sessions; on one card; on two */
    assert_int_equal(judged, r.ncmp);
    free(held);
    sb_noise_report_free(&r);
}

/* Across sessions, a run meets the SB_NOISE_ACROSS_SESSIONS sessions
 * after its own, not every later one: 70 sessions of one case on one
 * card give 70 comparisons within sessions and, across, 64 for each of
 * the first 6 sessions and 63, 62, ... 0 for the rest. */
static void test_across_sessions_bounded(void **state)
{
    (void)state;
    enum { SESSIONS = SB_NOISE_ACROSS_SESSIONS + 6 };
    static char ids[SESSIONS][16];
    static sb_session_run v[2 * SESSIONS];
    size_t n = 0;
    for (size_t s = 0; s < SESSIONS; s++) {
        snprintf(ids[s], sizeof ids[s], "s%03zu", s);
        for (int copy = 0; copy < 2; copy++, n++) {
            v[n] = run((long long)n + 1, ids[s], "A", "fused", copy ? SLOWER : SAMPLES);
            v[n].copy = copy;
        }
    }
    sb_noise_report r;
    noise_of(v, n, &r);
    size_t across = 0;
    for (size_t i = 0; i < SESSIONS; i++)
        across += SESSIONS - 1 - i < SB_NOISE_ACROSS_SESSIONS ? SESSIONS - 1 - i : SB_NOISE_ACROSS_SESSIONS;
    assert_int_equal(r.kind[SB_NOISE_SESSION].n, SESSIONS);
    assert_int_equal(r.kind[SB_NOISE_CARD].n, across);
    assert_int_equal(across, 6 * SB_NOISE_ACROSS_SESSIONS + SB_NOISE_ACROSS_SESSIONS * (SB_NOISE_ACROSS_SESSIONS - 1) / 2);
    /* each comparison across sessions pairs a session with one of the 64 after it */
    for (size_t i = 0; i < r.ncmp; i++) {
        if (r.cmp[i].kind != SB_NOISE_CARD)
            continue;
        int sa = atoi(r.cmp[i].a->session_id + 1), sb = atoi(r.cmp[i].b->session_id + 1);
        assert_true(sb > sa && sb - sa <= SB_NOISE_ACROSS_SESSIONS);
    }
    sb_noise_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_newest_pairs_grouped),
        cmocka_unit_test(test_flooded_case_left_out),
        cmocka_unit_test(test_flooded_case_no_noise),
        cmocka_unit_test(test_held_out_thresholds),
        cmocka_unit_test(test_across_sessions_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
