/* test_report_db.c - reports on crafted databases: geomean tables
 * recomputed independently from the inserted medians, SVG structure and
 * scales, the completion gate's and the regression test's verdicts,
 * weekly Markdown/HTML, and packets (manifest digests, passing runs only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "claims.h"
#include "commits.h"
#include "connection.h"
#include "crossarch.h"
#include "crossarch_render.h"
#include "fixture.h"
#include "gate.h"
#include "geomean.h"
#include "geomean_render.h"
#include "home.h"
#include "isoweek.h"
#include "json_file.h"
#include "packet.h"
#include "plaus_snap_db.h"
#include "plausible.h"
#include "plausible_render.h"
#include "site_plaus.h"
#include "site_rg.h"
#include "plots.h"
#include "compare.h"
#include "compare_render.h"
#include "file_name.h"
#include "regress.h"
#include "regress_render.h"
#include "repro.h"
#include "result_filter.h"
#include "rg_ask_read.h"
#include "rg_steps.h"
#include "rg_stored_db.h"
#include "results.h"
#include "sku.h"
#include "results_query.h"
#include "run_details_read.h"
#include "run_devices.h"
#include "run_query.h"
#include "snapshot_read.h"
#include "weekly_render.h"
#include "sha256.h"
#include "site_weekly_read.h"

extern const double FX_STD_MEDIANS[2][3][3];
extern const char *const FX_STD_SHAPES[3];
extern const char *const FX_STD_SKUS[2];
extern const char *const FX_STD_ARCH[2];

static char tmpdir[256];

static void path_in_tmp(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

static sb_db *reopen(sb_db *w, const char *path)
{
    sb_db_close(w);
    sb_db *db = NULL;
    sb_error err;
    if (sb_db_open_reader(path, &db, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    return db;
}

/* A week's writeup built and published as `solbook report weekly` does. */
static int weekly_write(sb_db *db, const sb_sku_table *skus, const sb_weekly_opts *o,
                        sb_weekly_summary *sum, sb_error *err)
{
    sb_file_set files = {0};
    sb_site_weekly week_rows;
    sb_weekly_opts wo = *o;
    int rc = sb_site_weekly_read(db, skus, o, NULL, &week_rows, err);
    if (rc == SB_OK) {
        wo.regressions = week_rows.regressions;
        rc = sb_weekly_build(&week_rows.snap, &week_rows.steps, skus, &wo, sum, &files, err);
        sb_site_weekly_free(&week_rows);
    }
    if (rc == SB_OK)
        rc = sb_file_set_publish(&files, o->out_dir, SB_STAGE_MERGE, err);
    sb_file_set_free(&files);
    return rc;
}

/* A packet built from what it reads of db and published, as `solbook
 * packet` does: every result run, marked, and what sb_packet_needs
 * names. */
static int packet_write(sb_db *db, const sb_packet_opts *given, sb_packet_summary *sum, int *nothing,
                        sb_error *err)
{
    sb_packet_opts o = *given;
    sb_packet_inputs need;
    sb_result_set all = {0}, with_sessions = {0};
    sb_session_runs sessions = {0};
    sb_training_set training = {0};
    int64_t *ids = NULL;
    size_t nids = 0;
    sb_buf *docs = NULL;
    sb_result_filter wf = {0};
    wf.with_sessions = 1;
    sb_file_set files = {0};
    *nothing = 0;
    int rc = sb_packet_needs(o.target, o.op, &need, err);
    if (rc == SB_OK)
        rc = sb_results_load(db, NULL, &all, err);
    if (rc == SB_OK)
        rc = sb_site_plaus_mark(db, &all, err);
    if (rc == SB_OK && need.sessions) {
        rc = sb_results_load(db, &wf, &with_sessions, err);
        if (rc == SB_OK)
            rc = sb_site_plaus_session_runs(db, NULL, 0, NULL, &sessions, err);
    }
    if (rc == SB_OK && need.training)
        rc = sb_training_load(db, 0, 0, 0, &training, err);
    o.all = &all;
    o.with_sessions = &with_sessions;
    o.sessions = &sessions;
    o.training = &training;
    /* the two phases: the runs it cites, then their documents handed in */
    if (rc == SB_OK)
        rc = sb_packet_cites(&o, &ids, &nids, nothing, err);
    if (rc == SB_OK)
        rc = sb_run_docs_read(db, ids, nids, &docs, err);
    sb_packet_docs cited = {ids, docs, nids};
    o.docs = &cited;
    if (rc == SB_OK)
        rc = sb_packet_build(&o, sum, nothing, &files, err);
    sb_run_docs_free(docs, nids);
    free(ids);
    if (rc == SB_OK)
        rc = sb_file_set_publish_new(&files, o.out_dir, err);
    sb_file_set_free(&files);
    sb_results_free(&all);
    sb_results_free(&with_sessions);
    sb_session_runs_free(&sessions);
    sb_training_free(&training);
    return rc;
}

/* The snapshot reports take of db (its calibrations, held against the
 * shipped data/skus.csv). */
static sb_snapshot *snapshot_of(sb_db *db)
{
    sb_snapshot *snap = NULL;
    sb_sku_table *skus = NULL;
    sb_error err;
    if (sb_sku_table_load(NULL, &skus, &err) != SB_OK || sb_snapshot_read(db, skus, &snap, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    sb_sku_table_free(skus);
    return snap;
}

static sb_db *standard_db(const char *name)
{
    char p[512];
    path_in_tmp(p, sizeof p, name);
    sb_db *w = fx_create(p);
    fx_standard(w);
    return reopen(w, p);
}

static char *slurp(const char *path)
{
    char *s = NULL;
    size_t n = 0;
    sb_error err;
    if (sb_file_read_all(path, &s, &n, &err) != SB_OK) {
        fail_msg("%s: %s", err.file, err.msg);
        return NULL;
    }
    return s;
}

static size_t count(const char *hay, const char *needle)
{
    size_t c = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        c++;
    return c;
}

/* ---- geomean ---- */

static const sb_geo_row *find_row(const sb_geo_table *t, const char *sku, const char *prov,
                                  const char *base)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].sku, sku) && !strcmp(t->rows[i].provider, prov) &&
            !strcmp(t->rows[i].baseline, base))
            return &t->rows[i];
    return NULL;
}

static void test_geomean_tables(void **state)
{
    (void)state;
    sb_db *db = standard_db("geo.db");
    sb_error err;
    sb_result_set set;
    sb_pick *picks;
    size_t np;
    sb_geo_table geo;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(set.n, 18);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    assert_int_equal(np, 18);
    assert_int_equal(sb_geo_compute(&set, picks, np, NULL, &geo, &err), SB_OK);
    /* the headline baselines with passing runs: huggingface, then liger;
     * per SKU liger and torch over huggingface, torch over liger */
    assert_int_equal(geo.n, 6);
    assert_non_null(find_row(&geo, "h100-sxm5-80gb", "torch", "liger"));
    assert_null(find_row(&geo, "h100-sxm5-80gb", "huggingface", "liger"));
    /* SKUs ordered by arch, no A100 invented */
    assert_int_equal(geo.nskus, 2);
    assert_string_equal(geo.skus[0], "h100-sxm5-80gb");
    assert_string_equal(geo.skus[1], "h200-sxm-141gb");
    for (int k = 0; k < 2; k++) {
        for (int p = 1; p < 3; p++) {
            const sb_geo_row *g = find_row(&geo, FX_STD_SKUS[k], p == 1 ? "liger" : "torch",
                                           "huggingface");
            assert_non_null(g);
            assert_int_equal(g->time, SB_TIME_CALL);
            /* recompute: product of huggingface/provider over passing shapes */
            double logsum = 0, mn = INFINITY, mx = -INFINITY;
            int n = 0;
            for (int s = 0; s < 3; s++) {
                if (k == 1 && s == 1 && p == 1)
                    continue; /* failed correctness */
                double r = FX_STD_MEDIANS[k][s][0] / FX_STD_MEDIANS[k][s][p];
                logsum += log(r);
                mn = fmin(mn, r);
                mx = fmax(mx, r);
                n++;
            }
            assert_int_equal(g->shapes, (size_t)n);
            assert_true(fabs(g->geomean - exp(logsum / n)) < 1e-12);
            assert_true(fabs(g->min - mn) < 1e-12 && fabs(g->max - mx) < 1e-12);
            assert_int_equal(g->failed, (k == 1 && p == 1) ? 1 : 0);
        }
    }
    /* Markdown: the recomputed figure, 3 decimals, appears in the table */
    sb_buf md = SB_BUF_INIT;
    sb_geo_render_md(&geo, &md);
    double want = exp((log(0.2 / 0.1) + log(0.4 / 0.16) + log(0.8 / 0.4)) / 3);
    char cell[256];
    snprintf(cell, sizeof cell, "| rmsnorm | fwd | bf16 | h100-sxm5-80gb | liger | huggingface | call | 3 | %.3f |", want);
    if (!strstr(sb_buf_str(&md), cell))
        fail_msg("no row '%s' in:\n%s", cell, sb_buf_str(&md));
    assert_non_null(strstr(sb_buf_str(&md), "| h100-sxm5-80gb | h200-sxm-141gb |"));
    assert_null(strstr(sb_buf_str(&md), "a100"));
    assert_non_null(strstr(sb_buf_str(&md), SB_EVIDENCE_OP));
    /* CSV and JSON carry the same figure */
    sb_buf csv = SB_BUF_INIT, js = SB_BUF_INIT;
    sb_geo_render_csv(&geo, &csv);
    snprintf(cell, sizeof cell, ",liger,huggingface,call,3,%.3f,", want);
    assert_non_null(strstr(sb_buf_str(&csv), cell));
    assert_int_equal(count(sb_buf_str(&csv), "\n"), 7);
    assert_int_equal(sb_geo_render_json(&geo, &js, &err), SB_OK);
    json_t *j = json_loads(sb_buf_str(&js), 0, NULL);
    assert_non_null(j);
    assert_int_equal(json_array_size(json_object_get(j, "rows")), 6);
    json_t *r0 = json_array_get(json_object_get(j, "rows"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "provider")), "liger");
    assert_true(fabs(json_real_value(json_object_get(r0, "geomean")) - round(want * 1000) / 1000) < 1e-9);
    json_decref(j);
    sb_buf_free(&md);
    sb_buf_free(&csv);
    sb_buf_free(&js);
    sb_geo_free(&geo);
    /* explicit baseline: torch; huggingface becomes a compared provider */
    assert_int_equal(sb_geo_compute(&set, picks, np, "torch", &geo, &err), SB_OK);
    const sb_geo_row *g = find_row(&geo, "h100-sxm5-80gb", "huggingface", "torch");
    assert_non_null(g);
    assert_true(fabs(g->geomean - exp((log(0.16 / 0.2) + log(0.3 / 0.4) + log(0.5 / 0.8)) / 3)) < 1e-12);
    sb_geo_free(&geo);
    free(picks);
    sb_results_free(&set);
    sb_db_close(db);
}

static void test_newest_run_decides(void **state)
{
    (void)state;
    char p[512];
    path_in_tmp(p, sizeof p, "newest.db");
    sb_db *w = fx_create(p);
    fx_result r = {0};
    r.provider = "huggingface";
    r.shape_key = "K=64,M=64,N=64";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.finished_at = "2026-11-17T00:00:00Z";
    r.median_ms = 1.0;
    fx_add_result(w, &r);
    r.provider = "fused";
    r.median_ms = 0.5;
    fx_add_result(w, &r); /* old pass */
    r.finished_at = "2026-11-18T00:00:00Z";
    r.status = "failed";
    r.failed_correctness = 1;
    fx_add_result(w, &r); /* newer failure wins */
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set;
    sb_pick *picks;
    size_t np;
    sb_geo_table geo;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    assert_int_equal(np, 2);
    assert_int_equal(sb_geo_compute(&set, picks, np, NULL, &geo, &err), SB_OK);
    assert_int_equal(geo.n, 1);
    assert_int_equal(geo.rows[0].shapes, 0);
    assert_int_equal(geo.rows[0].failed, 1);
    assert_true(isnan(geo.rows[0].geomean));
    sb_geo_free(&geo);
    free(picks);
    sb_results_free(&set);
    sb_db_close(db);
}


static void test_geomean_counts(void **state)
{
    (void)state;
    char p[512];
    path_in_tmp(p, sizeof p, "counts.db");
    sb_db *w = fx_create(p);
    fx_result r = {0};
    r.sku = "h200-sxm-141gb";
    r.arch = "h200";
    r.finished_at = "2026-11-17T00:00:00Z";
    r.median_ms = 1.0;
    const char *shapes[] = {"K=1,M=1,N=1", "K=2,M=2,N=2", "K=3,M=3,N=3", "K=4,M=4,N=4",
                            "K=5,M=5,N=5"};
    /* baseline passes everywhere except shape 1 (failed) */
    r.provider = "huggingface";
    for (int i = 0; i < 5; i++) {
        r.shape_key = shapes[i];
        r.status = i == 1 ? "failed" : NULL;
        r.failed_correctness = i == 1;
        fx_add_result(w, &r);
    }
    r.provider = "fused";
    r.status = NULL;
    r.failed_correctness = 0;
    /* shape 0: not run by fused; shape 1: no baseline; shape 2: skipped;
     * shape 3: compared at the old commit (stale); shape 4: compared at the
     * newest commit */
    r.shape_key = shapes[1];
    r.median_ms = 0.5;
    fx_add_result(w, &r);
    r.shape_key = shapes[2];
    r.status = "skipped";
    fx_add_result(w, &r);
    r.status = NULL;
    r.shape_key = shapes[3];
    r.median_ms = 0.5;
    fx_add_result(w, &r);
    r.shape_key = shapes[4];
    r.median_ms = 0.25;
    r.git_sha = "9999999999999999999999999999999999999999";
    r.finished_at = "2026-11-18T00:00:00Z";
    fx_add_result(w, &r);
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set;
    sb_pick *picks;
    size_t np;
    sb_geo_table geo;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    assert_int_equal(sb_geo_compute(&set, picks, np, NULL, &geo, &err), SB_OK);
    assert_int_equal(geo.n, 1);
    const sb_geo_row *g = &geo.rows[0];
    assert_int_equal(g->shapes, 2);
    assert_true(fabs(g->geomean - sqrt(2.0 * 4.0)) < 1e-12);
    assert_int_equal(g->not_run, 1);
    assert_int_equal(g->no_baseline, 1);
    assert_int_equal(g->skipped, 1);
    assert_int_equal(g->failed, 0);
    assert_int_equal(g->stale, 1);
    assert_int_equal(geo.nskus, 1);
    assert_string_equal(geo.skus[0], "h200-sxm-141gb");
    sb_geo_free(&geo);
    free(picks);
    sb_results_free(&set);
    sb_db_close(db);
}

/* ---- SVG ---- */

/* Reads attribute name="..." of the first element at or after p. */
static double attr(const char *p, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = strstr(p, key);
    assert_non_null(a);
    return strtod(a + strlen(key), NULL);
}

static void test_roofline_svg(void **state)
{
    (void)state;
    sb_db *db = standard_db("roof.db");
    sb_snapshot *snap = snapshot_of(db);
    sb_error err;
    sb_sku_table *skus = NULL;
    assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
    sb_result_set set;
    sb_pick *picks;
    size_t np, drawn;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    sb_buf a = SB_BUF_INIT, b = SB_BUF_INIT;
    assert_int_equal(sb_plot_roofline(snap, skus, picks, np, "h100-sxm5-80gb", &a, &drawn, &err), SB_OK);
    assert_int_equal(drawn, 9);
    const char *s = sb_buf_str(&a);
    assert_int_equal(count(s, "<circle class=\"point\""), 9);
    assert_int_equal(count(s, "<title>"), 10); /* document + 9 tooltips */
    /* ceilings: datasheet bf16 roof and HBM, measured bw.copy and gemm.fp16 */
    assert_non_null(strstr(s, "bf16 datasheet"));
    assert_non_null(strstr(s, "HBM datasheet 3.35 TB/s"));
    assert_non_null(strstr(s, "bw.copy measured 3000 GB/s"));
    assert_non_null(strstr(s, "gemm.fp16 measured 700 TFLOP/s"));
    assert_non_null(strstr(s, "Evidence level: op-level microbenchmark"));
    /* the point of liger, shape 0: pixel position from the log scale formula */
    const char *area = strstr(s, "class=\"plot-area\"");
    assert_non_null(area);
    double x0 = attr(area, "data-x-min"), x1 = attr(area, "data-x-max");
    double y0 = attr(area, "data-y-min"), y1 = attr(area, "data-y-max");
    double L = attr(area, "data-left"), R = attr(area, "data-right");
    double T = attr(area, "data-top"), B = attr(area, "data-bottom");
    double bt = 1024, flops = 4.0 * bt * 4096, bytes = 4.0 * bt * 4096;
    double ai = flops / bytes, tf = flops / (FX_STD_MEDIANS[0][0][1] * 1e9);
    double want_x = L + (log10(ai) - log10(x0)) / (log10(x1) - log10(x0)) * (R - L);
    double want_y = B + (log10(tf) - log10(y0)) / (log10(y1) - log10(y0)) * (T - B);
    const char *pt = NULL;
    for (const char *q = s; (q = strstr(q, "<circle class=\"point\"")) != NULL; q++) {
        const char *end = strstr(q, "</circle>");
        const char *tip = strstr(q, "BT=1024,H=4096 | liger |");
        if (tip && tip < end) {
            pt = q;
            break;
        }
    }
    assert_non_null(pt);
    assert_true(fabs(attr(pt, "cx") - want_x) < 0.006);
    assert_true(fabs(attr(pt, "cy") - want_y) < 0.006);
    /* not drawn: the failed case is only on h200; say so there */
    assert_int_equal(sb_plot_roofline(snap, skus, picks, np, "h200-sxm-141gb", &b, &drawn, &err), SB_OK);
    assert_int_equal(drawn, 8);
    assert_non_null(strstr(sb_buf_str(&b), "Not drawn: 1 failed"));
    assert_non_null(strstr(sb_buf_str(&b), "No calibration stored for this SKU"));
    /* deterministic bytes */
    sb_buf c = SB_BUF_INIT;
    assert_int_equal(sb_plot_roofline(snap, skus, picks, np, "h100-sxm5-80gb", &c, &drawn, &err), SB_OK);
    assert_int_equal(a.len, c.len);
    assert_memory_equal(a.data, c.data, a.len);
    /* speedup bars and latency */
    sb_geo_table geo;
    assert_int_equal(sb_geo_compute(&set, picks, np, NULL, &geo, &err), SB_OK);
    sb_buf_reset(&c);
    sb_plot_speedup(&geo, "rmsnorm", "fwd", "bf16", &c);
    assert_int_equal(count(sb_buf_str(&c), "<g class=\"bar\">"), 4);
    assert_non_null(strstr(sb_buf_str(&c), "1 = huggingface"));
    sb_buf_reset(&c);
    sb_plot_latency(picks, np, "rmsnorm", "fwd", "bf16", "h200-sxm-141gb", &c);
    assert_int_equal(count(sb_buf_str(&c), "<circle class=\"point\""), 8);
    assert_int_equal(count(sb_buf_str(&c), "<g class=\"failed-case\">"), 1);
    assert_non_null(strstr(sb_buf_str(&c), ">0.1 ms</text>"));
    sb_geo_free(&geo);
    sb_buf_free(&a);
    sb_buf_free(&b);
    sb_buf_free(&c);
    free(picks);
    sb_results_free(&set);
    sb_sku_table_free(skus);
    sb_snapshot_free(snap);
    sb_db_close(db);
}

