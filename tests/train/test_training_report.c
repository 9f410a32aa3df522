/* test_training_report.c - report/training.c on stored training files
 * (ingested from tests/data/train/llama-h100-ws4.json, varied per test, and
 * the constructed session of tests/data/train/session/) and op-level result
 * rows: which runs are paired, the figures of a pair, a session's paired
 * ratio and interval, the labels of the paired and not paired sections,
 * the claims recorded, the op-level rows beside them, the plot, the
 * window, escaping. */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "ingest.h"
#include "json_file.h"
#include "plausible.h"
#include "results_query.h"
#include "site_plaus.h"
#include "strbuf.h"
#include "training_render.h"

typedef struct world {
    char dir[256], db[300];
    json_t *base;      /* the fixture document */
    sb_ingest *ing;
    int n;             /* documents stored, for unique run_uuids */
} world;

static int setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    snprintf(w->dir, sizeof w->dir, "/tmp/sb-training-report-XXXXXX");
    assert_non_null(mkdtemp(w->dir));
    snprintf(w->db, sizeof w->db, "%s/t.db", w->dir);
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_json_load_file(SOLBOOK_TEST_DATA "/train/llama-h100-ws4.json", &w->base, &err), SB_OK);
    char schemas[4096];
    snprintf(schemas, sizeof schemas, "%s/data/schemas", getenv("SOLBOOK_HOME"));
    assert_int_equal(sb_ingest_open(w->db, schemas, &w->ing, &err), SB_OK);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    if (w->ing)
        sb_ingest_close(w->ing);
    json_decref(w->base);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
    assert_int_equal(system(cmd), 0);
    free(w);
    return 0;
}

/* One training run: the fixture with patch, world size, median step (ms),
 * finish time, status and loss gate (-1: none) changed. */
static long long add_run(world *w, const char *patch, int world_size, double median_ms, const char *finished_at,
                         const char *status, int gate)
{
    json_t *d = json_deep_copy(w->base);
    char uuid[33];
    snprintf(uuid, sizeof uuid, "%032x", ++w->n);
    json_object_set_new(d, "run_uuid", json_string(uuid));
    json_object_set_new(d, "status", json_string(status));
    if (strcmp(status, "passed") != 0)
        json_object_set_new(d, "reason", json_string("loss differs from run 0 at step 2"));
    json_t *p = json_object_get(d, "patch");
    json_object_set_new(p, "name", json_string(patch));
    if (strcmp(patch, "none") != 0)
        json_object_set_new(p, "kernels", json_pack("[s,s,s,s]", "rmsnorm", "rope", "swiglu", "flce"));
    json_object_set_new(json_object_get(d, "parallelism"), "world_size", json_integer(world_size));
    json_t *st = json_object_get(json_object_get(d, "timing"), "stats");
    const char *keys[] = {"min", "p20", "median", "p80", "max", "mean"};
    for (size_t i = 0; i < 6; i++)
        json_object_set_new(st, keys[i], json_real(median_ms));
    json_t *samples = json_pack("[f,f,f]", median_ms, median_ms, median_ms);
    json_object_set_new(json_object_get(d, "timing"), "samples", samples);
    double tokens = 2048.0 * world_size / (median_ms / 1e3);
    json_object_set_new(json_object_get(d, "throughput"), "tokens_per_s", json_real(tokens));
    json_object_set_new(json_object_get(d, "throughput"), "tokens_per_s_per_device", json_real(tokens / world_size));
    json_t *peaks = json_array();
    for (int i = 0; i < world_size; i++)
        json_array_append_new(peaks, json_integer(40000000000LL + (strcmp(patch, "none") ? -5000000000LL : 0) +
                                                  (i == 1 ? 1000000000LL : 0)));
    json_object_set_new(json_object_get(d, "memory"), "peak_device_bytes",
                        json_integer(json_integer_value(json_array_get(peaks, 0))));
    json_object_set_new(json_object_get(d, "memory"), "peak_device_bytes_per_rank", peaks);
    if (gate >= 0)
        json_object_set_new(json_object_get(d, "loss"), "check",
                            json_pack("{s:s,s:i,s:f,s:f,s:f,s:b}", "against_run_uuid", "00000000000000000000000000000001",
                                      "steps", 5, "atol", 0.01, "rtol", 0.005, "max_abs_diff", gate ? 0.004 : 0.9,
                                      "passed", gate));
    json_object_set_new(json_object_get(d, "provenance"), "finished_at", json_string(finished_at));
    long long id;
    int dup;
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_ingest_document(w->ing, d, "test", "solbook", &id, &dup, &err);
    if (rc != SB_OK)
        fprintf(stderr, "%s: %s\n", err.file, err.msg);
    assert_int_equal(rc, SB_OK);
    json_decref(d);
    return id;
}

