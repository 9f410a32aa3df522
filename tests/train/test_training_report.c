/* test_training_report.c - report/training.c on stored training files
 * (ingested from tests/data/train/llama-h100-ws4.json, varied per test) and
 * op-level result rows: which runs are paired, the figures of a pair, the
 * op-level rows beside it, the plot, the window, escaping. */
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
#include "strbuf.h"
#include "training.h"

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

static char *render(world *w, const sb_training_opts *o, sb_training_summary *sum)
{
    sb_db *db;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_db_open(w->db, SB_DB_READ, &db, &err), SB_OK);
    sb_buf b = SB_BUF_INIT;
    int rc = sb_training_render_md(db, o, &b, sum, &err);
    if (rc != SB_OK)
        fprintf(stderr, "%s: %s\n", err.file, err.msg);
    assert_int_equal(rc, SB_OK);
    sb_db_close(db);
    return sb_buf_take(&b);
}

static void close_ingest(world *w)
{
    sb_ingest_close(w->ing);
    w->ing = NULL;
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
    assert_non_null(strstr(md, "![tokens/s, baseline against patched](training-tokens.svg)"));
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
    o.has_range = 1;
    o.from = 1794873600; /* 2026-11-17 */
    o.to = 1795478400;   /* 2026-11-24 */
    sb_buf plot = SB_BUF_INIT;
    o.plot = &plot;
    sb_training_summary sum;
    char *md = render(w, &o, &sum);
    assert_int_equal(sum.runs, 1);
    assert_int_equal(sum.pairs, 0);
    assert_int_equal(sum.plot_drawn, 0);
    assert_int_equal(plot.len, 0);
    assert_non_null(strstr(md, "No patched training run has a passing baseline"));
    assert_null(strstr(md, "step speedup |"));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pair_and_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window_and_no_pair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_escaped, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