/* ---- regressions ---- */

static double base_samples[50], slow_samples[50], same_samples[50];

static void add_pair(sb_db *w, const char *shape, const double *old_s, size_t n_old,
                     const double *new_s, size_t n_new, int new_commit_too, int quantiles)
{
    fx_result r = {0};
    r.provider = "fused";
    r.gpu_uuid = "GPU-11111111-2222-3333-4444-555555555555";
    r.shape_key = shape;
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.git_sha = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    r.finished_at = "2026-11-10T00:00:00Z";
    r.samples = old_s;
    r.nsamples = quantiles ? 0 : n_old;
    r.median_ms = quantiles ? 1.0 : 0;
    r.quantiles_only = quantiles;
    fx_add_result(w, &r);
    if (!new_commit_too)
        return;
    r.git_sha = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    r.finished_at = "2026-11-18T00:00:00Z";
    r.samples = new_s;
    r.nsamples = quantiles ? 0 : n_new;
    r.median_ms = quantiles ? 1.2 : 0;
    fx_add_result(w, &r);
}

static const sb_rg_row *rg_find(const sb_rg_list *l, const char *shape)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].new_run->shape_key, shape))
            return &l->v[i];
    return NULL;
}

/* Runs picked out of a loaded set are the runs the same filter loads, in
 * the same order: by column, commit prefix, week window and profiler. */
static void assert_select_is_load(sb_db *db, const sb_result_set *all,
                                  const sb_result_filter *f, size_t expect)
{
    sb_error err;
    sb_result_set loaded, picked;
    assert_int_equal(sb_results_load(db, f, &loaded, &err), SB_OK);
    assert_int_equal(sb_results_select(db, all, f, &picked, &err), SB_OK);
    assert_int_equal(loaded.n, expect);
    assert_int_equal(picked.n, loaded.n);
    for (size_t i = 0; i < loaded.n; i++) {
        assert_int_equal(picked.v[i].run_id, loaded.v[i].run_id);
        assert_string_equal(picked.v[i].case_key, loaded.v[i].case_key);
        assert_string_equal(picked.v[i].git_sha, loaded.v[i].git_sha);
    }
    sb_results_free(&picked);
    sb_results_free(&loaded);
}

static void test_results_select(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/select.db", tmpdir);
    sb_db *w = fx_create(p);
    fx_standard(w);
    /* two commits whose ids share the prefix "ab", one past "abf", over
     * two ISO weeks (2026-W46 and W47), one timed under a profiler */
    const char *shas[] = {"ab00000000000000000000000000000000000000",
                          "abf0000000000000000000000000000000000000",
                          "ac00000000000000000000000000000000000000",
                          "ab12000000000000000000000000000000000000"};
    const char *when[] = {"2026-11-09T23:59:59Z", "2026-11-10T00:00:00+01:00",
                          "2026-11-16T00:00:00Z", "2026-11-12T08:00:00Z"};
    static const double samples[] = {1.0, 1.1, 0.9, 1.0, 1.05};
    for (int k = 0; k < 4; k++) {
        fx_result r = {0};
        r.op = k == 2 ? "softmax" : "gemm";
        r.provider = "fused";
        r.shape_key = "M=8,N=8";
        r.sku = "h100-sxm5-80gb";
        r.arch = "h100";
        r.git_sha = shas[k];
        r.finished_at = when[k];
        r.samples = samples;
        r.nsamples = 5;
        r.profiler = k == 3 ? "ncu" : NULL;
        fx_add_result(w, &r);
    }
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set all;
    assert_int_equal(sb_results_load(db, NULL, &all, &err), SB_OK);
    assert_int_equal(all.n, 21);
    assert_select_is_load(db, &all, NULL, 21);
    sb_result_filter f = {0};
    f.op = "gemm";
    assert_select_is_load(db, &all, &f, 2);
    f.op = NULL;
    f.suite = "liger-perkernel";
    f.provider = "liger";
    assert_select_is_load(db, &all, &f, 6);
    f.arch = "h200";
    assert_select_is_load(db, &all, &f, 3);
    memset(&f, 0, sizeof f);
    f.sku = "h100-sxm5-80gb";
    assert_select_is_load(db, &all, &f, 12);
    memset(&f, 0, sizeof f);
    f.sha = "ab";
    assert_select_is_load(db, &all, &f, 2);
    f.sha = "abf";
    assert_select_is_load(db, &all, &f, 1);
    f.sha = "ab0";
    assert_select_is_load(db, &all, &f, 1);
    memset(&f, 0, sizeof f);
    /* 2026-W46: Monday 2026-11-09 00:00 UTC up to Monday 2026-11-16 */
    f.has_range = 1;
    assert_int_equal(sb_rfc3339_parse("2026-11-09T00:00:00Z", &f.from), 0);
    assert_int_equal(sb_rfc3339_parse("2026-11-16T00:00:00Z", &f.to), 0);
    assert_select_is_load(db, &all, &f, 2);
    /* profiled runs are not in the set: they are read from the database */
    f.with_profiled = 1;
    assert_select_is_load(db, &all, &f, 3);
    sb_results_free(&all);
    sb_db_close(db);
}

/* A calibration on the card uuid with its buffer size and read ceiling,
 * as solbench roofline stores them. */
static long long add_read_calibration(sb_db *w, const char *at, const char *uuid, long long buffer,
                                      double copy, double read)
{
    long long id = fx_add_calibration(w, "h100-sxm5-80gb", "h100", at, copy, 700.0);
    char sql[512];
    snprintf(sql, sizeof sql,
             "UPDATE runs SET raw_json = json_set(raw_json, '$.provenance.device.uuid', '%s',"
             " '$.protocol.buffer_bytes', %lld) WHERE id = %lld",
             uuid, buffer, id);
    fx_exec(w, sql);
    if (read > 0) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO ceilings (run_id, name, unit, value) VALUES (%lld, 'bw.read', 'GB/s', %.1f)",
                 id, read);
        fx_exec(w, sql);
    }
    return id;
}

/* A cross entropy forward over 16384 x 131072 fp32 logits (8.6 GB read)
 * at gbps on the card uuid. */
static long long add_read_run(sb_db *w, const char *uuid, const char *at, double gbps)
{
    fx_result r = {0};
    r.op = "cross_entropy";
    r.mode = "fwd";
    r.dtype = "fp32";
    r.provider = uuid;
    r.shape_key = "M=16384,V=131072";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.finished_at = at;
    r.gpu_uuid = uuid;
    r.median_ms = 16384.0 * 131072.0 * 4 / (gbps * 1e9) * 1e3;
    return fx_add_result(w, &r);
}

static const sb_result *result_of(const sb_result_set *set, long long id)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].run_id == id)
            return &set->v[i];
    fail_msg("run %lld not loaded", id);
    return NULL;
}

/* A run is held against its own GPU's newest calibration that measured
 * the ceiling, else the SKU's newest that did; its verdict names that
 * calibration, and an implausible one's reason says whose card it is, how
 * far the SKU's cards differ on that ceiling and the buffers' size. */
static void test_plausible_own_card(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/own-card.db", tmpdir);
    sb_db *w = fx_create(p);
    const char *a = "GPU-aaaaaaaa-0000-0000-0000-000000000001";
    const char *b = "GPU-bbbbbbbb-0000-0000-0000-000000000002";
    const char *cc = "GPU-cccccccc-0000-0000-0000-000000000003";
    const char *d = "GPU-dddddddd-0000-0000-0000-000000000004";
    long long cal_c = add_read_calibration(w, "2026-11-16T09:00:00Z", cc, 1LL << 30, 3040, 3162);
    long long cal_a = add_read_calibration(w, "2026-11-17T09:00:00Z", a, 1LL << 30, 3021, 3117);
    long long cal_d = add_read_calibration(w, "2026-11-17T10:00:00Z", d, 1LL << 30, 3010, 0);
    long long cal_b = add_read_calibration(w, "2026-11-18T09:00:00Z", b, 8LL << 30, 3031, 3143);
    /* 102.3% of its own card's 3117, 101.5% of the newest (b's) 3143 */
    long long on_a = add_read_run(w, a, "2026-11-19T09:00:00Z", 3190);
    /* 3300 GB/s on a card whose calibration has no read probe, and on one
     * without a calibration: both held against b's read ceiling */
    long long on_d = add_read_run(w, d, "2026-11-19T09:01:00Z", 3300);
    long long on_e = add_read_run(w, "GPU-eeeeeeee-0000-0000-0000-000000000005", "2026-11-19T09:02:00Z",
                                  3300);
    /* 101.9% of its own card's 3162 */
    long long on_c = add_read_run(w, cc, "2026-11-19T09:03:00Z", 3222);
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set = {0};
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    /* the check takes the snapshot of the runs it checks: no verdict is
     * stored, so every run's card and its SKU's calibrations */
    const sb_result *rs[4] = {result_of(&set, on_a), result_of(&set, on_d), result_of(&set, on_e),
                              result_of(&set, on_c)};
    sb_plaus_snap checked;
    assert_int_equal(sb_site_plaus_snap_runs(db, rs, 4, &checked, &err), SB_OK);
    assert_int_equal(checked.stored, 0);
    assert_int_equal(checked.nverdicts, 0);
    assert_int_equal(checked.devices.n, 4);
    assert_int_equal(checked.ncals, 1);
    sb_plaus_ctx *ctx = NULL;
    assert_int_equal(sb_plaus_open(&checked, NULL, NULL, NULL, &ctx, &err), SB_OK);
    sb_plaus_verdict v;

    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_a), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_string_equal(v.ceiling_name, "bw.read");
    assert_true(v.ceiling_gbps == 3117);
    assert_int_equal(v.source.calib_run, cal_a);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OWN);
    assert_string_equal(v.source.gpu_uuid, a);
    assert_int_equal(v.source.buffer_bytes, 1LL << 30);
    assert_non_null(strstr(v.reason, "the ceiling is the run's own card's (GPU-aaaaaaaa)"));
    assert_non_null(strstr(v.reason, "it streamed 1 GiB buffers, under 8 GiB"));
    assert_null(strstr(v.reason, "spreads"));

    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_d), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(v.ceiling_gbps == 3143);
    assert_int_equal(v.source.calib_run, cal_b);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OTHER);
    assert_int_equal(v.source.cards, 3);
    assert_true(v.source.lo == 3117 && v.source.hi == 3162);
    assert_non_null(strstr(v.reason, "(calibration run "));
    assert_non_null(strstr(v.reason, "the ceiling is another card's (GPU-bbbbbbbb): no calibration of "
                                     "the run's GPU measured bw.read, and bw.read spreads 3117-3162 "
                                     "GB/s (1.4%) over the SKU's 3 calibrated cards; it streamed 8 GiB "
                                     "buffers"));
    assert_null(strstr(v.reason, "under 8 GiB"));

    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_e), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_int_equal(v.source.calib_run, cal_b);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OTHER);

    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_c), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_OK);
    assert_int_equal(v.source.calib_run, cal_c);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OWN);
    assert_non_null(strstr(v.reason, "101.9% of bw.read"));
    (void)cal_d;
    sb_plaus_close(ctx);
    sb_plaus_snap_free(&checked);

    /* the marks take the snapshot of these runs: no verdict is stored, so
     * each passing run is judged, with its own card's UUID and its SKU's
     * calibrations read once */
    char tables[65];
    sb_plaus_snap snap;
    assert_int_equal(sb_plaus_tables_sha256(NULL, NULL, tables, &err), SB_OK);
    assert_int_equal(sb_plaus_snap_read_marks(db, tables, &set, &snap, &err), SB_OK);
    assert_int_equal(snap.stored, 0);
    assert_int_equal(snap.devices.n, 4);
    assert_string_equal(sb_run_device(&snap.devices, on_c), cc);
    assert_int_equal(snap.ncals, 1);
    assert_int_equal(snap.cals[0].n, 4);
    assert_int_equal(sb_plaus_mark(&snap, &set, &err), SB_OK);
    sb_plaus_snap_free(&snap);
    assert_int_equal(result_of(&set, on_a)->implausible, 1);
    assert_int_equal(result_of(&set, on_d)->implausible, 1);
    assert_int_equal(result_of(&set, on_e)->implausible, 1);
    assert_int_equal(result_of(&set, on_c)->implausible, 0);
    /* a set of one run reads that run's card only */
    sb_result_set one = {0};
    sb_result_filter only = {0};
    only.has_range = 1;
    only.from = result_of(&set, on_c)->finished_epoch;
    only.to = only.from + 1;
    assert_int_equal(sb_results_load(db, &only, &one, &err), SB_OK);
    assert_int_equal(one.n, 1);
    assert_int_equal(sb_plaus_snap_read_marks(db, tables, &one, &snap, &err), SB_OK);
    assert_int_equal(snap.devices.n, 1);
    assert_int_equal(sb_plaus_mark(&snap, &one, &err), SB_OK);
    assert_int_equal(one.v[0].implausible, 0);
    sb_plaus_snap_free(&snap);
    sb_results_free(&one);

    /* the listing names each row's calibration */
    sb_pick *picks = NULL;
    size_t np = 0;
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    sb_buf md = SB_BUF_INIT;
    sb_plaus_summary sum;
    assert_int_equal(sb_site_plaus_snap_listing(db, picks, np, NULL, &snap, &err), SB_OK);
    assert_int_equal(sb_plaus_render_md(&snap, picks, np, NULL, "#", &md, &sum, &err), SB_OK);
    sb_plaus_snap_free(&snap);
    assert_int_equal(sum.implausible, 3);
    char cell[128];
    snprintf(cell, sizeof cell, "| run %lld, GPU-aaaaaaaa, 1 GiB, own card |", cal_a);
    assert_non_null(strstr(sb_buf_str(&md), cell));
    snprintf(cell, sizeof cell, "| run %lld, GPU-bbbbbbbb, 8 GiB, another card |", cal_b);
    assert_non_null(strstr(sb_buf_str(&md), cell));
    sb_buf_free(&md);
    free(picks);
    sb_results_free(&set);
    sb_db_close(db);
}

/* A calibration far from the card's datasheet (HBM 3,350 GB/s on an
 * H100) is set aside for that ceiling: a newer one of the run's own GPU
 * stating 1 GB/s does not make its runs implausible, and one stating
 * 1e6 GB/s does not make a run over every credible ceiling plausible. */