/* One launch of the constructed session (tests/data/train/session/NAME.json),
 * with its GPU UUID replaced when gpu is not NULL and its loss gate set to
 * failed when gate_failed. */
static long long add_session_launch(world *w, const char *name, const char *gpu, int gate_failed)
{
    char path[512];
    snprintf(path, sizeof path, SOLBOOK_TEST_DATA "/train/session/%s.json", name);
    json_t *d;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_json_load_file(path, &d, &err), SB_OK);
    if (gpu)
        json_object_set_new(json_object_get(json_object_get(d, "provenance"), "device"), "uuid", json_string(gpu));
    if (gate_failed)
        json_object_set_new(json_object_get(json_object_get(d, "loss"), "check"), "passed", json_false());
    long long id;
    int dup;
    int rc = sb_ingest_document(w->ing, d, path, "solbook", &id, &dup, &err);
    if (rc != SB_OK)
        fprintf(stderr, "%s: %s\n", err.file, err.msg);
    assert_int_equal(rc, SB_OK);
    json_decref(d);
    return id;
}

/* Op-level rows on the fixture's SKU: liger and huggingface, full, bf16. */
static void add_op(sb_db *db, const char *op, const char *provider, double median_ms)
{
    fx_result r = {0};
    r.suite = "liger-perkernel";
    r.op = op;
    r.mode = "full";
    r.dtype = "bf16";
    r.provider = provider;
    r.shape_key = "H=4096,M=8192";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.finished_at = "2026-11-18T10:00:00Z";
    r.median_ms = median_ms;
    static const double s[] = {1.0, 1.0, 1.0};
    r.samples = s;
    r.nsamples = 3;
    fx_add_result(db, &r);
}

static void close_ingest(world *w)
{
    sb_ingest_close(w->ing);
    w->ing = NULL;
}

/* The section over the training runs finished in [from, to) when
 * has_range, else over every one, with every result run marked as the
 * CLI reads them. */
static char *render_window(world *w, const sb_training_opts *opts, sb_training_summary *sum,
                           int pairs_only, int has_range, long long from, long long to)
{
    sb_db *db;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_db_open(w->db, SB_DB_READ, &db, &err), SB_OK);
    sb_training_set runs = {0};
    sb_result_set all = {0};
    assert_int_equal(sb_training_load(db, has_range, from, to, &runs, &err), SB_OK);
    assert_int_equal(sb_results_load(db, NULL, &all, &err), SB_OK);
    assert_int_equal(sb_site_plaus_mark(db, &all, &err), SB_OK);
    sb_training_opts o = *opts;
    o.runs = &runs;
    o.all = &all;
    sb_buf b = SB_BUF_INIT;
    int rc = pairs_only ? sb_training_render_pairs_md(&o, &b, sum, &err) : sb_training_render_md(&o, &b, sum, &err);
    if (rc != SB_OK)
        fprintf(stderr, "%s: %s\n", err.file, err.msg);
    assert_int_equal(rc, SB_OK);
    sb_results_free(&all);
    sb_training_free(&runs);
    sb_db_close(db);
    return sb_buf_take(&b);
}

static char *render_as(world *w, const sb_training_opts *o, sb_training_summary *sum, int pairs_only)
{
    return render_window(w, o, sum, pairs_only, 0, 0, 0);
}

