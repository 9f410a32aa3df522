/* test_regress_aa.c - the history's threshold of a held-launch step from
 * the stored A/A sessions (report/regress.h, sb_rg_threshold): a step
 * whose runs held every launch takes the A/A change (the 95th percentile,
 * sb_aa_change) of the comparisons whose runs held, one where a run's
 * hold was let go takes that of the comparisons where one was let go,
 * and a step of a kind with no such comparison falls back to min_effect;
 * one session far from the others does not set the threshold alone. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "connection.h"
#include "fixture.h"
#include "regress.h"
#include "results_query.h"
#include "session_query.h"

static char tmpdir[256];

static const double SAMPLES[] = {1.0, 1.0, 1.0, 1.0};
static const char *UUID = "GPU-aaaaaaaa-0000-0000-0000-000000000001";

/* One A/A run: copy of provider "liger" in session sid, its kernel time
 * round by round (2 samples a round, both at the round's value) and the
 * rounds whose hold was let go. */
static void add_aa_run(sb_db *w, const char *sid, int copy, const double *rounds, int nrounds,
                       int hold_timeouts, const char *finished_at)
{
    fx_result r = {0};
    r.suite = "liger-perkernel";
    r.op = "cross_entropy";
    r.provider = "liger";
    r.shape_key = "M=4096,V=32768";
    r.dtype = "bf16";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.git_sha = "ad00000000000000000000000000000000000000";
    r.finished_at = finished_at;
    r.samples = SAMPLES;
    r.nsamples = 4;
    r.gpu_uuid = UUID;
    long long id = fx_add_result(w, &r);
    char kernel[256] = "[";
    for (int i = 0; i < nrounds; i++)
        snprintf(kernel + strlen(kernel), sizeof kernel - strlen(kernel), "%s[%g,%g]", i ? "," : "",
                 rounds[i], rounds[i]);
    strcat(kernel, "]");
    char sql[1024];
    snprintf(sql, sizeof sql,
             "UPDATE runs SET raw_json = json_set(raw_json, '$.timing.kernel.samples', json('%s'),"
             " '$.timing.kernel.hold_timeouts', %d) WHERE id = %lld",
             kernel, hold_timeouts, id);
    fx_exec(w, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO run_sessions (run_id, session_id, copy, rounds, timing_method, check_version,"
             " gpu_uuid) VALUES (%lld, '%s', %d, %d, 'held-launch', 'v1', '%s')",
             id, sid, copy, nrounds, UUID);
    fx_exec(w, sql);
}

/* A step's run of that case, timed by held launch, with hold_timeouts. */
static sb_result step_run(int hold_timeouts)
{
    static char provider[] = "liger", sku[] = "h100-sxm5-80gb";
    sb_result r;
    memset(&r, 0, sizeof r);
    r.provider = provider;
    r.sku = sku;
    r.launch_hold = 1;
    r.hold_timeouts = hold_timeouts;
    return r;
}

/* A database's session runs and A/A noise, as the history loads them. */
typedef struct loaded {
    sb_db *db;
    sb_result_set all;
    sb_rg_aa *aa;
} loaded;

#define MIN_EFFECT 0.005

static void load(const char *path, size_t nruns, loaded *l)
{
    sb_error err;
    l->db = NULL;
    assert_int_equal(sb_db_open_reader(path, &l->db, &err), SB_OK);
    assert_int_equal(sb_results_load_sessions(l->db, &l->all, &err), SB_OK);
    assert_int_equal(l->all.n, nruns);
    sb_rg_opts o;
    memset(&o, 0, sizeof o);
    o.alpha = 0.01;
    o.min_effect = MIN_EFFECT;
    sb_session_runs runs = {0};
    assert_int_equal(sb_session_runs_load(l->db, NULL, 0, &runs, &err), SB_OK);
    assert_int_equal(sb_rg_aa_new(&runs, &o, &l->aa, &err), SB_OK);
    sb_session_runs_free(&runs);
}

/* A step's two runs of the stored case, both holding every launch. */
static void held_steps(const loaded *l, sb_result *a, sb_result *b)
{
    *a = step_run(0);
    *b = step_run(0);
    a->case_key = b->case_key = l->all.v[0].case_key;
    a->input_sets = b->input_sets = l->all.v[0].input_sets;
}

/* The threshold of a held step of the stored case on one card. */
static double held_step_threshold(const loaded *l, sb_rg_threshold_from *from)
{
    sb_result a, b;
    held_steps(l, &a, &b);
    return sb_rg_threshold(l->aa, &a, &b, 1, MIN_EFFECT, from);
}

static void unload(loaded *l)
{
    sb_rg_aa_free(l->aa);
    sb_results_free(&l->all);
    sb_db_close(l->db);
}

static void test_threshold_by_hold(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/aa.db", tmpdir);
    sb_db *w = fx_create(p);
    /* held: copy 1 is 1% slower each round; let go: 20% slower */
    const double held0[] = {1.00, 1.00, 1.00}, held1[] = {1.01, 1.01, 1.01};
    const double go0[] = {1.00, 1.00, 1.00}, go1[] = {1.20, 1.20, 1.20};
    add_aa_run(w, "11111111111111111111111111111111", 0, held0, 3, 0, "2026-11-16T08:00:00Z");
    add_aa_run(w, "11111111111111111111111111111111", 1, held1, 3, 0, "2026-11-16T08:00:01Z");
    add_aa_run(w, "22222222222222222222222222222222", 0, go0, 3, 2, "2026-11-17T08:00:00Z");
    add_aa_run(w, "22222222222222222222222222222222", 1, go1, 3, 1, "2026-11-17T08:00:01Z");
    sb_db_close(w);

    loaded l;
    load(p, 4, &l);
    /* the stored hold of each run reaches the history's runs */
    int held = 0, let_go = 0;
    for (size_t i = 0; i < l.all.n; i++) {
        held += l.all.v[i].hold_timeouts == 0;
        let_go += l.all.v[i].hold_timeouts > 0;
    }
    assert_int_equal(held, 2);
    assert_int_equal(let_go, 2);

    sb_result a, b;
    held_steps(&l, &a, &b);
    sb_rg_threshold_from from;
    /* held on one card: 1.5 times the held session's 1%, not the let-go 20% */
    double t = sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from);
    printf("held step, one card: threshold %.4f (%s)\n", t, sb_rg_threshold_from_name(from));
    assert_int_equal(from, SB_RG_FROM_CASE_AA);
    assert_true(t > 0.0149 && t < 0.0151);
    /* a let-go run on either side: the let-go comparisons, whose largest
     * change is the session's 20% (the two sessions' copies 0 across
     * sessions on one card differ by nothing) */
    b.hold_timeouts = 3;
    t = sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from);
    printf("let-go step, one card: threshold %.4f (%s)\n", t, sb_rg_threshold_from_name(from));
    assert_int_equal(from, SB_RG_FROM_CASE_AA);
    assert_true(t > 0.2999 && t < 0.3001);
    a.hold_timeouts = 1;
    b.hold_timeouts = 0;
    assert_true(fabs(sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from) - t) < 1e-12);
    /* not recorded (-1) is no let-go round */
    a.hold_timeouts = b.hold_timeouts = -1;
    t = sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from);
    assert_true(t > 0.0149 && t < 0.0151);
    /* runs of another protocol of inputs (buffers of their own each
     * turn) have no A/A of their case: the A/A runs kept theirs */
    long long kept = a.input_sets;
    a.input_sets = b.input_sets = kept + 9;
    t = sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from);
    printf("held step of another protocol of inputs: threshold %.4f (%s)\n", t, sb_rg_threshold_from_name(from));
    assert_int_not_equal(from, SB_RG_FROM_CASE_AA);
    a.input_sets = b.input_sets = kept;

    unload(&l);
}