static void test_plausible_poisoned_calibration(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/poisoned-calibration.db", tmpdir);
    sb_db *w = fx_create(p);
    const char *a = "GPU-aaaaaaaa-0000-0000-0000-000000000001";
    const char *b = "GPU-bbbbbbbb-0000-0000-0000-000000000002";
    long long cal_a = add_read_calibration(w, "2026-11-17T09:00:00Z", a, 8LL << 30, 3021, 3117);
    long long low = add_read_calibration(w, "2026-11-18T09:00:00Z", a, 8LL << 30, 1.0, 1.0);
    long long high = add_read_calibration(w, "2026-11-18T10:00:00Z", b, 8LL << 30, 1e6, 1e6);
    long long huge = add_read_calibration(w, "2026-11-16T09:00:00Z", "GPU-cccccccc-0000-0000-0000-000000000003",
                                          8LL << 30, 1e308, 0);
    long long on_a = add_read_run(w, a, "2026-11-19T09:00:00Z", 3000); /* 96.2% of 3117 */
    long long on_b = add_read_run(w, b, "2026-11-19T09:01:00Z", 3400); /* 109.1% of 3117 */
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set = {0};
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    const sb_result *rs[2] = {result_of(&set, on_a), result_of(&set, on_b)};
    sb_plaus_snap checked;
    assert_int_equal(sb_site_plaus_snap_runs(db, rs, 2, &checked, &err), SB_OK);
    sb_plaus_ctx *ctx = NULL;
    assert_int_equal(sb_plaus_open(&checked, NULL, NULL, NULL, &ctx, &err), SB_OK);
    sb_plaus_verdict v;
    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_a), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_OK);
    assert_true(v.ceiling_gbps == 3117);
    assert_int_equal(v.source.calib_run, cal_a);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OWN);
    /* the spread over the SKU's cards counts only credible ceilings */
    assert_int_equal(v.source.cards, 1);
    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_b), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(v.ceiling_gbps == 3117);
    assert_int_equal(v.source.calib_run, cal_a);
    assert_int_equal(v.source.card, SB_PLAUS_CARD_OTHER);
    sb_plaus_close(ctx);
    sb_plaus_snap_free(&checked);
    /* The snapshot every other figure reads (standing copy shares, the
     * evidence, cross-arch tables, rooflines) sets them aside by the same
     * rule, and the plausibility listing names them. */
    sb_snapshot *snap = snapshot_of(db);
    size_t n = 0;
    long long newest = 0;
    const sb_ceiling *c = sb_snapshot_ceilings(snap, "h100-sxm5-80gb", &n, &newest);
    assert_int_equal(n, 3);
    assert_int_equal(newest, high); /* its gemm.fp16 of 700 is credible */
    assert_string_equal(c[0].name, "bw.copy");
    assert_true(c[0].value == 3021);
    assert_int_equal(c[0].run_id, cal_a);
    assert_string_equal(c[1].name, "bw.read");
    assert_true(c[1].value == 3117);
    assert_int_equal(c[1].run_id, cal_a);
    sb_buf md = SB_BUF_INIT;
    sb_plaus_render_set_aside_md(snap, "##", &md);
    const char *t = sb_buf_str(&md);
    assert_non_null(strstr(t, "### Calibrations set aside"));
    assert_non_null(strstr(t, "Set aside: 5 measured ceilings, in no verdict"));
    char row[160];
    snprintf(row, sizeof row, "| h100-sxm5-80gb | %lld | bw.copy | 1 GB/s | 3350 GB/s | 0.000299 |", low);
    assert_non_null(strstr(t, row));
    snprintf(row, sizeof row, "| h100-sxm5-80gb | %lld | bw.read | 1e+06 GB/s | 3350 GB/s | 299 |", high);
    assert_non_null(strstr(t, row));
    /* the largest double's ratio in a few digits, not three hundred */
    snprintf(row, sizeof row, "| h100-sxm5-80gb | %lld | bw.copy | 1e+308 GB/s | 3350 GB/s | 2.99e+304 |", huge);
    assert_non_null(strstr(t, row));
    sb_buf_reset(&md);
    sb_plaus_render_set_aside_md(NULL, "##", &md);
    assert_non_null(strstr(sb_buf_str(&md), "None: every measured ceiling"));
    sb_buf_free(&md);
    sb_snapshot_free(snap);
    sb_results_free(&set);
    sb_db_close(db);
}

/* A card whose every calibration states a copy ceiling far from the
 * datasheet is held against the datasheet, and the verdict says the
 * calibration was set aside: "no calibration stored" would tell the
 * reader there is nothing to look at, when a stored document is the
 * reason the measured ceiling is not used. */
static void test_plausible_all_set_aside(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/all-set-aside.db", tmpdir);
    sb_db *w = fx_create(p);
    const char *a = "GPU-aaaaaaaa-0000-0000-0000-000000000001";
    (void)add_read_calibration(w, "2026-11-18T09:00:00Z", a, 8LL << 30, 1.0, 0);
    long long on_a = add_read_run(w, a, "2026-11-19T09:00:00Z", 3500); /* 104.5% of 3350 */
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set = {0};
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    const sb_result *rs[1] = {result_of(&set, on_a)};
    sb_plaus_snap checked;
    assert_int_equal(sb_site_plaus_snap_runs(db, rs, 1, &checked, &err), SB_OK);
    sb_plaus_ctx *ctx = NULL;
    assert_int_equal(sb_plaus_open(&checked, NULL, NULL, NULL, &ctx, &err), SB_OK);
    sb_plaus_verdict v;
    assert_int_equal(sb_plaus_check(ctx, result_of(&set, on_a), &v, &err), SB_OK);
    assert_int_equal(v.state, SB_PLAUS_IMPLAUSIBLE);
    assert_true(v.ceiling_gbps == 3350);
    assert_string_equal(v.ceiling_name, "datasheet HBM");
    assert_null(strstr(v.reason, "no calibration stored"));
    assert_non_null(strstr(v.reason, "data/skus.csv: the stored calibrations' bw.copy set aside"));
    sb_plaus_close(ctx);
    sb_plaus_snap_free(&checked);
    sb_results_free(&set);
    sb_db_close(db);
}

/* The calibrations of a SKU come newest first, not another SKU's; they
 * are found through their own index. */
static void test_ceilings_latest(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/ceilings.db", tmpdir);
    sb_db *w = fx_create(p);
    fx_standard(w); /* a calibration of h100 at 2026-11-17 */
    long long newer = fx_add_calibration(w, "h100-sxm5-80gb", "h100", "2026-11-19T09:00:00Z",
                                         2500.0, 650.0);
    fx_add_calibration(w, "h200-sxm-141gb", "h200", "2026-11-20T09:00:00Z", 4000.0, 800.0);
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_calibration *cals = NULL;
    size_t n = 0;
    assert_int_equal(sb_calibrations_load(db, "h100-sxm5-80gb", &cals, &n, &err), SB_OK);
    assert_int_equal(n, 2);
    assert_int_equal(cals[0].run_id, newer);
    int copy = 0;
    for (size_t i = 0; i < cals[0].n; i++)
        if (!strcmp(cals[0].ceilings[i].name, "bw.copy")) {
            assert_string_equal(cals[0].ceilings[i].unit, "GB/s");
            assert_true(cals[0].ceilings[i].value == 2500.0);
            assert_int_equal(cals[0].ceilings[i].run_id, newer);
            copy = 1;
        }
    assert_true(copy);
    sb_calibrations_free(cals, n);
    assert_int_equal(sb_calibrations_load(db, "a100-sxm4-80gb", &cals, &n, &err), SB_OK);
    assert_int_equal(n, 0);
    assert_null(cals);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(sb_db_handle(db),
                                        "SELECT sql FROM sqlite_master WHERE type = 'index' AND "
                                        "name = 'runs_calibration'",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_non_null(strstr((const char *)sqlite3_column_text(st, 0),
                           "WHERE schema = 'solbook.calibration.v1'"));
    sqlite3_finalize(st);
    sb_db_close(db);
}

/* The history of one case over three commits: slower at b, back at c.
 * Commit order is the order commits were first measured, not the order of
 * the newest runs (a is measured again last). A run timed under a profiler
 * is never a timing. */
/* The whole history over set as the CLI walks it: the A/A noise of db's
 * sessions read first (site_rg.h). */
static int rg_history(sb_db *db, const sb_result_set *set, const sb_rg_opts *o, sb_rg_list *out, sb_error *err)
{
    sb_rg_aa *aa = NULL;
    int rc = sb_site_rg_aa(db, o, &aa, err);
    if (rc == SB_OK)
        rc = sb_site_rg_history(db, set, NULL, o, aa, out, err);
    else
        memset(out, 0, sizeof *out);
    sb_rg_aa_free(aa);
    return rc;
}

/* The runs a walk over set by o names first (sb_rg_walk_next): those
 * whose samples it takes before it goes on. */
static size_t walk_first_names(sb_db *db, const sb_result_set *set, const sb_rg_opts *o)
{
    sb_error err;
    sb_rg_read rr;
    assert_int_equal(sb_site_rg_inputs(db, set, &rr, &err), SB_OK);
    sb_rg_inputs in = {&rr.dev, &rr.git};
    sb_rg_list l;
    sb_rg_walk *w = NULL;
    assert_int_equal(sb_rg_walk_open(set, &in, o, NULL, &l, &w, &err), SB_OK);
    const long long *ids;
    size_t n;
    assert_int_equal(sb_rg_walk_next(w, NULL, &ids, &n, &err), SB_OK);
    for (size_t i = 1; i < n; i++)
        assert_true(ids[i - 1] < ids[i]);
    sb_rg_walk_free(w);
    sb_rg_free(&l);
    sb_site_rg_inputs_free(&rr);
    return n;
}

/* The claims check of the weekly writeup's steps as its caller runs it:
 * the cards and samples of the cited step runs and the A/A noise read
 * from db, then sb_claims_verify_steps. */
static int verify_steps(sb_db *db, const sb_claims *c, const sb_result *const *cited, size_t n,
                        const sb_rg_opts *o, sb_error *err)
{
    long long *ids = NULL;
    size_t nids = 0;
    sb_run_devices dev = {0};
    sb_run_samples samples = {0};
    sb_rg_aa *aa = NULL;
    int rc = sb_claims_step_runs(c, cited, n, &ids, &nids, err);
    if (rc == SB_OK && nids && (rc = sb_run_devices_load_ids(db, ids, nids, &dev, err)) == SB_OK &&
        (rc = sb_run_samples_load_ids(db, ids, nids, &samples, err)) == SB_OK)
        rc = sb_site_rg_aa(db, o, &aa, err);
    if (rc == SB_OK)
        rc = sb_claims_verify_steps(aa, &dev, &samples, c, cited, n, o, "the weekly writeup", err);
    sb_rg_aa_free(aa);
    sb_run_devices_free(&dev);
    sb_run_samples_free(&samples);
    free(ids);
    return rc;
}

/* The stored history as the reports take it (db/rg_stored_db.h): after
 * sb_rg_update, the state read alone says the steps hold (and not for
 * another rule); read with its steps, it holds every group with its
 * latest steps, the cross-card threshold its steps took and where, and
 * sb_rg_latest builds from it the latest rows a walk over every run
 * gives. */
static void test_regression_stored_read(void **state)
{
    (void)state;
    static double base[50], slow[50];
    for (int i = 0; i < 50; i++) {
        base[i] = 1.0 + 0.0004 * (double)((i * 37) % 50 - 25);
        slow[i] = base[i] * 1.20;
    }
    char p[512];
    snprintf(p, sizeof p, "%s/stored_read.db", tmpdir);
    sb_db *w = fx_create(p);
    fx_result r = {0};
    r.shape_key = "M=8,N=8";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.nsamples = 50;
    const char *shas[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                          "cccccccccccccccccccccccccccccccccccccccc"};
    const char *when[] = {"2026-11-10T00:00:00Z", "2026-11-11T00:00:00Z", "2026-11-12T00:00:00Z"};
    /* the project's kernel on one card, slower at c; cuBLAS on two cards
     * (a cross-card step each time) */
    const char *providers[] = {"fused", "cublas"};
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < 3; k++) {
            r.provider = providers[g];
            r.git_sha = shas[k];
            r.finished_at = when[k];
            r.samples = g == 0 && k == 2 ? slow : base;
            r.gpu_uuid = g == 0 || k % 2 == 0 ? "GPU-11111111-2222-3333-4444-555555555555"
                                               : "GPU-66666666-7777-8888-9999-000000000000";
            fx_add_result(w, &r);
        }
    sb_db_close(w);
    sb_db *db = NULL;
    sb_error err;
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &db, &err), SB_OK);
    sb_rg_opts o = {0.01, 0.03, NULL, 0, NULL};
    sb_rg_aa *aa = NULL;
    assert_int_equal(sb_site_rg_aa(db, &o, &aa, &err), SB_OK);
    sb_rg_stored s;
    int fresh = -1;
    /* nothing stored yet */
    assert_int_equal(sb_rg_stored_read(db, 1, &s, &err), SB_OK);
    assert_int_equal(s.found, 0);
    assert_int_equal(s.steps_read, 0);
    assert_int_equal(sb_rg_fresh(&s, &o, &fresh, &err), SB_OK);
    assert_int_equal(fresh, 0);
    assert_int_equal(s.now.runs, 6);
    sb_rg_stored_free(&s);
    sb_rg_update_info info;
    /* the walk alone gives what to store and stores nothing: the three
     * commits, the cross-card threshold and drift class the cuBLAS steps
     * take, each group's steps naming them by place; in one batch, then a
     * group a batch, where the second batch keeps the first's names */
    const size_t batch_most[] = {100, 1};
    for (size_t bm = 0; bm < 2; bm++) {
        size_t most = batch_most[bm];
        sb_rg_update *u = NULL;
        sb_rg_update_basis b = {0};
        assert_int_equal(sb_rg_stored_read(db, 0, &s, &err), SB_OK);
        b.then = s.then;
        b.now = s.now;
        b.found = s.found;
        sb_rg_stored_free(&s);
        assert_int_equal(sb_rg_runs_after(db, b.then.last_run, &b.added, &b.sessions, &err), SB_OK);
        assert_int_equal(b.added, 6);
        assert_int_equal(sb_rg_update_open(&o, aa, &b, &u, &err), SB_OK);
        const sb_rg_writes *wr = NULL;
        size_t batches = 0, groups = 0, asks = 0, sample_asks = 0;
        sb_rg_answer ans = {0};
        int answered = 0;
        while (1) {
            const sb_rg_ask *ask;
            assert_int_equal(sb_rg_update_next(u, most, answered ? &ans : NULL, &ask, &wr, &err), SB_OK);
            sb_rg_answer_free(&ans);
            answered = ask != NULL;
            if (ask) {
                /* what it reads is asked, never a batch beside it: every
                 * run (the first walk is a full one), their commits' git
                 * ordinals and cards, then the samples of the steps' runs
                 * before each batch */
                assert_null(wr);
                static const sb_rg_ask_kind order[] = {SB_RG_ASK_RUNS, SB_RG_ASK_GIT, SB_RG_ASK_CARDS};
                if (asks < 3) {
                    assert_int_equal(ask->kind, order[asks]);
                } else {
                    assert_int_equal(ask->kind, SB_RG_ASK_SAMPLES);
                    for (size_t i = 1; i < ask->nids; i++)
                        assert_true(ask->ids[i - 1] < ask->ids[i]);
                    sample_asks++;
                }
                if (asks == 0)
                    assert_int_equal(ask->all, 1);
                asks++;
                assert_int_equal(sb_rg_answer_read(db, ask, &ans, &err), SB_OK);
                continue;
            }
            if (!batches) {
                sb_rg_update_info_get(u, &info);
                assert_int_equal(info.stored, 1);
                assert_int_equal(info.full, 1);
                assert_int_equal(info.runs_walked, 6);
            }
            if (!wr)
                break;
            batches++;
            assert_int_equal(wr->clear, 1);
            assert_int_equal(wr->state.runs, 6);
            assert_int_equal(wr->ncommits, 3);
            assert_int_equal(wr->nnoise, 1);
            assert_string_equal(wr->noise[0].sku, "h100-sxm5-80gb");
            assert_int_equal(wr->nclasses, 1);
            assert_int_equal(wr->ngroups, most == 1 ? 1 : 2);
            size_t nsteps = 0;
            for (size_t g = 0; g < wr->ngroups; g++) {
                const sb_rg_write_group *wg = &wr->groups[g];
                /* in set order: cuBLAS first, whose steps name the class
                 * and threshold first */
                assert_string_equal(wg->provider, groups++ == 0 ? "cublas" : "fused");
                assert_int_equal(wg->grp, 0);
                assert_int_equal(wg->first, nsteps);
                assert_int_equal(wg->n, 2); /* a to b, b to c */
                int cublas = strcmp(wg->provider, "cublas") == 0;
                for (size_t k = 0; k < wg->n; k++) {
                    const sb_rg_step_rec *x = &wr->steps[wg->first + k];
                    assert_int_equal(x->old_commit, (long long)k + 1);
                    assert_int_equal(x->new_commit, (long long)k + 2);
                    assert_string_equal(wr->commits[x->new_commit - 1].sha, shas[k + 1]);
                    assert_int_equal(x->drift_class, cublas ? 1 : 0);
                    assert_int_equal(x->noise, cublas ? 1 : 0); /* both cuBLAS steps cross cards */
                }
                nsteps += wg->n;
            }
            assert_int_equal(wr->nsteps, nsteps);
        }
        assert_int_equal(batches, most == 1 ? 2 : 1);
        assert_int_equal(sample_asks, batches);
        assert_int_equal(groups, 2);
        sb_rg_update_free(u);
    }
    assert_int_equal(sb_rg_stored_read(db, 0, &s, &err), SB_OK);
    assert_int_equal(s.found, 0);
    sb_rg_stored_free(&s);
    /* a write that fails at the last step (the basis) leaves nothing
     * stored: no step, no commit, no settled figure */
    assert_int_equal(sb_db_exec(db,
                                "CREATE TEMP TRIGGER rg_refuse BEFORE INSERT ON rg_basis"
                                " BEGIN SELECT RAISE(ABORT, 'refused here'); END",
                                &err),
                     SB_OK);
    assert_int_equal(sb_site_rg_update(db, &o, aa, &info, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "refused here"));
    assert_int_equal(sb_db_exec(db, "DROP TRIGGER rg_refuse", &err), SB_OK);
    const char *tables[] = {"rg_steps", "rg_groups", "rg_commits", "rg_classes", "rg_class_figs", "rg_basis"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT count(*) FROM %s", tables[i]);
        sqlite3_stmt *cs = NULL;
        assert_int_equal(sqlite3_prepare_v2(sb_db_handle(db), q, -1, &cs, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(cs), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int64(cs, 0), 0);
        sqlite3_finalize(cs);
    }
    assert_int_equal(sb_site_rg_update(db, &o, aa, &info, &err), SB_OK);
    assert_int_equal(info.stored, 1);
    assert_int_equal(info.full, 1);
    /* the state alone */
    assert_int_equal(sb_rg_stored_read(db, 0, &s, &err), SB_OK);
    assert_int_equal(s.found, 1);
    assert_int_equal(s.steps_read, 0);
    assert_null(s.groups);
    assert_int_equal(sb_rg_fresh(&s, &o, &fresh, &err), SB_OK);
    assert_int_equal(fresh, 1);
    sb_rg_opts other = o;
    other.min_effect = 0.05;
    assert_int_equal(sb_rg_fresh(&s, &other, &fresh, &err), SB_OK);
    assert_int_equal(fresh, 0);
    sb_rg_list lat;
    int found = -1;
    sb_result_set none = {0};
    assert_int_equal(sb_rg_latest(&s, &none, sb_db_path(db), &o, LLONG_MAX, &lat, &found, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "not read"));
    sb_rg_stored_free(&s);
    /* with the steps */
    assert_int_equal(sb_rg_stored_read(db, 1, &s, &err), SB_OK);
    assert_int_equal(s.steps_read, 1);
    assert_int_equal(s.ngroups, 2);
    assert_int_equal(s.latest_from[0], 0);
    assert_int_equal(s.latest_from[2], s.nlatest);
    for (size_t i = 0; i < s.ngroups; i++) {
        assert_int_equal(s.latest_from[i + 1] - s.latest_from[i], 1); /* b to c */
        const sb_rg_step_rec *x = &s.latest[s.latest_from[i]];
        assert_int_equal(x->grp, s.groups[i].grp);
        assert_int_equal(x->latest, 1);
        assert_string_equal(x->changed, "");
    }
    assert_int_equal(s.nnoise, 1);
    assert_string_equal(s.noise[0].sku, "h100-sxm5-80gb");
    /* the cuBLAS group's first step (a to b, across cards) took it */
    assert_int_equal(s.nnoise_first, 1);
    assert_int_equal(s.noise_first[0].noise, s.noise[0].id);
    const sb_rg_group_rec *cublas = strcmp(s.groups[0].provider, "cublas") == 0 ? &s.groups[0] : &s.groups[1];
    assert_string_equal(cublas->provider, "cublas");
    assert_int_equal(s.noise_first[0].grp, cublas->grp);
    assert_int_equal(s.noise_first[0].seq, 0);
    /* the latest rows: those of the walk */
    assert_int_equal(sb_site_rg_latest(db, &s, &o, LLONG_MAX, &lat, &found, &err), SB_OK);
    assert_int_equal(found, 1);
    sb_result_set set;
    sb_rg_list l;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_site_rg_history(db, &set, NULL, &o, aa, &l, &err), SB_OK);
    size_t k = 0, regressions = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (!l.v[i].latest)
            continue;
        assert_true(k < lat.n);
        assert_int_equal(lat.v[k].new_run->run_id, l.v[i].new_run->run_id);
        assert_int_equal(lat.v[k].old_run->run_id, l.v[i].old_run->run_id);
        assert_int_equal(lat.v[k].verdict, l.v[i].verdict);
        assert_true(lat.v[k].p == l.v[i].p && lat.v[k].threshold == l.v[i].threshold);
        assert_int_equal(lat.v[k].threshold_from, l.v[i].threshold_from);
        regressions += lat.v[k].verdict == SB_RG_REGRESSION;
        k++;
    }
    assert_int_equal(k, lat.n);
    assert_int_equal(regressions, 1); /* the project's kernel at c */
    assert_int_equal(sb_rg_count_regressions(&lat), sb_rg_count_regressions(&l));
    assert_int_equal(lat.nnoise, l.nnoise);
    assert_int_equal(lat.nnoise, 1);
    assert_true(lat.noise[0].threshold == l.noise[0].threshold);
    assert_int_equal(lat.series_git + lat.series_measured, l.series_git + l.series_measured);
    sb_rg_free(&l);
    sb_rg_free(&lat);
    sb_results_free(&set);
    sb_rg_stored_free(&s);
    sb_rg_aa_free(aa);
    sb_db_close(db);
}