static char *render(world *w, const sb_training_opts *o, sb_training_summary *sum)
{
    return render_as(w, o, sum, 0);
}

/* The packet's part of the section, recording its claims into *claims. */
static char *render_claimed(world *w, sb_claims *claims, sb_training_summary *sum)
{
    close_ingest(w);
    sb_training_opts o = {0};
    o.claims = claims;
    return render_as(w, &o, sum, 1);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_pair_and_ops(void **state)
{
    world *w = *state;
    long long base = add_run(w, "none", 4, 500.0, "2026-11-20T12:00:00Z", "passed", -1);
    long long lig = add_run(w, "liger", 4, 400.0, "2026-11-20T12:10:00Z", "passed", 1);
    /* a newer baseline is not the one the liger run's gate names: the pair
     * keeps the gated one */
    add_run(w, "none", 4, 450.0, "2026-11-20T12:15:00Z", "passed", -1);
    /* a newer liger run that failed its gate is listed, not paired */
    add_run(w, "liger", 4, 300.0, "2026-11-20T12:20:00Z", "failed", 0);
    /* world size 8 has no baseline: no pair */
    add_run(w, "liger", 8, 300.0, "2026-11-20T12:30:00Z", "passed", 1);
    close_ingest(w);
    sb_db *db;
    db = fx_open(w->db);
    add_op(db, "rmsnorm", "liger", 1.0);
    add_op(db, "rmsnorm", "huggingface", 2.0);
    add_op(db, "swiglu", "liger", 1.0);
    add_op(db, "swiglu", "huggingface", 1.25);
    sb_db_close(db);

    sb_buf plot = SB_BUF_INIT;
    sb_training_opts o = {0};
    o.plot = &plot;
    sb_training_summary sum;
    char *md = render(w, &o, &sum);
    assert_int_equal(sum.runs, 5);
    assert_int_equal(sum.pairs, 1);
    assert_int_equal(sum.plot_drawn, 1);
    char row[512];
    /* 500 / 400 ms; tokens 2048 x 4 / 0.5 s and / 0.4 s; max rank peaks 41 and 36 GB */
    snprintf(row, sizeof row,
             "| meta-llama/Meta-Llama-3-8B | h100-sxm5-80gb | 4 | 2048 | 1 | liger | 16384 | 20480 | 1.250x | 41.0 | "
             "36.0 | passed | 0.004 | %lld, %lld |",
             base, lig);
    assert_non_null(strstr(md, row));
    assert_non_null(strstr(md, "| h100-sxm5-80gb | liger | rmsnorm | full | bf16 | 2.000x | call | 1 |"));
    assert_non_null(strstr(md, "| h100-sxm5-80gb | liger | swiglu | full | bf16 | 1.250x | call | 1 |"));
    assert_non_null(strstr(md, "| h100-sxm5-80gb | liger | rope | full | bf16 | - | - | 0 |"));
    assert_non_null(strstr(md, "| h100-sxm5-80gb | liger | flce | full | bf16 | - | - | 0 |"));
    assert_non_null(strstr(md, "![tokens/s, baseline against patched, not paired](training-tokens.svg)"));
    /* runs one after the other are no headline: they stand under their label */
    assert_true(strstr(md, "### Not paired: runs one after the other") < strstr(md, row));
    assert_non_null(strstr(md, "No training session pairs a patched run with its baseline"));
    assert_non_null(strstr(md, "| failed: loss differs from run 0 at step 2 |"));
    assert_int_equal(count(md, "| meta-llama/Meta-Llama-3-8B | h100-sxm5-80gb | liger |"), 3);
    assert_non_null(strstr(md, "end-to-end training step"));
    free(md);

    const char *svg = sb_buf_str(&plot);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, "none: 16384 tokens/s"));
    assert_non_null(strstr(svg, "liger: 20480 tokens/s"));
    sb_buf_free(&plot);
}