/* Only held A/A comparisons stored: a let-go step has no A/A of its kind
 * and takes min_effect on one card. */
static void test_let_go_without_aa(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/held.db", tmpdir);
    sb_db *w = fx_create(p);
    const double held0[] = {1.00, 1.00, 1.00}, held1[] = {1.02, 1.02, 1.02};
    add_aa_run(w, "33333333333333333333333333333333", 0, held0, 3, 0, "2026-11-16T08:00:00Z");
    add_aa_run(w, "33333333333333333333333333333333", 1, held1, 3, 0, "2026-11-16T08:00:01Z");
    sb_db_close(w);

    loaded l;
    load(p, 2, &l);
    sb_result a, b;
    held_steps(&l, &a, &b);
    sb_rg_threshold_from from;
    double t = sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from);
    assert_int_equal(from, SB_RG_FROM_CASE_AA);
    assert_true(t > 0.0299 && t < 0.0301);
    b.hold_timeouts = 1;
    t = sb_rg_threshold(l.aa, &a, &b, 1, MIN_EFFECT, &from);
    printf("let-go step without let-go A/A: threshold %.4f (%s)\n", t, sb_rg_threshold_from_name(from));
    assert_int_equal(from, SB_RG_FROM_MIN_EFFECT);
    assert_true(t == MIN_EFFECT);
    unload(&l);
}

/* Seven sessions: copies 1% apart in six, 30% in one, copies 0 alike.
 * The 28 comparisons on one card (7 paired, 21 across sessions) have
 * the 95th percentile 1%: the step's threshold is 1.5%, not 45%. */
static void test_one_far_session(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/far.db", tmpdir);
    sb_db *w = fx_create(p);
    const double c0[] = {1.00, 1.00, 1.00}, c1[] = {1.01, 1.01, 1.01}, far[] = {1.30, 1.30, 1.30};
    for (int s = 0; s < 7; s++) {
        char sid[33], at[32];
        snprintf(sid, sizeof sid, "%032d", 40 + s);
        snprintf(at, sizeof at, "2026-11-%02dT08:00:00Z", 10 + s);
        add_aa_run(w, sid, 0, c0, 3, 0, at);
        snprintf(at, sizeof at, "2026-11-%02dT08:00:01Z", 10 + s);
        add_aa_run(w, sid, 1, s == 3 ? far : c1, 3, 0, at);
    }
    sb_db_close(w);

    loaded l;
    load(p, 14, &l);
    sb_rg_threshold_from from;
    double t = held_step_threshold(&l, &from);
    printf("held step, one card, one session 30%% apart among seven 1%% apart: threshold %.4f (%s)\n", t,
           sb_rg_threshold_from_name(from));
    assert_int_equal(from, SB_RG_FROM_CASE_AA);
    assert_true(t > 0.0149 && t < 0.0151);
    unload(&l);
}

static int setup(void **state)
{
    (void)state;
    return fx_tmpdir_make(tmpdir, sizeof tmpdir, "regress-aa");
}

static int teardown(void **state)
{
    (void)state;
    return fx_tmpdir_remove(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold_by_hold),
        cmocka_unit_test(test_let_go_without_aa),
        cmocka_unit_test(test_one_far_session),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