static void test_regression_history(void **state)
{
    (void)state;
    for (int i = 0; i < 50; i++) {
        base_samples[i] = 1.0 + 0.0004 * (double)((i * 37) % 50 - 25);
        slow_samples[i] = base_samples[i] * 1.10;
    }
    char p[512];
    snprintf(p, sizeof p, "%s/history.db", tmpdir);
    sb_db *w = fx_create(p);
    fx_result r = {0};
    r.provider = "fused";
    r.shape_key = "M=8,N=8";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.nsamples = 50;
    r.gpu_uuid = "GPU-11111111-2222-3333-4444-555555555555";
    const char *shas[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                          "cccccccccccccccccccccccccccccccccccccccc", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    const char *when[] = {"2026-11-10T00:00:00Z", "2026-11-11T00:00:00Z", "2026-11-12T00:00:00Z",
                          "2026-11-13T00:00:00Z"};
    const double *which[] = {base_samples, slow_samples, base_samples, base_samples};
    for (int k = 0; k < 4; k++) {
        r.git_sha = shas[k];
        r.finished_at = when[k];
        r.samples = which[k];
        r.suite = k == 2 ? "memory-bound-quick" : "memory-bound"; /* a label, not the case */
        fx_add_result(w, &r);
    }
    /* under Nsight Compute at c, 3x slower: left out */
    static double profiled[50];
    for (int i = 0; i < 50; i++)
        profiled[i] = base_samples[i] * 3;
    r.git_sha = shas[2];
    r.finished_at = "2026-11-14T00:00:00Z";
    r.samples = profiled;
    r.profiler = "ncu";
    fx_add_result(w, &r);
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set;
    sb_rg_list l;
    sb_rg_opts o = {0.01, 0.03, NULL, 0, NULL};
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(set.n, 4);
    sb_result_filter wp = {0};
    wp.with_profiled = 1;
    sb_result_set all;
    assert_int_equal(sb_results_load(db, &wp, &all, &err), SB_OK);
    assert_int_equal(all.n, 5);
    sb_results_free(&all);
    sb_rg_order ord;
    assert_int_equal(sb_rg_order_build(&set, &ord, &err), SB_OK);
    assert_int_equal(sb_rg_order_rank(&ord, shas[0]), 0);
    assert_int_equal(sb_rg_order_rank(&ord, shas[1]), 1);
    assert_int_equal(sb_rg_order_rank(&ord, shas[2]), 2);
    assert_int_equal(sb_rg_order_rank(&ord, "unknown"), -1);
    sb_rg_order_free(&ord);
    assert_int_equal(rg_history(db, &set, &o, &l, &err), SB_OK);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.v[0].verdict, SB_RG_REGRESSION);
    assert_string_equal(l.v[0].old_run->git_sha, shas[0]);
    assert_string_equal(l.v[0].new_run->git_sha, shas[1]);
    assert_int_equal(l.v[0].latest, 0);
    assert_int_equal(l.v[1].verdict, SB_RG_IMPROVEMENT);
    assert_string_equal(l.v[1].old_run->git_sha, shas[1]);
    assert_string_equal(l.v[1].new_run->git_sha, shas[2]);
    assert_int_equal(l.v[1].latest, 1);
    assert_true(fabs(l.v[1].rel_change + 0.10 / 1.10) < 1e-9);
    /* one card: the step's threshold is min_effect */
    assert_int_equal(l.v[1].same_card, 1);
    assert_true(l.v[1].threshold == 0.03);
    /* the regression was undone at the newest commit: nothing to fail on */
    assert_int_equal(sb_rg_count_regressions(&l), 0);

    /* A memo filled by the whole walk serves a walk over the same runs
     * with the same rows, naming no run whose samples it takes. A walk
     * over the runs up to the second commit compares run 1 with the
     * older run of commit a, which the whole walk (where the newer run
     * of a is the old one) never did: it names those two runs, and gives
     * the rows of a walk without the memo. A walk without the memo, or
     * by another rule, names runs. */
    {
        sb_rg_memo *memo = NULL;
        assert_int_equal(sb_rg_memo_new(&memo, &err), SB_OK);
        sb_rg_opts om = o;
        om.memo = memo;
        sb_rg_list lm;
        assert_true(walk_first_names(db, &set, &om) > 0);
        assert_int_equal(rg_history(db, &set, &om, &lm, &err), SB_OK);
        assert_int_equal(lm.n, l.n);
        sb_rg_free(&lm);
        sb_rg_memo_freeze(memo);
        /* the memo gives every figure: the walk names no run's samples */
        assert_int_equal(walk_first_names(db, &set, &om), 0);
        assert_int_equal(rg_history(db, &set, &om, &lm, &err), SB_OK);
        assert_int_equal(lm.n, l.n);
        for (size_t i = 0; i < l.n; i++) {
            assert_ptr_equal(lm.v[i].old_run, l.v[i].old_run);
            assert_ptr_equal(lm.v[i].new_run, l.v[i].new_run);
            assert_int_equal(lm.v[i].verdict, l.v[i].verdict);
            assert_int_equal(lm.v[i].n_old, l.v[i].n_old);
            assert_int_equal(lm.v[i].n_new, l.v[i].n_new);
            assert_true(lm.v[i].p == l.v[i].p && lm.v[i].p_adjusted == l.v[i].p_adjusted);
            assert_true(lm.v[i].rel_change == l.v[i].rel_change && lm.v[i].threshold == l.v[i].threshold);
            assert_int_equal(lm.v[i].same_card, l.v[i].same_card);
        }
        sb_rg_free(&lm);
        sb_result_filter upto = {0};
        upto.has_range = 1;
        upto.from = LLONG_MIN;
        long long first = set.v[0].finished_epoch;
        for (size_t i = 1; i < set.n; i++)
            if (set.v[i].finished_epoch < first)
                first = set.v[i].finished_epoch;
        upto.to = first + 2 * 86400; /* 2026-11-12: the runs at a and b */
        sb_result_set part;
        assert_int_equal(sb_results_pick(&set, &upto, &part, &err), SB_OK);
        assert_int_equal(part.n, 2);
        /* the pair the memo lacks: both its runs' samples */
        assert_int_equal(walk_first_names(db, &part, &om), 2);
        sb_rg_list lp;
        assert_int_equal(rg_history(db, &part, &o, &lp, &err), SB_OK);
        assert_int_equal(rg_history(db, &part, &om, &lm, &err), SB_OK);
        assert_int_equal(lp.n, 1);
        assert_int_equal(lm.n, 1);
        assert_int_equal(lp.v[0].verdict, SB_RG_REGRESSION);
        assert_int_equal(lm.v[0].verdict, lp.v[0].verdict);
        assert_true(lm.v[0].p == lp.v[0].p && lm.v[0].rel_change == lp.v[0].rel_change);
        sb_rg_free(&lm);
        sb_rg_free(&lp);
        /* without the memo, or by another rule, the walk takes samples */
        assert_true(walk_first_names(db, &set, &o) > 0);
        sb_rg_opts other = om;
        other.min_effect = 0.15;
        assert_true(walk_first_names(db, &set, &other) > 0);
        sb_results_free(&part);
        sb_rg_memo_free(memo);
    }

    /* Each step as the weekly records it (claims.h): series, commits,
     * ratio, threshold and rule hold against the stored runs; a claim
     * doctored in any of them fails the check, naming what it states
     * and what the runs give. */
    const sb_result *cited[3] = {l.v[1].new_run, l.v[0].old_run, l.v[1].old_run};
    sb_claims c = {0};
    sb_claims_add_step(&c, &l.v[1]);
    sb_claims_add_step(&c, &l.v[0]);
    assert_int_equal(c.n, 2);
    assert_false(c.failed);
    sb_claim_step *s = c.v[0].step;
    assert_non_null(s);
    assert_string_equal(c.v[0].figure, "-9.1%");
    assert_string_equal(s->case_key, l.v[1].new_run->case_key);
    assert_string_equal(s->old_commit, shas[1]);
    assert_string_equal(s->new_commit, shas[2]);
    assert_string_equal(s->rule, "improvement");
    assert_string_equal(c.v[1].step->rule, "regression");
    assert_true(fabs(s->ratio - 1.0 / 1.10) < 1e-9);
    assert_true(s->threshold == 0.03);
    /* the two steps rest on three runs, all cited */
    long long *ids = NULL;
    size_t nids = 0;
    assert_int_equal(sb_claims_step_runs(&c, cited, 3, &ids, &nids, &err), SB_OK);
    assert_int_equal(nids, 3);
    assert_true(ids[0] < ids[1] && ids[1] < ids[2]);
    free(ids);
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_OK);
    /* the ratio */
    double ratio = s->ratio;
    s->ratio = 0.95;
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "the weekly writeup states -9.1% (fused on h100-sxm5-80gb) at a ratio of 0.950000"));
    assert_non_null(strstr(err.msg, "give 0.909"));
    s->ratio = ratio;
    /* the threshold */
    s->threshold = 0.01;
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "past a threshold of 0.0100; runs"));
    assert_non_null(strstr(err.msg, "give 0.0300"));
    s->threshold = 0.03;
    /* the rule */
    free(s->rule);
    s->rule = strdup("regression");
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "as a regression; runs"));
    assert_non_null(strstr(err.msg, "give improvement (change -9.09%, threshold 3.00%"));
    free(s->rule);
    s->rule = strdup("improvement");
    /* the commits */
    free(s->old_commit);
    s->old_commit = strdup(shas[0]);
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "from commit aaaaaaaaaaaa to cccccccccccc; runs"));
    free(s->old_commit);
    s->old_commit = strdup(shas[1]);
    /* the series */
    free(s->case_key);
    s->case_key = strdup("mb/other/fwd/fp32/M=8,N=8");
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "of case mb/other/fwd/fp32/M=8,N=8; runs"));
    free(s->case_key);
    s->case_key = strdup(l.v[1].new_run->case_key);
    /* a run the claim rests on that is not cited */
    assert_int_equal(verify_steps(db, &c, cited, 2, &o, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "-9.1% (fused on h100-sxm5-80gb)"));
    assert_non_null(strstr(err.msg, "without an old and a new run it cites"));
    /* put back, it holds again */
    assert_int_equal(verify_steps(db, &c, cited, 3, &o, &err), SB_OK);
    sb_claims_free(&c);
    sb_rg_free(&l);
    sb_results_free(&set);
    sb_db_close(db);
}

/* The rows of two lists agree on everything the outputs show. */
static void assert_rows_equal(const sb_rg_row *a, const sb_rg_row *b)
{
    assert_int_equal(a->old_run ? a->old_run->run_id : -1, b->old_run ? b->old_run->run_id : -1);
    assert_int_equal(a->new_run->run_id, b->new_run->run_id);
    assert_int_equal(a->verdict, b->verdict);
    assert_int_equal(a->cause, b->cause);
    assert_int_equal(a->latest, b->latest);
    assert_int_equal(a->n_old, b->n_old);
    assert_int_equal(a->n_new, b->n_new);
    assert_true(a->p == b->p || (isnan(a->p) && isnan(b->p)));
    assert_true(a->p_adjusted == b->p_adjusted || (isnan(a->p_adjusted) && isnan(b->p_adjusted)));
    assert_true(a->rel_change == b->rel_change || (isnan(a->rel_change) && isnan(b->rel_change)));
    assert_true(a->threshold == b->threshold);
    assert_int_equal(a->threshold_from, b->threshold_from);
    assert_int_equal(a->same_card, b->same_card);
    assert_int_equal(a->range_commits, b->range_commits);
    assert_string_equal(a->changed, b->changed);
    assert_int_equal(a->confirm, b->confirm);
}

/* The history up to each end taken from the whole walk (sb_rg_asof)
 * gives the latest rows, drift counts, cross-card noise and series
 * counts of a walk over the runs up to that end, at ends inside a
 * commit's pass over the groups too (Benjamini-Hochberg families and
 * drift classes that have only some of their steps yet): three
 * providers (the project's, two others) on two cards of one SKU and one
 * of another, a series that fails at one commit, one that starts late.
 * A run of an old commit measured last makes every earlier end one the
 * whole walk does not serve. */