static void test_window_and_no_pair(void **state)
{
    world *w = *state;
    add_run(w, "none", 4, 500.0, "2026-11-10T12:00:00Z", "passed", -1); /* outside the window */
    add_run(w, "liger", 4, 400.0, "2026-11-20T12:10:00Z", "passed", 1);
    close_ingest(w);
    sb_training_opts o = {0};
    sb_buf plot = SB_BUF_INIT;
    o.plot = &plot;
    sb_training_summary sum;
    /* 2026-11-17 to 2026-11-24 */
    char *md = render_window(w, &o, &sum, 0, 1, 1794873600, 1795478400);
    assert_int_equal(sum.runs, 1);
    assert_int_equal(sum.pairs, 0);
    assert_int_equal(sum.plot_drawn, 0);
    assert_int_equal(plot.len, 0);
    assert_non_null(strstr(md, "No training session pairs a patched run with its baseline"));
    assert_null(strstr(md, "### Not paired"));
    assert_null(strstr(md, "step speedup"));
    free(md);
    sb_buf_free(&plot);
}

static void test_names_escaped(void **state)
{
    world *w = *state;
    json_object_set_new(json_object_get(w->base, "model"), "name", json_string("evil|<img src=x>"));
    add_run(w, "none", 4, 500.0, "2026-11-20T12:00:00Z", "passed", -1);
    close_ingest(w);
    sb_training_opts o = {0};
    sb_training_summary sum;
    char *md = render(w, &o, &sum);
    /* Markdown punctuation from the data is backslash-escaped: no table
     * cell split, no HTML tag */
    assert_non_null(strstr(md, "| evil\\|\\<img src=x\\> |"));
    for (const char *p = strstr(md, "<img"); p; p = strstr(p + 1, "<img"))
        assert_true(p > md && p[-1] == '\\');
    free(md);
}

static void test_session_paired(void **state)
{
    world *w = *state;
    long long b0 = add_session_launch(w, "r0-p0-baseline", NULL, 0);
    long long l0 = add_session_launch(w, "r0-p1-liger", NULL, 0);
    long long l1 = add_session_launch(w, "r1-p0-liger", NULL, 0);
    long long b1 = add_session_launch(w, "r1-p1-baseline", NULL, 0);
    /* and a sequential pair of another model, outside any session */
    long long sb = add_run(w, "none", 4, 500.0, "2026-11-20T12:00:00Z", "passed", -1);
    long long sl = add_run(w, "liger", 4, 400.0, "2026-11-20T12:10:00Z", "passed", 1);
    sb_claims claims = {0};
    sb_training_summary sum;
    char *md = render_claimed(w, &claims, &sum);
    assert_int_equal(sum.runs, 6);
    assert_int_equal(sum.sessions, 1);
    assert_int_equal(sum.pairs, 1);
    /* round ratios 90/100 and 93/102: geomean 0.9059, 95% t interval with
     * one degree of freedom 0.834-0.984; speedup 1/0.9059; medians over the
     * rounds 101.0 and 91.5 ms; GPU and session named */
    const char *row = "| meta-llama/Llama-3.2-1B | h100-sxm5-80gb | 1 x 2048 x 1 | liger | 0.906 (0.834-0.984) | 1.104x | "
                      "2 of 2 | 101.0 to 91.5 | 30.0 to 26.0 | 0.004 | 5e551011 | GPU-00000000 |";
    const char *at = strstr(md, row);
    assert_non_null(at);
    const char *paired = strstr(md, "### Paired: training sessions");
    const char *unpaired = strstr(md, "### Not paired: runs one after the other");
    const char *seq = strstr(md, "| meta-llama/Meta-Llama-3-8B | h100-sxm5-80gb | 4 x 2048 x 1 | liger | 1.250x |");
    assert_non_null(paired);
    assert_non_null(unpaired);
    assert_non_null(seq);
    assert_true(paired < at && at < unpaired && unpaired < seq);
    assert_non_null(strstr(md, "| step speedup, not paired |"));
    assert_null(strstr(md, "No training session pairs"));
    /* the claims: the ratio and the speedup of the session, on its four
     * launches; the not paired speedup on its two runs, of no session */
    assert_int_equal(claims.n, 3);
    assert_string_equal(claims.v[0].figure, "0.906");
    assert_string_equal(claims.v[0].provider, "liger");
    assert_string_equal(claims.v[0].baseline, "none");
    assert_string_equal(claims.v[0].sku, "h100-sxm5-80gb");
    assert_string_equal(claims.v[0].session, "5e551011000000000000000000000000");
    assert_int_equal(claims.v[0].nruns, 4);
    long long want[4] = {b0, l0, b1, l1};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(claims.v[0].runs[i], want[i]);
    assert_string_equal(claims.v[1].figure, "1.104x");
    assert_string_equal(claims.v[2].figure, "1.250x");
    assert_null(claims.v[2].session);
    assert_int_equal(claims.v[2].nruns, 2);
    assert_int_equal(claims.v[2].runs[0], sb);
    assert_int_equal(claims.v[2].runs[1], sl);
    /* the claims hold against the runs, each of its patch, card and session */
    sb_claim_run cited[6] = {{b0, "none", "h100-sxm5-80gb", "5e551011000000000000000000000000"},
                             {l0, "liger", "h100-sxm5-80gb", "5e551011000000000000000000000000"},
                             {l1, "liger", "h100-sxm5-80gb", "5e551011000000000000000000000000"},
                             {b1, "none", "h100-sxm5-80gb", "5e551011000000000000000000000000"},
                             {sb, "none", "h100-sxm5-80gb", NULL},
                             {sl, "liger", "h100-sxm5-80gb", NULL}};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_claims_verify(&claims, cited, 6, "the test", &err), SB_OK);
    /* a baseline launch said to be of another session fails them */
    cited[3].session = "ffffffff000000000000000000000000";
    assert_int_equal(sb_claims_verify(&claims, cited, 6, "the test", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "0.906 (liger over none on h100-sxm5-80gb, session 5e551011)"));
    sb_claims_free(&claims);
    free(md);

    /* the full section: the run list names each launch's session and round */
    sb_training_opts o = {0};
    md = render(w, &o, &sum);
    assert_int_equal(count(md, "| 5e551011, 0 |"), 2);
    assert_int_equal(count(md, "| 5e551011, 1 |"), 2);
    free(md);
}