static void test_regression_asof(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/asof.db", tmpdir);
    sb_db *w = fx_create(p);
    static double smp[13][24][20];
    const char *provs[] = {"fused", "liger", "reference", "torch-compile"};
    const char *shapes[] = {"M=1", "M=2", "M=3"};
    char shas[13][41];
    for (int c = 0; c < 13; c++)
        snprintf(shas[c], sizeof shas[c], "%040x", 0xa000 + c);
    unsigned seed = 7;
    fx_result r = {0};
    r.nsamples = 20;
    for (int c = 0; c < 12; c++) {
        for (int g = 0; g < 24; g++) {
            int sku = g / 12, prov = (g / 3) % 4, shape = g % 3;
            if (prov == 3 && c < 8)
                continue; /* torch-compile starts at commit 8 */
            seed = seed * 1103515245u + 12345u;
            double level = 1.0 + 0.12 * (double)((seed >> 16) % 3) / 2.0;
            for (int i = 0; i < 20; i++)
                smp[c][g][i] = level * (1.0 + 0.001 * (double)((i * 7 + c + g) % 20));
            char when[32];
            /* commit c's pass: one group an hour from day c * 1.5 */
            long long t = 1762041600LL + (long long)c * 36 * 3600 + (long long)g * 3600; /* 2025-11-02 */
            time_t tt = (time_t)t;
            struct tm tmv;
            gmtime_r(&tt, &tmv);
            strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
            r.provider = provs[prov];
            r.shape_key = shapes[shape];
            r.sku = sku ? "a100-sxm4-80gb" : "h100-sxm5-80gb";
            r.arch = sku ? "a100" : "h100";
            r.gpu_uuid = (c + g) % 3 == 0 ? "GPU-22222222-2222-3333-4444-555555555555"
                                          : "GPU-11111111-2222-3333-4444-555555555555";
            r.git_sha = shas[c];
            r.finished_at = when;
            r.samples = smp[c][g];
            r.status = prov == 0 && shape == 1 && sku == 0 && c == 5 ? "failed" : NULL;
            fx_add_result(w, &r);
        }
    }
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_rg_opts o = {0.01, 0.03, NULL, 0, NULL};
    size_t seen[8] = {0}; /* regressions, now failing, single commits, drift thresholds, cross-card, partial ends */
    for (int pass = 0; pass < 2; pass++) {
        sb_result_set set;
        assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
        sb_rg_memo *memo = NULL;
        assert_int_equal(sb_rg_memo_new(&memo, &err), SB_OK);
        sb_rg_opts om = o;
        om.memo = memo;
        sb_rg_list full;
        sb_rg_aa *aa = NULL;
        assert_int_equal(sb_site_rg_aa(db, &om, &aa, &err), SB_OK);
        sb_rg_read rr;
        assert_int_equal(sb_site_rg_inputs(db, &set, &rr, &err), SB_OK);
        assert_int_equal(sb_site_rg_history(db, &set, &(const sb_rg_inputs){&rr.dev, &rr.git}, &om, aa, &full, &err),
                         SB_OK);
        sb_rg_memo_freeze(memo);
        sb_rg_asof *asof = NULL;
        assert_int_equal(sb_rg_asof_new(&set, &rr.git, &om, aa, &full, &asof, &err), SB_OK);
        long long last = LLONG_MIN;
        for (size_t i = 0; i < set.n; i++)
            last = set.v[i].finished_epoch > last ? set.v[i].finished_epoch : last;
        /* every 7 hours: ends between commits and inside their passes */
        for (long long end = 1762041600LL + 3600; end <= last + 7 * 3600; end += 7 * 3600) {
            sb_rg_list la, lw;
            int found = -1;
            assert_int_equal(sb_rg_asof_latest(asof, end, &la, &found, &err), SB_OK);
            if (pass == 1) {
                /* the old commit's late run is up to the end only after the last */
                assert_int_equal(found, end > last);
                if (!found) {
                    assert_int_equal(la.n, 0);
                    continue;
                }
            }
            assert_int_equal(found, 1);
            sb_result_filter upto = {0};
            upto.has_range = 1;
            upto.from = LLONG_MIN;
            upto.to = end;
            sb_result_set part;
            assert_int_equal(sb_results_pick(&set, &upto, &part, &err), SB_OK);
            assert_int_equal(sb_site_rg_history(db, &part, NULL, &om, aa, &lw, &err), SB_OK);
            size_t k = 0;
            for (size_t i = 0; i < lw.n; i++) {
                const sb_rg_row *x = &lw.v[i];
                if (!x->latest)
                    continue;
                assert_true(k < la.n);
                assert_rows_equal(&la.v[k++], x);
                seen[0] += sb_rg_counts(x) && x->verdict == SB_RG_REGRESSION;
                seen[1] += x->verdict == SB_RG_NOW_FAILING;
                seen[2] += x->verdict == SB_RG_SINGLE_COMMIT;
                seen[3] += x->threshold_from == SB_RG_FROM_HISTORY_AA;
                seen[4] += x->threshold_from == SB_RG_FROM_SKU_AA;
            }
            assert_int_equal(k, la.n);
            size_t tested, flagged;
            sb_rg_drift_share(&lw, &tested, &flagged);
            assert_int_equal(la.drift_tested, tested);
            assert_int_equal(la.drift_flagged, flagged);
            assert_int_equal(la.series_git, lw.series_git);
            assert_int_equal(la.series_measured, lw.series_measured);
            assert_int_equal(la.nnoise, lw.nnoise);
            for (size_t i = 0; i < la.nnoise; i++) {
                assert_string_equal(la.noise[i].sku, lw.noise[i].sku);
                assert_int_equal(la.noise[i].let_go, lw.noise[i].let_go);
                assert_true(la.noise[i].threshold == lw.noise[i].threshold);
            }
            /* the weekly's appendix renders the same text */
            sb_buf ma = SB_BUF_INIT, mw = SB_BUF_INIT;
            sb_rg_render_md(&la, &o, 1, &ma);
            sb_rg_render_md(&lw, &o, 1, &mw);
            assert_string_equal(sb_buf_str(&ma), sb_buf_str(&mw));
            sb_buf_free(&ma);
            sb_buf_free(&mw);
            seen[5] += part.n < set.n && (part.n % 24) != 0;
            sb_rg_free(&la);
            sb_rg_free(&lw);
            sb_results_free(&part);
        }
        sb_rg_asof_free(asof);
        sb_site_rg_inputs_free(&rr);
        sb_rg_aa_free(aa);
        sb_rg_free(&full);
        sb_rg_memo_free(memo);
        sb_results_free(&set);
        if (pass == 0) {
            /* commit 0 measured again after the others */
            sb_db_close(db);
            w = fx_open(p);
            r.provider = "fused";
            r.shape_key = "M=1";
            r.sku = "h100-sxm5-80gb";
            r.arch = "h100";
            r.git_sha = shas[0];
            r.finished_at = "2025-11-25T00:00:00Z";
            r.samples = smp[0][0];
            r.status = NULL;
            fx_add_result(w, &r);
            db = reopen(w, p);
        }
    }
    for (int i = 0; i < 6; i++)
        assert_true(seen[i] > 0);

    /* A week read with what the site's weeks share (its runs and the
     * previous week's picked from the runs indexed by time, the GEMM
     * gate's runs picked once) reads the rows of a week read alone. */
    {
        sb_result_set set, sess;
        assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
        assert_int_equal(sb_results_load_sessions(db, &sess, &err), SB_OK);
        sb_sku_table *skus = NULL;
        assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
        sb_site_weeks *sh = NULL;
        assert_int_equal(sb_site_weeks_new(&set, &sess, &sh, &err), SB_OK);
        size_t weeks_with_runs = 0;
        for (int wk = 44; wk <= 49; wk++) {
            sb_weekly_opts o2;
            memset(&o2, 0, sizeof o2);
            o2.year = 2025;
            o2.week = wk;
            o2.rg = o;
            o2.all = &set;
            o2.sessions_all = &sess;
            sb_site_weekly a, b;
            assert_int_equal(sb_site_weekly_read(db, skus, &o2, NULL, &a, &err), SB_OK);
            assert_int_equal(sb_site_weekly_read_shared(db, skus, &o2, NULL, sh, NULL, &b, &err), SB_OK);
            const sb_result_set *sa[] = {&a.snap.week, &a.snap.before, &a.snap.spec, &a.snap.with_sessions};
            const sb_result_set *sbb[] = {&b.snap.week, &b.snap.before, &b.snap.spec, &b.snap.with_sessions};
            for (int k = 0; k < 4; k++) {
                assert_int_equal(sa[k]->n, sbb[k]->n);
                assert_int_equal(sa[k]->n_left_out, sbb[k]->n_left_out);
                for (size_t i = 0; i < sa[k]->n; i++)
                    assert_int_equal(sa[k]->v[i].run_id, sbb[k]->v[i].run_id);
            }
            weeks_with_runs += a.snap.week.n > 0 && a.snap.before.n > 0;
            assert_int_equal(a.snap.nverdicts, b.snap.nverdicts);
            assert_int_equal(a.regressions->n, b.regressions->n);
            sb_site_weekly_free(&a);
            sb_site_weekly_free(&b);
        }
        assert_true(weeks_with_runs >= 2);
        sb_site_weeks_free(sh);
        sb_sku_table_free(skus);
        sb_results_free(&sess);
        sb_results_free(&set);
    }
    sb_db_close(db);
}

/* compare: commit a against commit b, case by case. */
/* A history whose measured order differs from git order: commits 0..15
 * in git, 8..15 10% slower; commit 8 was measured before commit 7. By
 * first measurement the history steps up, down and up again; once the
 * commits table knows the graph it steps up once, between 7 and 8, and
 * the change point search puts the change there too. */
static void test_git_order(void **state)
{
    (void)state;
    for (int i = 0; i < 50; i++) {
        base_samples[i] = 1.0 + 0.0004 * (double)((i * 37) % 50 - 25);
        slow_samples[i] = base_samples[i] * 1.10;
    }
    char p[512];
    snprintf(p, sizeof p, "%s/git_order.db", tmpdir);
    sb_db *w = fx_create(p);
    fx_result r = {0};
    r.provider = "fused";
    r.shape_key = "M=8,N=8";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.nsamples = 50;
    r.gpu_uuid = "GPU-11111111-2222-3333-4444-555555555555";
    char shas[16][41], when[16][32], log[16 * 100] = "";
    for (int k = 0; k < 16; k++) {
        memset(shas[k], "0123456789abcdef"[k], 40);
        shas[k][40] = '\0';
        int day = k == 7 ? 8 : k == 8 ? 7 : k; /* 8 measured before 7 */
        snprintf(when[k], sizeof when[k], "2026-11-%02dT00:00:00Z", day + 1);
        r.git_sha = shas[k];
        r.finished_at = when[k];
        r.samples = k < 8 ? base_samples : slow_samples;
        fx_add_result(w, &r);
    }
    for (int k = 15; k >= 0; k--) {
        char line[100];
        snprintf(line, sizeof line, "%.40s %.40s %d\n", shas[k], k ? shas[k - 1] : "", 1000 + k);
        strcat(log, line);
    }
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set;
    sb_rg_list l;
    sb_rg_opts o = {0.01, 0.03, NULL, 1, NULL}; /* with the change point search */
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    /* first measured: up at 8, down at 7, up at 9 */
    assert_int_equal(rg_history(db, &set, &o, &l, &err), SB_OK);
    assert_int_equal(l.series_measured, 1);
    assert_int_equal(l.series_git, 0);
    size_t up = 0, down = 0;
    for (size_t i = 0; i < l.n; i++) {
        up += l.v[i].verdict == SB_RG_REGRESSION;
        down += l.v[i].verdict == SB_RG_IMPROVEMENT;
    }
    assert_int_equal(up, 2);
    assert_int_equal(down, 1);
    sb_buf md = SB_BUF_INIT;
    sb_rg_render_md(&l, &o, 0, &md);
    assert_non_null(strstr(md.data, "Commit order: first measured for 1 series"));
    sb_buf_free(&md);
    sb_rg_free(&l);
    sb_results_free(&set);
    sb_db_close(db);

    sb_db *wdb;
    sb_commit_list cl;
    assert_int_equal(sb_db_open(p, SB_DB_WRITE, &wdb, &err), SB_OK);
    assert_int_equal(sb_commits_parse(log, strlen(log), "log", &cl, &err), SB_OK);
    assert_int_equal(sb_commits_store(wdb, &cl, &err), SB_OK);
    sb_commits_free(&cl);
    sb_db_close(wdb);

    db = reopen(NULL, p);
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(rg_history(db, &set, &o, &l, &err), SB_OK);
    assert_int_equal(l.series_git, 1);
    assert_int_equal(l.series_measured, 0);
    up = down = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i].verdict == SB_RG_REGRESSION) {
            up++;
            assert_string_equal(l.v[i].old_run->git_sha, shas[7]);
            assert_string_equal(l.v[i].new_run->git_sha, shas[8]);
        }
        down += l.v[i].verdict == SB_RG_IMPROVEMENT;
    }
    assert_int_equal(up, 1);
    assert_int_equal(down, 0);
    assert_int_equal(l.n, 15);
    assert_string_equal(l.v[14].new_run->git_sha, shas[15]);
    assert_int_equal(l.ncp, 1);
    assert_string_equal(l.cp[0].last_before->git_sha, shas[7]);
    assert_string_equal(l.cp[0].first_after->git_sha, shas[8]);
    assert_int_equal(l.cp[0].commits_before, 8);
    assert_int_equal(l.cp[0].commits_after, 8);
    assert_true(fabs(l.cp[0].shift - 0.10) < 1e-6);
    assert_true(l.cp[0].p < 0.01);
    sb_rg_render_md(&l, &o, 0, &md);
    assert_non_null(strstr(md.data, "Commit order: git ancestry (solbook commits import) for 1 series."));
    assert_non_null(strstr(md.data, "### Change points (1)"));
    assert_non_null(strstr(md.data, "| +10.0% | 0.005 | 8/8 | 777777777777 (run "));
    sb_buf_free(&md);
    sb_rg_free(&l);
    /* without change_points the same steps, no search and no section */
    o.change_points = 0;
    assert_int_equal(rg_history(db, &set, &o, &l, &err), SB_OK);
    assert_int_equal(l.n, 15);
    assert_int_equal(l.ncp, 0);
    assert_int_equal(l.searched_cp, 0);
    sb_rg_render_md(&l, &o, 0, &md);
    assert_null(strstr(md.data, "### Change points"));
    sb_buf_free(&md);
    sb_rg_free(&l);
    sb_results_free(&set);
    sb_db_close(db);
}

static void test_compare(void **state)
{
    (void)state;
    static double base[50], slow[50], fast[50], prof[50];
    for (int i = 0; i < 50; i++) {
        base[i] = 1.0 + 0.0004 * (double)((i * 37) % 50 - 25);
        slow[i] = base[i] * 1.10;
        fast[i] = base[i] * 0.80;
        prof[i] = base[i] * 3.0;
    }
    double one_a[] = {1.0}, one_b[] = {2.0};
    char p[512];
    snprintf(p, sizeof p, "%s/compare.db", tmpdir);
    sb_db *w = fx_create(p);
    const char *A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", *B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    struct {
        const char *shape;
        const double *sa, *sb;
        size_t na, nb;
    } cases[] = {
        {"M=1", base, slow, 50, 50},   /* slower */
        {"M=2", base, fast, 50, 50},   /* faster */
        {"M=3", base, base, 50, 50},   /* same */
        {"M=4", one_a, one_b, 1, 1},   /* inconclusive: one sample each */
        {"M=5", base, NULL, 50, 0},    /* only in A */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        fx_result r = {0};
        r.op = "rmsnorm";
        r.provider = "fused";
        r.shape_key = cases[k].shape;
        r.sku = "h100-sxm5-80gb";
        r.arch = "h100";
        r.git_sha = A;
        r.finished_at = "2026-11-10T00:00:00Z";
        r.samples = cases[k].sa;
        r.nsamples = cases[k].na;
        fx_add_result(w, &r);
        if (!cases[k].sb)
            continue;
        r.git_sha = B;
        r.finished_at = "2026-11-11T00:00:00Z";
        r.samples = cases[k].sb;
        r.nsamples = cases[k].nb;
        fx_add_result(w, &r);
        if (k == 2) { /* under ncu at B, newer: not the run that stands for B */
            r.finished_at = "2026-11-12T00:00:00Z";
            r.samples = prof;
            r.nsamples = 50;
            r.profiler = "ncu";
            fx_add_result(w, &r);
        }
    }
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_error_clear(&err);
    sb_result_set set;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    sb_cmp_side sa, sb;
    assert_int_equal(sb_cmp_side_parse("aaaaaaa", &sa, &err), SB_OK);
    assert_int_equal(sb_cmp_side_parse("sha=bbbb,op=rmsnorm,sku=h100-sxm5-80gb", &sb, &err), SB_OK);
    sb_cmp_side bad;
    assert_int_equal(sb_cmp_side_parse("colour=red", &bad, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "unknown key 'colour'"));
    assert_int_equal(sb_cmp_side_parse("main", &bad, &err), SB_ERR);
    sb_cmp_opts o = {0.01, 0.03};
    sb_cmp_result r;
    sb_rg_opts ro = {0.01, 0.03, NULL, 0, NULL};
    sb_rg_aa *aa = NULL;
    sb_run_devices dev = {0};
    assert_int_equal(sb_site_rg_aa(db, &ro, &aa, &err), SB_OK);
    assert_int_equal(sb_run_devices_load_set(db, &set, &dev, &err), SB_OK);
    assert_int_equal(sb_cmp_pairs(&set, &sa, &sb, &o, aa, &dev, &r, &err), SB_OK);
    /* the pairs wait for their samples: nothing judged yet */
    assert_int_equal(r.v[0].verdict, SB_CMP_INCONCLUSIVE);
    assert_true(isnan(r.v[0].p));
    /* the pairs one at a time, as `solbook compare` walks them */
    for (size_t i = 0; i < r.n; i++) {
        double *x = NULL, *y = NULL;
        size_t nx = 0, ny = 0;
        assert_false(sb_cmp_wants_kernel(&r.v[i]));
        sb_cmp_samples s = {0};
        if (sb_cmp_wants_samples(&r.v[i], &s)) {
            assert_int_equal(sb_samples_load(db, r.v[i].a->run_id, &x, &nx, &err), SB_OK);
            assert_int_equal(sb_samples_load(db, r.v[i].b->run_id, &y, &ny, &err), SB_OK);
        }
        s.x = x;
        s.nx = nx;
        s.y = y;
        s.ny = ny;
        assert_int_equal(sb_cmp_judge(&r, i, &s, &o, &err), SB_OK);
        free(x);
        free(y);
    }
    sb_cmp_finish(&r);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.only_a, 1);
    assert_int_equal(r.only_b, 0);
    assert_int_equal(r.across_skus, 0);
    assert_int_equal(r.v[0].verdict, SB_CMP_SLOWER);
    assert_true(fabs(r.v[0].ratio - 1.10) < 1e-9);
    assert_int_equal(r.v[1].verdict, SB_CMP_FASTER);
    assert_int_equal(r.v[2].verdict, SB_CMP_SAME);
    assert_true(fabs(r.v[2].ratio - 1.0) < 1e-12);
    assert_int_equal(r.v[3].verdict, SB_CMP_INCONCLUSIVE);
    assert_int_equal(r.counts[SB_CMP_SLOWER], 1);
    double g = exp((log(1.10) + log(0.80) + log(1.0) + log(2.0)) / 4);
    assert_true(fabs(r.geomean - g) < 1e-9);
    sb_buf md = SB_BUF_INIT, js = SB_BUF_INIT;
    sb_cmp_render_md(&r, &sa, &sb, &o, &md);
    assert_non_null(strstr(sb_buf_str(&md), "4 case(s) compared: 1 slower, 1 faster, 1 same, 1 inconclusive"));
    assert_non_null(strstr(sb_buf_str(&md), "### Slower in B (1)"));
    assert_non_null(strstr(sb_buf_str(&md), "| 1.100 |"));
    assert_int_equal(sb_cmp_render_json(&r, &sa, &sb, &o, &js, &err), SB_OK);
    json_t *j = json_loads(sb_buf_str(&js), 0, NULL);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"), "slower")), 1);
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 4);
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(j, "b"), "commits"), 0)), B);
    json_decref(j);
    sb_buf_free(&md);
    sb_buf_free(&js);
    sb_cmp_free(&r);
    sb_rg_aa_free(aa);
    sb_run_devices_free(&dev);
    sb_cmp_side_free(&sa);
    sb_cmp_side_free(&sb);
    sb_results_free(&set);
    sb_db_close(db);
}

static void test_regressions(void **state)
{
    (void)state;
    for (int i = 0; i < 50; i++) {
        /* deterministic spread of +-1 % around 1.0 ms */
        base_samples[i] = 1.0 + 0.0004 * (double)((i * 37) % 50 - 25);
        slow_samples[i] = base_samples[i] * 1.10;
        same_samples[i] = 1.0;
    }
    char p[512];
    path_in_tmp(p, sizeof p, "regress.db");
    sb_db *w = fx_create(p);
    add_pair(w, "M=1,N=1,K=1", same_samples, 50, same_samples, 50, 1, 0);   /* equal */
    double one_a[] = {1.0}, one_b[] = {2.0};
    add_pair(w, "M=2,N=2,K=2", one_a, 1, one_b, 1, 1, 0);                   /* one sample */
    add_pair(w, "M=3,N=3,K=3", base_samples, 50, NULL, 0, 0, 0);            /* one commit */
    add_pair(w, "M=4,N=4,K=4", base_samples, 50, slow_samples, 50, 1, 0);   /* +10 % */
    add_pair(w, "M=5,N=5,K=5", NULL, 0, NULL, 0, 1, 1);                     /* quantiles only */
    add_pair(w, "M=6,N=6,K=6", slow_samples, 50, base_samples, 50, 1, 0);   /* -9 % */
    {
        /* A newer run of case 4 whose commit is unknown (a tree measured
         * without .git), 30 % slower: it is no commit, so it neither hides
         * the a -> b comparison nor becomes one. */
        fx_result u = {0};
        u.provider = "fused";
        u.shape_key = "M=4,N=4,K=4";
        u.sku = "h100-sxm5-80gb";
        u.arch = "h100";
        u.git_sha = "unknown";
        u.finished_at = "2026-11-20T00:00:00Z";
        static double slower[50];
        for (int i = 0; i < 50; i++)
            slower[i] = base_samples[i] * 1.3;
        u.samples = slower;
        u.nsamples = 50;
        fx_add_result(w, &u);
        /* a case with unknown commits only has no row */
        u.shape_key = "M=7,N=7,K=7";
        fx_add_result(w, &u);
    }
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_result_set set;
    sb_rg_list l;
    sb_rg_opts o = {0.01, 0.03, NULL, 0, NULL};
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(rg_history(db, &set, &o, &l, &err), SB_OK);
    assert_int_equal(l.n, 6);
    const sb_rg_row *r;
    r = rg_find(&l, "M=1,N=1,K=1");
    assert_int_equal(r->verdict, SB_RG_NO_CHANGE);
    assert_true(r->p == 1.0);
    r = rg_find(&l, "M=2,N=2,K=2");
    assert_int_equal(r->verdict, SB_RG_INSUFFICIENT);
    r = rg_find(&l, "M=3,N=3,K=3");
    assert_int_equal(r->verdict, SB_RG_SINGLE_COMMIT);
    r = rg_find(&l, "M=4,N=4,K=4");
    assert_int_equal(r->verdict, SB_RG_REGRESSION);
    assert_true(r->p < 1e-6);
    assert_true(fabs(r->rel_change - 0.10) < 1e-9);
    assert_int_equal(r->n_old, 50);
    assert_int_equal(r->n_new, 50);
    assert_string_equal(r->old_run->git_sha, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    assert_string_equal(r->new_run->git_sha, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    r = rg_find(&l, "M=5,N=5,K=5");
    assert_int_equal(r->verdict, SB_RG_NO_SAMPLES);
    r = rg_find(&l, "M=6,N=6,K=6");
    assert_int_equal(r->verdict, SB_RG_IMPROVEMENT);
    assert_int_equal(sb_rg_count_regressions(&l), 1);
    /* a larger minimum effect turns the 10 % into no change */
    sb_rg_free(&l);
    sb_rg_opts o2 = {0.01, 0.15, NULL, 0, NULL};
    assert_int_equal(rg_history(db, &set, &o2, &l, &err), SB_OK);
    assert_int_equal(sb_rg_count_regressions(&l), 0);
    sb_buf md = SB_BUF_INIT, js = SB_BUF_INIT;
    sb_rg_free(&l);
    assert_int_equal(rg_history(db, &set, &o, &l, &err), SB_OK);
    sb_rg_render_md(&l, &o, 1, &md);
    assert_non_null(strstr(sb_buf_str(&md), "**1 regression of the project's kernels**"));
    assert_non_null(strstr(sb_buf_str(&md), "### Regressions of the project's kernels (1)"));
    assert_non_null(strstr(sb_buf_str(&md), "+10.0%"));
    assert_non_null(strstr(sb_buf_str(&md), "aaaaaaaaaaaa..bbbbbbbbbbbb |"));
    assert_non_null(strstr(sb_buf_str(&md), "insufficient samples"));
    assert_int_equal(sb_rg_render_json(&l, &o, 1, &js, &err), SB_OK);
    json_t *j = json_loads(sb_buf_str(&js), 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(j, "regressions")), 1);
    json_decref(j);
    sb_buf_free(&md);
    sb_buf_free(&js);
    sb_rg_free(&l);
    sb_results_free(&set);
    sb_db_close(db);
}

/* ---- gate ---- */

static long long add_spec(sb_db *w, const char *sku, const char *arch, int ncu, int iters,
                          int fail)
{
    fx_result r = {0};
    r.suite = "gemm-spec";
    r.provider = "cublas";
    r.shape_key = "K=4096,M=4096,N=4096";
    r.sku = sku;
    r.arch = arch;
    r.finished_at = "2026-11-18T00:00:00Z";
    r.median_ms = 0.2;
    r.iters = iters;
    if (fail) {
        r.status = "failed";
        r.failed_correctness = 1;
    }
    long long id = fx_add_result(w, &r);
    fx_add_ncu(w, id, ncu);
    return id;
}

static void gate(sb_db *db, const sb_sku_table *skus, const char *arch, int want_ok,
                 const char *const *needles)
{
    sb_error err;
    sb_buf out = SB_BUF_INIT;
    int ok = -1;
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    sb_result_set runs = {0};
    sb_details_ask ask = {0};
    sb_run_details *det = NULL;
    assert_int_equal(sb_results_load(db, NULL, &runs, &err), SB_OK);
    assert_int_equal(sb_gate_ask(&runs, spec, arch, &ask, &err), SB_OK);
    assert_int_equal(sb_run_details_read(db, &ask, &det, &err), SB_OK);
    assert_int_equal(sb_gate_check(&runs, det, skus, spec, arch, &ok, &out, &err), SB_OK);
    sb_run_details_free(det);
    sb_details_ask_free(&ask);
    sb_results_free(&runs);
    if (ok != want_ok)
        fail_msg("gate %s: ok=%d, report:\n%s", arch, ok, sb_buf_str(&out));
    for (size_t i = 0; needles[i]; i++)
        if (!strstr(sb_buf_str(&out), needles[i]))
            fail_msg("gate report lacks '%s':\n%s", needles[i], sb_buf_str(&out));
    sb_buf_free(&out);
}

static void test_gate(void **state)
{
    (void)state;
    char p[512];
    path_in_tmp(p, sizeof p, "gate.db");
    sb_db *w = fx_create(p);
    long long h100 = add_spec(w, "h100-sxm5-80gb", "h100", 6, 50, 0);
    add_spec(w, "h200-sxm-141gb", "h200", 4, 50, 0);        /* two metrics missing */
    add_spec(w, "h200-sxm-141gb", "h200", 6, 20, 0);        /* wrong protocol */
    add_spec(w, "h200-sxm-141gb", "h200", 6, 50, 1);        /* failed */
    add_spec(w, "h100-sxm5-80gb", "h200", 6, 50, 0);        /* arch mismatch */
    sb_db *db = reopen(w, p);
    sb_error err;
    sb_sku_table *skus = NULL;
    assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
    char okline[64];
    snprintf(okline, sizeof okline, "h100: ok: run %lld on h100-sxm5-80gb", h100);
    const char *all[] = {okline, "a100: missing: no GEMM spec result stored",
                         "h200: missing: 4 GEMM spec result(s), none complete",
                         "ncu metrics missing: dram__bytes_write.sum, gpu__time_duration.sum",
                         "protocol is 10 warm-up + 20 x 5",
                         "correctness failed",
                         "SKU 'h100-sxm5-80gb' is a h100 card but provenance says h200", NULL};
    gate(db, skus, "a100,h100,h200", 0, all);
    const char *h100only[] = {okline, NULL};
    gate(db, skus, "h100", 1, h100only);
    sb_db_close(db);
    /* a second complete h100 result is ambiguous */
    w = NULL;
    w = fx_open(p);
    add_spec(w, "h100-sxm5-80gb", "h100", 6, 50, 0);
    db = reopen(w, p);
    const char *amb[] = {"h100: ambiguous: 2 complete GEMM spec results", NULL};
    gate(db, skus, "h100", 0, amb);
    sb_db_close(db);
    sb_sku_table_free(skus);
}

/* ---- weekly ---- */

static void test_weekly(void **state)
{
    (void)state;
    char p[512], dir[512];
    path_in_tmp(p, sizeof p, "weekly.db");
    path_in_tmp(dir, sizeof dir, "weekly-out");
    sb_db *w = fx_create(p);
    fx_standard(w);
    /* previous week (W46): liger on h100 shape 0 was 20 % slower, 50 samples */
    double prev[50], cur[50];
    for (int i = 0; i < 50; i++) {
        cur[i] = 0.100 * (1.0 + 0.0004 * (double)((i * 37) % 50 - 25));
        prev[i] = cur[i] * 1.2;
    }
    fx_result r = {0};
    r.suite = "liger-perkernel";
    r.op = "rmsnorm";
    r.dtype = "bf16";
    r.provider = "liger";
    r.shape_key = FX_STD_SHAPES[0];
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.finished_at = "2026-11-11T10:00:00Z";
    r.samples = prev;
    r.nsamples = 50;
    r.flops = 4.0 * 1024 * 4096;
    r.bytes = 4.0 * 1024 * 4096;
    fx_add_result(w, &r);
    r.finished_at = "2026-11-19T10:00:00Z";
    r.samples = cur;
    r.git_sha = "4444444444444444444444444444444444444444";
    long long newer = fx_add_result(w, &r);
    /* a run in W48 must not appear */
    r.finished_at = "2026-11-23T00:00:00Z";
    r.provider = "late-provider";
    fx_add_result(w, &r);
    sb_db *db = reopen(w, p);
    sb_snapshot *snap = snapshot_of(db);
    sb_error err;
    sb_sku_table *skus = NULL;
    assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
    sb_weekly_opts o = {0};
    o.snap = snap;
    o.year = 2026;
    o.week = 47;
    o.out_dir = dir;
    o.db_label = "lab.db";
    o.rg.alpha = 0.01;
    o.rg.min_effect = 0.03;
    sb_weekly_summary sum;
    if (weekly_write(db, skus, &o, &sum, &err) != SB_OK)
        fail_msg("%s: %s: %s", err.file, err.where, err.msg);
    assert_int_equal(sum.runs, 19);
    assert_int_equal(sum.failed, 1);
    assert_int_equal(sum.training, 1);
    /* liger's newest commit against the standard set's run of the commit
     * before it (no samples: not tested); liger is not the project's
     * code, so nothing of it is counted either way */
    assert_int_equal(sum.improvements, 0);
    assert_int_equal(sum.regressions, 0);
    char *md = slurp(sum.md_path);
    char *html = slurp(sum.html_path);
    /* liger on h100 now uses the newer run (median of cur) for shape 0 */
    double m0 = 0;
    {
        double c[50];
        memcpy(c, cur, sizeof c);
        for (int i = 0; i < 50; i++)
            for (int j = i + 1; j < 50; j++)
                if (c[j] < c[i]) {
                    double t = c[i];
                    c[i] = c[j];
                    c[j] = t;
                }
        m0 = (c[24] + c[25]) / 2;
    }
    double want = exp((log(0.2 / m0) + log(0.4 / 0.16) + log(0.8 / 0.4)) / 3);
    char cell[160];
    /* the full geomean tables are in the appendix, the writeup in its limits */
    char *app = slurp(sum.appendix_path);
    snprintf(cell, sizeof cell, "| h100-sxm5-80gb | liger | huggingface | call | 3 | %.3f |", want);
    if (!strstr(app, cell))
        fail_msg("weekly appendix lacks '%s'", cell);
    assert_true(strlen(md) <= SB_WEEKLY_MAX_BYTES);
    assert_true(count(md, "\n") <= SB_WEEKLY_MAX_LINES);
    assert_int_equal(sum.md_bytes, strlen(md));
    assert_non_null(strstr(html, "<table>"));
    assert_non_null(strstr(md, "# solbook weekly 2026-W47 (2026-11-16 to 2026-11-22)"));
    assert_non_null(strstr(md, "| h100-sxm5-80gb | NVIDIA H100 80GB HBM3 | 580.82.07 | 13.0 | 13.1.0 | - |"));
    /* the summary comes first, then what changed */
    const char *changed = strstr(md, "## What changed since 2026-W46");
    assert_non_null(changed);
    assert_true(changed < strstr(md, "## Cards"));
    assert_null(strstr(md, "- Improved:"));
    assert_non_null(strstr(md, "- Regressions at the end of 2026-W47: **0 regressions of the project's kernels**"));
    assert_non_null(strstr(md, "- Environment or noise drift, not counted: 0 of 0 steps of other providers"));
    assert_non_null(strstr(app, "| rmsnorm | fwd | bf16 | BT=1024,H=4096 | liger | h100-sxm5-80gb | no samples |"));
    assert_non_null(strstr(app, "end-to-end training step"));
    assert_non_null(strstr(app, "| llama-3.2-1b | h100-sxm5-80gb | liger |"));
    assert_non_null(strstr(md, "![Roofline on h100-sxm5-80gb, 9 points](2026-W47-roofline-h100-sxm5-80gb.svg)"));
    /* the commands sit in a script beside the appendix, which links it */
    char *sh = slurp(sum.reproduce_path);
    assert_non_null(sh);
    assert_non_null(strstr(sh, "#!/bin/sh\n"));
    assert_non_null(strstr(sh, "# ---- rmsnorm fwd bf16 ("));
    assert_non_null(strstr(sh, "\nsolbench rmsnorm --suite=liger-perkernel --mode=fwd --dtype=bf16 --BT=1024 --H=4096 --provider=liger --warmup=10 --iters=50 --repeats=5 --l2=cold --out results/\n"));
    assert_non_null(strstr(sh, "\nsolbook report table --db lab.db --op rmsnorm --sku SKU\n"));
    assert_non_null(strstr(app, "[2026-W47-reproduce.sh](2026-W47-reproduce.sh)"));
    assert_non_null(strstr(app, "- rmsnorm fwd bf16: "));
    assert_null(strstr(app, "solbench rmsnorm"));
    assert_null(strstr(sh, "late-provider"));
    free(sh);
    assert_non_null(strstr(md, "solbook report weekly --week 2026-W47 --db lab.db"));
    assert_null(strstr(md, "late-provider"));
    assert_null(strstr(app, "late-provider"));
    /* new this week: what no run of W46 had; h100 and rmsnorm ran in W46 */
    assert_non_null(strstr(md, "- Cards new this week: h200-sxm-141gb.\n"));
    assert_null(strstr(md, "Ops new this week"));
    /* the gate's verdict names the missing arch; nothing else does */
    assert_non_null(strstr(md, "a100: missing"));
    assert_int_equal(count(md, "a100"), 1);
    assert_null(strstr(md, "A100"));
    /* no fused run: no cross-arch table, said so */
    assert_non_null(strstr(md, "No cross-arch table: none of the project's own kernels"));
    (void)newer;
    /* the note, below the details: one line of what it reads, then at
     * most ten lines before the next heading */
    const char *note = strstr(md, "## GEMM spec and completion gate\n\n");
    assert_non_null(note);
    assert_true(note > changed);
    assert_non_null(strstr(note, "(spec runs finished in 2026-W47: "));
    const char *note_end = strstr(note, "\n## More");
    assert_non_null(note_end);
    size_t note_lines = 0;
    for (const char *q = strstr(note, "\n\n**GEMM spec**"); q && q < note_end; q++)
        note_lines += *q == '\n';
    assert_true(note_lines > 0 && note_lines <= 12); /* a blank line, ten lines and a blank one */
    char svg[600];
    snprintf(svg, sizeof svg, "%s/2026-W47-speedup-rmsnorm~2ffwd~2fbf16.svg", dir);
    struct stat st;
    assert_int_equal(stat(svg, &st), 0);
    free(app);
    free(md);
    free(html);
    /* an empty week still writes an honest note */
    o.week = 30;
    assert_int_equal(weekly_write(db, skus, &o, &sum, &err), SB_OK);
    md = slurp(sum.md_path);
    assert_non_null(strstr(md, "No runs finished in 2026-W30"));
    free(md);
    sb_sku_table_free(skus);
    sb_snapshot_free(snap);
    sb_db_close(db);
}

/* ---- packets ---- */

static void test_packet(void **state)
{
    (void)state;
    sb_db *db = standard_db("packet.db");
    char dir[512];
    path_in_tmp(dir, sizeof dir, "packet-triton");
    sb_packet_opts o = {0};
    o.target = "triton";
    o.op = "rmsnorm";
    o.out_dir = dir;
    sb_packet_summary sum;
    int nothing = 0;
    sb_error err;
    if (packet_write(db, &o, &sum, &nothing, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    assert_int_equal(sum.cited, 17); /* 18 cases, one failed */
    assert_int_equal(sum.files, 3);  /* DISCUSSION.md, reproduce.sh, data.tar.gz */
    char p[1400];
    snprintf(p, sizeof p, "%s/MANIFEST.sha256", dir);
    char *man = slurp(p);
    assert_int_equal(count(man, "\n"), 3);
    assert_non_null(strstr(man, "  data.tar.gz\n"));
    /* each manifest line matches the file's digest */
    char *save = NULL, *copy = strdup(man);
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char hex[65], file[600], want[65];
        assert_int_equal(sscanf(line, "%64s  %599s", hex, file), 2);
        snprintf(p, sizeof p, "%s/%s", dir, file);
        assert_int_equal(sb_sha256_file_hex(p, want, &err), SB_OK);
        assert_string_equal(hex, want);
    }
    free(copy);
    /* the cited documents are in the archive (cli_report.sh unpacks and
     * checks it); the body names no result file */
    sb_result_set set;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    snprintf(p, sizeof p, "%s/DISCUSSION.md", dir);
    char *disc = slurp(p);
    for (size_t i = 0; i < set.n; i++) {
        char f[64];
        snprintf(f, sizeof f, "run-%lld.json", set.v[i].run_id);
        assert_null(strstr(disc, f));
    }
    snprintf(p, sizeof p, "%s/results", dir);
    assert_int_not_equal(access(p, F_OK), 0);
    assert_non_null(strstr(disc, "Cards: NVIDIA H100 80GB HBM3, NVIDIA H200"));
    assert_non_null(strstr(disc, "Driver: 580.82.07"));
    assert_non_null(strstr(disc, "not cited: 1 failed correctness"));
    assert_non_null(strstr(disc, "op-level microbenchmark"));
    assert_non_null(strstr(disc, "| rmsnorm | fwd | bf16 | liger | huggingface |"));
    assert_true(sum.body_bytes <= SB_PACKET_MAX_BYTES);
    assert_int_equal(sum.body_bytes, strlen(disc));
    snprintf(p, sizeof p, "%s/reproduce.sh", dir);
    char *sh = slurp(p);
    assert_true(strncmp(sh, "#!/bin/sh\n", 10) == 0);
    assert_non_null(strstr(sh, "solbench rmsnorm --suite=liger-perkernel"));
    free(sh);
    free(disc);
    free(man);
    /* the same directory again: refused, nothing overwritten */
    assert_int_equal(packet_write(db, &o, &sum, &nothing, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "not empty"));
    /* nothing passing for the op: refused clearly */
    path_in_tmp(dir, sizeof dir, "packet-empty");
    o.out_dir = dir;
    o.op = "gemm";
    assert_int_equal(packet_write(db, &o, &sum, &nothing, &err), SB_ERR);
    assert_int_equal(nothing, 1);
    assert_non_null(strstr(err.msg, "nothing to cite"));
    assert_int_not_equal(access(dir, F_OK), 0);
    /* the first phase names the runs the packet cites; a build missing
     * one of their documents is refused and builds nothing */
    o.op = "rmsnorm";
    o.all = &set;
    assert_int_equal(sb_site_plaus_mark(db, &set, &err), SB_OK);
    int64_t *ids = NULL;
    size_t nids = 0;
    assert_int_equal(sb_packet_cites(&o, &ids, &nids, &nothing, &err), SB_OK);
    assert_int_equal(nids, 17);
    sb_buf *docs = NULL;
    assert_int_equal(sb_run_docs_read(db, ids, nids, &docs, &err), SB_OK);
    sb_packet_docs short_of_one = {ids, docs, nids - 1};
    o.docs = &short_of_one;
    sb_file_set files;
    assert_int_equal(sb_packet_build(&o, &sum, &nothing, &files, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "its stored document was not handed to the packet"));
    assert_int_equal(files.n, 0);
    sb_run_docs_free(docs, nids);
    free(ids);
    sb_results_free(&set);
    sb_db_close(db);
}

/* ---- claims, paths, limits, kernel time, cross-arch pairing ---- */

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *w = NULL;
    char *msg = NULL;
    if (sqlite3_open(path, &w) != SQLITE_OK || sqlite3_exec(w, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "open");
    sqlite3_close(w);
}

/* The structured claims check (report/claims.h): a figure rests on cited
 * runs of its providers, card and session; nothing else in the database,
 * and no free text, counts. */
static void test_claims_check(void **state)
{
    (void)state;
    char p[512];
    path_in_tmp(p, sizeof p, "claims.db");
    sb_db *w = fx_create(p);
    fx_standard(w);
    sb_db_close(w);
    /* a stored run whose device name is a word of every text, of a
     * provider no cited run has: neither stops anything (issue 47 item 6) */
    exec_sql(p, "UPDATE provenance SET gpu_name = 'the' WHERE run_id = (SELECT c.run_id FROM configs c"
                " WHERE c.provider NOT IN ('huggingface', 'liger') ORDER BY c.run_id DESC LIMIT 1)");
    sb_db *db = NULL;
    sb_error err;
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    sb_result_set set;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    const sb_result *cited[8];
    size_t n = 0;
    const sb_result *uncited = NULL;
    for (size_t i = 0; i < set.n; i++) {
        const sb_result *r = &set.v[i];
        if (!strcmp(r->sku, "h100-sxm5-80gb") && (!strcmp(r->provider, "huggingface") || !strcmp(r->provider, "liger")) &&
            n < 8)
            cited[n++] = r;
        else if (!uncited)
            uncited = r;
    }
    assert_true(n >= 2);
    assert_non_null(uncited);
    int64_t hf = -1, lg = -1;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(cited[i]->provider, "huggingface") && hf < 0)
            hf = cited[i]->run_id;
        if (!strcmp(cited[i]->provider, "liger") && lg < 0)
            lg = cited[i]->run_id;
    }
    assert_true(hf >= 0 && lg >= 0);
    sb_claim_run *cr = sb_claim_runs_of(cited, n);
    assert_non_null(cr);

    /* a ratio of liger over huggingface on the card, from one run of each */
    sb_claims c = {0};
    int64_t both[2] = {lg, hf};
    sb_claims_add(&c, "1.50x", "liger", "huggingface", "h100-sxm5-80gb", NULL, both, 2);
    sb_claims_add(&c, "0.0123 ms", "huggingface", NULL, "h100-sxm5-80gb", NULL, &hf, 1);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_OK);
    sb_claims_free(&c);

    /* a run the body does not cite */
    int64_t far[2] = {lg, (int64_t)uncited->run_id};
    sb_claims_add(&c, "1.50x", "liger", uncited->provider, NULL, NULL, far, 2);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "which it does not cite"));
    assert_non_null(strstr(err.msg, "1.50x (liger over"));
    sb_claims_free(&c);

    /* a run of another provider than the figure names */
    sb_claims_add(&c, "2.00x", "fused", "huggingface", NULL, NULL, both, 2);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "a run of provider liger"));
    sb_claims_free(&c);

    /* a ratio with one side's runs only */
    sb_claims_add(&c, "2.00x", "liger", "huggingface", NULL, NULL, &lg, 1);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "without a run of huggingface"));
    sb_claims_free(&c);

    /* another card than the figure's */
    sb_claims_add(&c, "0.0123 ms", "huggingface", NULL, "h200-sxm-141gb", NULL, &hf, 1);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "a run on h100-sxm5-80gb"));
    sb_claims_free(&c);

    /* another session than the figure's: a result run belongs to none */
    sb_claims_add(&c, "0.0123 ms", "huggingface", NULL, NULL, "3710651c", &hf, 1);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "a run of session (none)"));
    sb_claims_free(&c);

    /* a figure from no run, and a failed record */
    sb_claims_add(&c, "3.00x", "liger", NULL, NULL, NULL, NULL, 0);
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "from no run"));
    sb_claims_free(&c);
    c.failed = 1;
    assert_int_equal(sb_claims_verify(&c, cr, n, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "out of memory"));
    sb_claims_free(&c);

    /* sb_claims_move keeps every record, in order */
    sb_claims a = {0}, b = {0};
    sb_claims_add(&a, "1x", "liger", NULL, NULL, NULL, &lg, 1);
    sb_claims_add(&b, "2x", "huggingface", NULL, NULL, NULL, &hf, 1);
    sb_claims_move(&a, &b);
    assert_int_equal(a.n, 2);
    assert_int_equal(b.n, 0);
    assert_string_equal(a.v[1].figure, "2x");
    assert_int_equal(sb_claims_verify(&a, cr, n, "body", &err), SB_OK);
    sb_claims_free(&a);
    free(cr);
    sb_results_free(&set);
    sb_db_close(db);
}