static void test_session_refused_rounds(void **state)
{
    world *w = *state;
    add_session_launch(w, "r0-p0-baseline", NULL, 0);
    add_session_launch(w, "r0-p1-liger", NULL, 0);
    /* round 1's liger launch ran on another card: not like with like */
    add_session_launch(w, "r1-p0-liger", "GPU-99999999-1111-2222-3333-444444444444", 0);
    add_session_launch(w, "r1-p1-baseline", NULL, 0);
    sb_claims claims = {0};
    sb_training_summary sum;
    char *md = render_claimed(w, &claims, &sum);
    assert_int_equal(sum.sessions, 0);
    assert_int_equal(sum.pairs, 0);
    assert_int_equal(claims.n, 0);
    assert_non_null(strstr(md, "No training session pairs a patched run with its baseline in two or more rounds"));
    assert_non_null(strstr(md, "5e551011 (meta-llama/Llama-3.2-1B, h100-sxm5-80gb: 1 of 2 rounds paired, 1 refused, "
                               "0 lacking a side);"));
    assert_null(strstr(md, "0.906"));
    free(md);
    sb_claims_free(&claims);
}

static void test_session_gate_and_missing(void **state)
{
    world *w = *state;
    add_session_launch(w, "r0-p0-baseline", NULL, 0);
    add_session_launch(w, "r0-p1-liger", NULL, 1); /* its loss gate failed */
    add_session_launch(w, "r1-p0-liger", NULL, 0); /* round 1 lacks its baseline */
    close_ingest(w);
    sb_training_opts o = {0};
    sb_training_summary sum;
    char *md = render_as(w, &o, &sum, 1);
    assert_int_equal(sum.sessions, 0);
    assert_non_null(strstr(md, "5e551011 (meta-llama/Llama-3.2-1B, h100-sxm5-80gb: 0 of 2 rounds paired, 1 refused, "
                               "1 lacking a side);"));
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pair_and_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window_and_no_pair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_paired, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_refused_rounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_gate_and_missing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