static void test_paths_check(void **state)
{
    (void)state;
    sb_error err;
    char cwd[4096], text[4200];
    /* the folder the files are published into is refused wherever it
     * appears */
    const char *paths[] = {tmpdir, NULL};
    snprintf(text, sizeof text, "see %s/out", tmpdir);
    assert_int_equal(sb_paths_check(paths, text, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, "a path of this build"));
    assert_non_null(strstr(err.msg, tmpdir));
    assert_int_equal(sb_paths_check(paths, "solbook ingest results/ --db solbook.db", "body", &err),
                     SB_OK);
    /* paths a run's data may name (the working folder, $HOME, the data
     * home) are data, shown as they are */
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(text, sizeof text, "params: {\"dir\": \"%s/results\", \"home\": \"%s\", \"x\": \"/root/x\"}",
             cwd, sb_home());
    assert_int_equal(sb_paths_check(paths, text, "body", &err), SB_OK);
    assert_int_equal(sb_paths_check(NULL, text, "body", &err), SB_OK);
    /* an output folder given as the working folder ("--out .") or one
     * above it is not looked for: the data may name paths there */
    const char *here[] = {".", "..", NULL};
    assert_int_equal(sb_paths_check(here, text, "body", &err), SB_OK);
    /* a folder under it is */
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/results", cwd);
    const char *below[] = {sub, NULL};
    assert_int_equal(sb_paths_check(below, text, "body", &err), SB_ERR);
    assert_non_null(strstr(err.msg, sub));
}

/* Adds fused and huggingface runs of n_ops ops x n_shapes shapes on both
 * cards, each at its own commit when distinct_commits. */
static void many_cases(sb_db *w, int n_ops, int n_shapes, int distinct_commits)
{
    static const char *const provs[] = {"huggingface", "fused"};
    char op[32], shape[64], sha[41];
    int k = 0;
    for (int o = 0; o < n_ops; o++)
        for (int s = 0; s < n_shapes; s++)
            for (int c = 0; c < 2; c++)
                for (int p = 0; p < 2; p++) {
                    fx_result r = {0};
                    snprintf(op, sizeof op, "op%03d", o);
                    snprintf(shape, sizeof shape, "M=%d,N=4096", 1024 * (s + 1));
                    snprintf(sha, sizeof sha, "%040d", distinct_commits ? k++ : 7);
                    r.suite = "memory-bound";
                    r.op = op;
                    r.dtype = "bf16";
                    r.provider = provs[p];
                    r.shape_key = shape;
                    r.sku = FX_STD_SKUS[c];
                    r.arch = FX_STD_ARCH[c];
                    r.gpu = c ? "NVIDIA H200" : "NVIDIA H100 80GB HBM3";
                    r.git_sha = sha;
                    r.finished_at = "2026-11-18T10:00:00Z";
                    r.median_ms = (p ? 0.1 : 0.3) * (s + 1) * (c ? 0.8 : 1.0);
                    r.bytes = 2.0 * 2 * 1024 * (s + 1) * 4096;
                    fx_add_result(w, &r);
                }
}

static void test_packet_limits(void **state)
{
    (void)state;
    char p[512], dir[600];
    sb_db *w, *db;
    sb_packet_opts o = {0};
    o.target = "triton";
    sb_packet_summary sum;
    int nothing = 0;
    sb_error err;
    /* a body over GitHub's limit is refused and nothing is written */
    path_in_tmp(p, sizeof p, "huge.db");
    w = fx_create(p);
    many_cases(w, 700, 1, 1);
    db = reopen(w, p);
    path_in_tmp(dir, sizeof dir, "packet-huge");
    o.out_dir = dir;
    o.db_label = NULL;
    assert_int_equal(packet_write(db, &o, &sum, &nothing, &err), SB_ERR);
    assert_int_equal(nothing, 0);
    assert_non_null(strstr(err.msg, "over GitHub's 65536"));
    assert_int_not_equal(access(dir, F_OK), 0);
    /* one op of it fits */
    o.op = "op000";
    assert_int_equal(packet_write(db, &o, &sum, &nothing, &err), SB_OK);
    assert_true(sum.body_bytes <= SB_PACKET_MAX_BYTES);
    sb_db_close(db);
}

/* A SKU named like another SKU's slug and hash (what sb_safe_name makes of
 * "h100+x") gets a roofline file of its own: the weekly names plots by
 * page ids, which no other value produces. */
static void test_weekly_names(void **state)
{
    (void)state;
    char p[512], dir[600], twin[SB_SAFE_NAME_SIZE];
    sb_safe_name("h100+x", twin);
    assert_non_null(strchr(twin + 6, '-')); /* "h100-x-" and the hash */
    path_in_tmp(p, sizeof p, "names.db");
    path_in_tmp(dir, sizeof dir, "weekly-names");
    sb_db *w = fx_create(p);
    double s[5] = {0.10, 0.11, 0.12, 0.11, 0.10};
    const char *skus_used[2] = {"h100+x", twin};
    for (int k = 0; k < 2; k++) {
        const char *prov[2] = {"huggingface", "liger"};
        for (int j = 0; j < 2; j++) {
            fx_result r = {0};
            r.suite = "liger-perkernel";
            r.op = "rmsnorm";
            r.dtype = "bf16";
            r.provider = prov[j];
            r.shape_key = "BT=1024,H=4096";
            r.sku = skus_used[k];
            r.arch = "h100";
            r.finished_at = "2026-11-19T10:00:00Z";
            r.samples = s;
            r.nsamples = 5;
            r.flops = 4.0 * 1024 * 4096;
            r.bytes = 4.0 * 1024 * 4096;
            fx_add_result(w, &r);
        }
    }
    sb_db *db = reopen(w, p);
    sb_snapshot *snap = snapshot_of(db);
    sb_error err;
    sb_sku_table *skus = NULL;
    assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
    sb_weekly_opts o = {0};
    o.snap = snap;
    o.year = 2026;
    o.week = 47;
    o.out_dir = dir;
    o.db_label = "lab.db";
    o.rg.alpha = 0.01;
    o.rg.min_effect = 0.03;
    sb_weekly_summary sum;
    if (weekly_write(db, skus, &o, &sum, &err) != SB_OK)
        fail_msg("%s: %s: %s", err.file, err.where, err.msg);
    char a[1200], b[1200], id[SB_PAGE_ID_SIZE];
    sb_page_id("h100+x", id);
    snprintf(a, sizeof a, "%s/2026-W47-roofline-%s.svg", dir, id);
    sb_page_id(twin, id);
    snprintf(b, sizeof b, "%s/2026-W47-roofline-%s.svg", dir, id);
    assert_string_not_equal(a, b);
    struct stat st;
    if (stat(a, &st) != 0 || stat(b, &st) != 0)
        fail_msg("missing %s or %s", a, b);
    char *ra = slurp(a), *rb = slurp(b);
    assert_non_null(strstr(ra, "h100+x"));
    assert_null(strstr(rb, "h100+x"));
    assert_non_null(strstr(rb, twin));
    printf("rooflines of h100+x and %s are two files\n", twin);
    free(ra);
    free(rb);
    sb_sku_table_free(skus);
    sb_snapshot_free(snap);
    sb_db_close(db);
}

static void test_weekly_limits(void **state)
{
    (void)state;
    char p[512], dir[600];
    path_in_tmp(p, sizeof p, "wide.db");
    sb_db *w = fx_create(p);
    many_cases(w, 40, 12, 0);
    sb_db *db = reopen(w, p);
    sb_snapshot *snap = snapshot_of(db);
    path_in_tmp(dir, sizeof dir, "weekly-wide");
    sb_sku_table *skus = NULL;
    sb_error err;
    assert_int_equal(sb_sku_table_load(NULL, &skus, &err), SB_OK);
    sb_weekly_opts o = {0};
    o.snap = snap;
    o.year = 2026;
    o.week = 47;
    o.out_dir = dir;
    o.db_label = p;
    o.rg.alpha = 0.01;
    o.rg.min_effect = 0.03;
    sb_weekly_summary sum;
    if (weekly_write(db, skus, &o, &sum, &err) != SB_OK)
        fail_msg("%s", err.msg);
    char *md = slurp(sum.md_path), *app = slurp(sum.appendix_path);
    assert_true(strlen(md) <= SB_WEEKLY_MAX_BYTES);
    assert_true(count(md, "\n") <= SB_WEEKLY_MAX_LINES);
    /* 40 tables on 2 cards: one row each a card in the writeup, every
     * case in the appendix */
    assert_int_equal(count(md, "| geomean of 12 |"), 0);
    assert_int_equal(count(md, "| 12 | x huggingface "), 80);
    assert_int_equal(count(app, "| geomean of 12 |"), 40);
    assert_int_equal(count(app, "| M=12288,N=4096 |"), 40);
    assert_null(strstr(md, tmpdir));
    assert_null(strstr(app, tmpdir));
    /* no table of the writeup has more than 8 columns */
    size_t widest = 0;
    for (const char *line = md; *line;) {
        const char *end = strchr(line, '\n');
        size_t bars = 0;
        if (*line == '|')
            for (const char *q = line; q < (end ? end : line + strlen(line)); q++)
                bars += *q == '|' && (q == line || q[-1] != '\\');
        if (bars > widest)
            widest = bars;
        line = end ? end + 1 : line + strlen(line);
    }
    printf("weekly of 40 tables on 2 cards: %zu lines, widest table %zu columns\n", count(md, "\n"), widest - 1);
    assert_true(widest >= 2 && widest - 1 <= 8);
    free(md);
    free(app);
    sb_sku_table_free(skus);
    sb_snapshot_free(snap);
    sb_db_close(db);
}

static void test_kernel_time(void **state)
{
    (void)state;
    char p[512];
    path_in_tmp(p, sizeof p, "kernel.db");
    sb_db *w = fx_create(p);
    many_cases(w, 1, 2, 0);
    sb_db_close(w);
    /* both sides of shape 1 recorded kernel time; shape 2 only fused */
    exec_sql(p, "UPDATE metrics SET kernel_median_ms = median_ms / 2, kernel_method = 'held-launch'"
                " WHERE run_id IN (SELECT run_id FROM configs WHERE shape_key = 'M=1024,N=4096')");
    exec_sql(p, "UPDATE metrics SET kernel_median_ms = median_ms WHERE run_id IN (SELECT run_id FROM"
                " configs WHERE shape_key = 'M=2048,N=4096' AND provider = 'fused')");
    sb_db *db = NULL;
    sb_error err;
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    sb_result_set set;
    sb_pick *picks;
    size_t np;
    sb_geo_table geo;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    assert_int_equal(sb_geo_compute(&set, picks, np, NULL, &geo, &err), SB_OK);
    const sb_geo_row *g = find_row(&geo, "h100-sxm5-80gb", "fused", "huggingface");
    assert_non_null(g);
    /* one pair lacks kernel time: the row compares kernels where both
     * measured them, and counts the other case as call time only */
    assert_int_equal(g->time, SB_TIME_KERNEL);
    assert_int_equal(g->shapes, 1);
    assert_int_equal(g->call_only, 1);
    assert_true(fabs(g->geomean - 3.0) < 1e-12);
    sb_geo_free(&geo);
    sb_results_free(&set);
    free(picks);
    sb_db_close(db);
    exec_sql(p, "UPDATE metrics SET kernel_median_ms = median_ms / 4 WHERE run_id IN (SELECT run_id"
                " FROM configs WHERE shape_key = 'M=2048,N=4096' AND provider = 'huggingface')");
    assert_int_equal(sb_db_open_reader(p, &db, &err), SB_OK);
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    assert_int_equal(sb_geo_compute(&set, picks, np, NULL, &geo, &err), SB_OK);
    g = find_row(&geo, "h100-sxm5-80gb", "fused", "huggingface");
    assert_int_equal(g->time, SB_TIME_KERNEL);
    /* kernel ratios: shape 1 (0.15 / 0.05) = 3, shape 2 (0.15 / 0.2) = 0.75 */
    assert_true(fabs(g->geomean - sqrt(3.0 * 0.75)) < 1e-12);
    sb_buf md = SB_BUF_INIT;
    sb_geo_render_md(&geo, &md);
    assert_non_null(strstr(sb_buf_str(&md), "| fused | huggingface | kernel | 2 |"));
    sb_buf_free(&md);
    sb_geo_free(&geo);
    sb_results_free(&set);
    free(picks);
    sb_db_close(db);
}

static void test_crossarch_pairs(void **state)
{
    (void)state;
    char p[512];
    path_in_tmp(p, sizeof p, "pairs.db");
    sb_db *w = fx_create(p);
    const char *shapes[] = {"M=1024,N=4096", "M=2048,N=4096"};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++)
            for (int q = 0; q < 2; q++) {
                if (s == 1 && c == 0)
                    continue; /* shape 2 only on the H200 */
                fx_result r = {0};
                r.suite = "memory-bound";
                r.op = "rmsnorm";
                r.dtype = "bf16";
                r.provider = q ? "fused" : "huggingface";
                r.shape_key = shapes[s];
                r.sku = FX_STD_SKUS[c];
                r.arch = FX_STD_ARCH[c];
                r.finished_at = "2026-11-18T10:00:00Z";
                r.median_ms = (q ? 1.0 : 2.0) * (s + 1) * (c ? 0.75 : 1.0);
                r.bytes = 1e9 * (s + 1);
                fx_add_result(w, &r);
            }
    fx_add_calibration(w, "h100-sxm5-80gb", "h100", "2026-11-17T09:00:00Z", 3000.0, 700.0);
    fx_add_calibration(w, "h200-sxm-141gb", "h200", "2026-11-17T09:00:00Z", 4000.0, 700.0);
    sb_db *db = reopen(w, p);
    sb_snapshot *snap = snapshot_of(db);
    sb_error err;
    sb_result_set set;
    sb_pick *picks;
    size_t np;
    sb_xa_set xa;
    assert_int_equal(sb_results_load(db, NULL, &set, &err), SB_OK);
    assert_int_equal(sb_picks_latest(&set, &picks, &np, &err), SB_OK);
    assert_int_equal(sb_xa_build(snap, picks, np, "fused", NULL, NULL, &xa, &err), SB_OK);
    assert_int_equal(xa.n, 1);
    const sb_xa_table *t = &xa.v[0];
    assert_int_equal(t->ncards, 2);
    assert_int_equal(t->nrows, 2);
    assert_string_equal(t->base[0], "huggingface");
    for (size_t i = 0; i < t->nrows; i++)
        for (size_t k = 0; k < 2; k++)
            if (t->rows[i].cell[k].run)
                assert_string_equal(t->rows[i].cell[k].run->case_key, t->rows[i].any->case_key);
    /* shape 1 on both cards: H200 time over H100 0.75, 1 GB in 1 ms on a 3000 GB/s copy */
    assert_true(fabs(t->rows[0].cell[1].ratio - 0.75) < 1e-12);
    assert_true(fabs(t->rows[0].cell[0].pct_copy - 100.0 / 3.0) < 1e-9);
    assert_true(fabs(t->rows[0].cell[0].vs[0] - 2.0) < 1e-12);
    /* shape 2 only on the H200: no H100 cell, no ratio */
    assert_null(t->rows[1].cell[0].run);
    assert_non_null(t->rows[1].cell[1].run);
    assert_true(isnan(t->rows[1].cell[1].ratio));
    sb_buf md = SB_BUF_INIT;
    sb_xa_render_md(t, SIZE_MAX, &md);
    assert_non_null(strstr(sb_buf_str(&md), "| M=2048,N=4096 | - | - | - |"));
    assert_non_null(strstr(sb_buf_str(&md), "| 0.750 | 0.750 |"));
    sb_buf_free(&md);
    sb_xa_free(&xa);

    /* a session pairs shape 1 on the H100: its unpaired speedup is left
     * out, the cell says so, and the geomean row has no H100 speedup */
    sb_session_run side[2];
    memset(side, 0, sizeof side);
    side[0].case_key = (char *)set.v[0].case_key;
    for (size_t i = 0; i < set.n; i++)
        if (!strcmp(set.v[i].shape_key, shapes[0]))
            side[0].case_key = (char *)set.v[i].case_key;
    sb_session_pair pair;
    memset(&pair, 0, sizeof pair);
    pair.target = &side[0];
    pair.base = &side[1];
    size_t idx = 0;
    sb_session_headline hl;
    memset(&hl, 0, sizeof hl);
    hl.sku = "h100-sxm5-80gb";
    hl.provider = "fused";
    hl.baseline = "huggingface";
    hl.pair = &idx;
    hl.count = 1;
    sb_session_headlines h;
    memset(&h, 0, sizeof h);
    h.report.pairs = &pair;
    h.report.npairs = 1;
    h.v = &hl;
    h.n = 1;
    assert_int_equal(sb_xa_build(snap, picks, np, "fused", NULL, &h, &xa, &err), SB_OK);
    t = &xa.v[0];
    assert_int_equal(t->rows[0].cell[0].paired[0], 1);
    assert_true(isnan(t->rows[0].cell[0].vs[0]));
    assert_int_equal(t->rows[0].cell[1].paired[0], 0);
    assert_true(isnan(t->geomean[0].vs[0]));
    sb_xa_render_md(t, SIZE_MAX, &md);
    assert_non_null(strstr(sb_buf_str(&md), "| M=1024,N=4096 | 1.0000 | paired | 33% |"));
    sb_buf_free(&md);
    sb_xa_free(&xa);
    free(picks);
    sb_results_free(&set);
    sb_snapshot_free(snap);
    sb_db_close(db);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sb-report-test-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}

/* The reproduce line carries the whole protocol, the settle phase
 * included: the GEMM spec's 2000 ms changes the clocks it is measured at. */
static void test_repro_settle(void **state)
{
    (void)state;
    sb_repro *rp;
    sb_error err;
    if (sb_repro_open(&rp, &err) != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    sb_result r;
    memset(&r, 0, sizeof r);
    r.suite = (char *)"gemm-spec";
    r.op = (char *)"gemm";
    r.mode = (char *)"fwd";
    r.dtype = (char *)"fp16";
    r.provider = (char *)"cublas";
    r.backend = (char *)"cuda";
    r.shape_key = (char *)"K=4096,M=4096,N=4096";
    r.shape_json = (char *)"{\"K\":4096,\"M\":4096,\"N\":4096}";
    r.params_json = (char *)"{\"transa\":\"n\",\"transb\":\"n\"}";
    r.run_params_json = (char *)"{\"seed\":42}";
    r.l2 = (char *)"warm";
    r.arch = (char *)"h100";
    r.timer = (char *)"cuda-event";
    r.warmup_iters = 10;
    r.warmup_ms = NAN;
    r.settle_ms = 2000;
    r.iters = 50;
    r.repeats = 5;
    r.input_sets = 1;
    r.source_format = (char *)"solbook";
    r.source_path = (char *)"spec.json";
    r.tool_name = (char *)"solbench";
    r.tool_version = (char *)"0.1.0";
    r.git_sha = (char *)"082eef5fc27e7dbc0cb70ba12e647588bf7b2b4e";
    r.run_id = 1;
    sb_buf b = SB_BUF_INIT;
    assert_int_equal(sb_repro_case(rp, &r, &b, &err), SB_OK);
    assert_string_equal(sb_buf_str(&b), "solbench gemm --suite=gemm-spec --mode=fwd --dtype=fp16 --K=4096 --M=4096 "
                                        "--N=4096 --transa=n --transb=n --provider=cublas --warmup=10 "
                                        "--settle-ms=2000 --iters=50 --repeats=5 --l2=warm --input-sets=1 "
                                        "--seed=42 --out results/");
    sb_buf_reset(&b);
    r.settle_ms = NAN;
    assert_int_equal(sb_repro_case(rp, &r, &b, &err), SB_OK);
    assert_null(strstr(sb_buf_str(&b), "--settle-ms"));
    assert_null(strstr(sb_buf_str(&b), "--hold"));
    /* repeats queued behind a stream hold are re-measured the same way */
    sb_buf_reset(&b);
    r.launch_hold = 1;
    assert_int_equal(sb_repro_case(rp, &r, &b, &err), SB_OK);
    assert_non_null(strstr(sb_buf_str(&b), " --provider=cublas --warmup=10 --hold --iters=50 "));
    /* a params value that reads as options stays the value of its own
     * option: one word --NAME=VALUE */
    sb_buf_reset(&b);
    r.params_json = (char *)"{\"transa\":\"--calibration /etc/shadow --out /tmp/x\",\"transb\":\"-n\"}";
    assert_int_equal(sb_repro_case(rp, &r, &b, &err), SB_OK);
    assert_non_null(strstr(sb_buf_str(&b), " '--transa=--calibration /etc/shadow --out /tmp/x' --transb=-n "));
    /* names that are solbench's own options, a prefix of one, or no plain
     * name: the run is a comment, not a command */
    const char *bad[] = {"{\"out\":\"/tmp/x\"}", "{\"calib\":\"/etc/shadow\"}",
                         "{\"-x\":\"1\"}", "{\"a b\":\"1\"}", "{\"x=--out\":\"1\"}",
                         "{\"\":\"1\"}", "{\"seed\":1}", "{\"sp\":\"1\"}", "{\"spec\":\"1\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_buf_reset(&b);
        r.params_json = (char *)bad[i];
        if (sb_repro_case(rp, &r, &b, &err) != SB_OK)
            fail_msg("params %s: %s", bad[i], err.msg);
        if (strncmp(sb_buf_str(&b), "# run 1 is not reproduced: its params member", 44) != 0 ||
            strchr(sb_buf_str(&b), '\n'))
            fail_msg("params %s gave: %s", bad[i], sb_buf_str(&b));
    }
    sb_buf_reset(&b);
    r.params_json = (char *)"{}";
    r.shape_json = (char *)"{\"out\":1}";
    assert_int_equal(sb_repro_case(rp, &r, &b, &err), SB_OK);
    assert_non_null(strstr(sb_buf_str(&b), "# run 1 is not reproduced: its shape member \"out\""));
    sb_buf_free(&b);
    sb_repro_close(rp);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (getenv("SB_KEEP_TEST_OUTPUT"))
        return 0;
    return system(cmd) == 0 ? 0 : -1;
}

/* sb_rg_order_build folds runs by the address of their SHA's text, then
 * by the text: the same SHA at several addresses (text outside a pool,
 * runs of two sets) is one commit, ranked by the earliest known time of
 * all its runs. More commits than the fold's first table, the runs of
 * a commit met latest first at each address and across them, one commit
 * with no known time. */
static void test_order_fold(void **state)
{
    (void)state;
    enum { COMMITS = 150, COPIES = 3, RUNS = COMMITS * COPIES * 3 + 1 };
    static char text[COPIES][COMMITS][41];
    static sb_result v[RUNS];
    size_t n = 0;
    for (int copy = COPIES - 1; copy >= 0; copy--)
        for (int c = 0; c < COMMITS; c++) {
            snprintf(text[copy][c], sizeof text[copy][c], "c%039d", c);
            long long perm = (c * 37) % COMMITS, known = 1000 + perm * 10 + copy;
            /* at one address: later (in the reverse order), unknown, earliest */
            long long t[3] = {100000 + (COMMITS - perm) * 10 + copy, LLONG_MIN, known};
            for (int k = 0; k < 3; k++) {
                memset(&v[n], 0, sizeof v[n]);
                v[n].git_sha = text[copy][c];
                v[n].finished_epoch = c == 0 ? LLONG_MIN : t[k];
                n++;
            }
        }
    static char unknown[] = "unknown";
    memset(&v[n], 0, sizeof v[n]);
    v[n].git_sha = unknown;
    v[n++].finished_epoch = 5;
    sb_result_set set = {0};
    set.v = v;
    set.n = n;
    sb_rg_order ord;
    sb_error err;
    assert_int_equal(sb_rg_order_build(&set, &ord, &err), SB_OK);
    assert_int_equal(ord.n, COMMITS);
    char sha[41];
    for (int c = 0; c < COMMITS; c++) {
        snprintf(sha, sizeof sha, "c%039d", c);
        /* commit 0 has no time: first; the others by (37 c) mod 150 */
        assert_int_equal(sb_rg_order_rank(&ord, sha), c == 0 ? 0 : (c * 37) % COMMITS);
    }
    assert_int_equal(sb_rg_order_rank(&ord, "unknown"), -1);
    sb_rg_order_free(&ord);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geomean_tables), cmocka_unit_test(test_newest_run_decides),
        cmocka_unit_test(test_geomean_counts),
        cmocka_unit_test(test_roofline_svg),   cmocka_unit_test(test_regressions),
        cmocka_unit_test(test_regression_history),
        cmocka_unit_test(test_regression_stored_read),
        cmocka_unit_test(test_regression_asof),
        cmocka_unit_test(test_git_order),
        cmocka_unit_test(test_results_select),
        cmocka_unit_test(test_ceilings_latest), cmocka_unit_test(test_plausible_own_card),
        cmocka_unit_test(test_plausible_poisoned_calibration), cmocka_unit_test(test_plausible_all_set_aside),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_gate),           cmocka_unit_test(test_weekly),
        cmocka_unit_test(test_packet),         cmocka_unit_test(test_repro_settle),
        cmocka_unit_test(test_claims_check),   cmocka_unit_test(test_paths_check),
        cmocka_unit_test(test_packet_limits),  cmocka_unit_test(test_weekly_limits),
        cmocka_unit_test(test_weekly_names),   cmocka_unit_test(test_order_fold),
        cmocka_unit_test(test_kernel_time),    cmocka_unit_test(test_crossarch_pairs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
