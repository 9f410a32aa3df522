/* compare_render.c - `solbook compare`'s Markdown and JSON
 * (compare_render.h). */
#include "compare_render.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "encode.h"
#include "report_json.h"

static void fmt_num(char *buf, size_t size, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, fmt, v);
}

static void md_commits(sb_buf *out, char **v, size_t n)
{
    if (!n) {
        sb_buf_puts(out, "none");
        return;
    }
    for (size_t i = 0; i < n && i < 8; i++) {
        /* the short form of a SHA, through the span encoder like all data */
        char shortsha[13];
        size_t k = strnlen(v[i], sizeof shortsha - 1);
        memcpy(shortsha, v[i], k);
        shortsha[k] = '\0';
        sb_buf_puts(out, i ? ", " : "");
        sb_enc_md_code_span(out, shortsha, 0);
    }
    if (n > 8)
        sb_buf_printf(out, " and %zu more", n - 8);
}

static void md_table(const sb_cmp_result *r, sb_cmp_verdict want, sb_buf *out)
{
    static const char *const heads[] = {"Slower in B", "Faster in B", "Same", "Inconclusive"};
    sb_buf_printf(out, "### %s (%zu)\n\n", heads[want], r->counts[want]);
    if (!r->counts[want]) {
        sb_buf_puts(out, "None.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | shape | params | provider | SKU | A median ms | "
                     "B median ms | B/A | threshold | p | samples A/B | card | A commit (run) | B commit (run) |\n"
                     "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: "
                     "| --- | --- | --- |\n");
    for (size_t i = 0; i < r->n; i++) {
        const sb_cmp_row *w = &r->v[i];
        if (w->verdict != want)
            continue;
        const sb_result *b = w->b;
        const char *params = strcmp(b->params_json, "{}") ? b->params_json : "";
        const char *sku = r->across_skus ? NULL : b->sku;
        const char *cells[] = {b->op, b->mode, b->dtype, b->shape_key, params, b->provider};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < sizeof cells / sizeof *cells; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], cells[k] == params ? SB_TEXT_NOTE_MAX : SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        sb_buf_puts(out, " ");
        if (sku) {
            sb_enc_md_text(out, sku, SB_TEXT_NAME_MAX);
        } else {
            sb_enc_md_text(out, w->a->sku, SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " / ");
            sb_enc_md_text(out, b->sku, SB_TEXT_NAME_MAX);
        }
        char ma[32], mb[32], ra[32], p[32];
        fmt_num(ma, sizeof ma, "%.4f", w->median_a);
        fmt_num(mb, sizeof mb, "%.4f", w->median_b);
        fmt_num(ra, sizeof ra, "%.3f", w->ratio);
        fmt_num(p, sizeof p, "%.2g", w->p);
        sb_buf_printf(out, " | %s | %s | %s | %.1f%% (%s) | %s | %zu/%zu | %s | %.12s (run %lld) | %.12s (run %lld) |\n",
                      ma, mb, ra, w->threshold * 100.0,
                      sb_rg_threshold_from_name(w->threshold_from), p, w->n_a, w->n_b,
                      w->same_card == 1 ? "same" : w->same_card == 0 ? "two cards" : "not recorded",
                      w->a->git_sha, w->a->run_id, b->git_sha, b->run_id);
    }
    sb_buf_puts(out, "\n");
}

void sb_cmp_render_md(const sb_cmp_result *r, const sb_cmp_side *a, const sb_cmp_side *b,
                      const sb_cmp_opts *o, sb_buf *out)
{
    sb_buf_puts(out, "# Compare\n\n- A: ");
    sb_enc_md_code_span(out, a->text, SB_TEXT_NAME_MAX);
    sb_buf_printf(out, ": %zu passing run(s), commit(s) ", r->runs_a);
    md_commits(out, r->commits_a, r->ncommits_a);
    sb_buf_puts(out, "\n- B: ");
    sb_enc_md_code_span(out, b->text, SB_TEXT_NAME_MAX);
    sb_buf_printf(out, ": %zu passing run(s), commit(s) ", r->runs_b);
    md_commits(out, r->commits_b, r->ncommits_b);
    sb_buf_printf(out,
                  "\n\nEvidence level: op-level microbenchmark. The newest passing run of each case, "
                  "provider and SKU on each side (runs timed under a profiler left out); cases "
                  "paired on case and provider%s. Two-sided Mann-Whitney U on the stored samples, "
                  "alpha %.4g; a change of the median under its threshold is the same: the case's "
                  "A/A noise on one card or across two where the stored A/A sessions measured it, "
                  "else the SKU's cross-card A/A noise across cards, never below %.1f%% (the rule "
                  "of report regressions).\n\n",
                  r->across_skus ? " across the two SKUs" : " and SKU", o->alpha,
                  o->threshold * 100.0);
    char g[32];
    fmt_num(g, sizeof g, "%.4f", r->geomean);
    sb_buf_printf(out,
                  "**%zu case(s) compared: %zu slower, %zu faster, %zu same, %zu inconclusive; "
                  "geomean B/A %s** (below 1: B is faster). %zu case(s) only in A, %zu only in "
                  "B.\n\n",
                  r->n, r->counts[SB_CMP_SLOWER], r->counts[SB_CMP_FASTER], r->counts[SB_CMP_SAME],
                  r->counts[SB_CMP_INCONCLUSIVE], g, r->only_a, r->only_b);
    md_table(r, SB_CMP_SLOWER, out);
    md_table(r, SB_CMP_FASTER, out);
    md_table(r, SB_CMP_INCONCLUSIVE, out);
    md_table(r, SB_CMP_SAME, out);
}

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *side_json(const sb_cmp_side *s, size_t runs, char **commits, size_t n)
{
    json_t *j = json_object(), *c = json_array();
    json_object_set_new(j, "selector", json_string(s->text));
    json_object_set_new(j, "runs", json_integer((json_int_t)runs));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(c, json_string(commits[i]));
    json_object_set_new(j, "commits", c);
    return j;
}

int sb_cmp_render_json(const sb_cmp_result *r, const sb_cmp_side *a, const sb_cmp_side *b,
                       const sb_cmp_opts *o, sb_buf *out, sb_error *err)
{
    json_t *rows = NULL, *counts = json_object();
    json_t *root = sb_report_json_new("op-level microbenchmark", "cases", &rows);
    if (!root || !counts) {
        json_decref(root);
        json_decref(counts);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    json_object_set_new(root, "alpha", json_real(o->alpha));
    json_object_set_new(root, "threshold", json_real(o->threshold));
    json_object_set_new(root, "a", side_json(a, r->runs_a, r->commits_a, r->ncommits_a));
    json_object_set_new(root, "b", side_json(b, r->runs_b, r->commits_b, r->ncommits_b));
    json_object_set_new(root, "across_skus", json_boolean(r->across_skus));
    json_object_set_new(root, "geomean_ratio", num_or_null(r->geomean));
    for (int v = 0; v < 4; v++)
        json_object_set_new(counts, sb_cmp_verdict_name((sb_cmp_verdict)v),
                            json_integer((json_int_t)r->counts[v]));
    json_object_set_new(root, "counts", counts);
    json_object_set_new(root, "only_a", json_integer((json_int_t)r->only_a));
    json_object_set_new(root, "only_b", json_integer((json_int_t)r->only_b));
    for (size_t i = 0; i < r->n; i++) {
        const sb_cmp_row *w = &r->v[i];
        json_t *j = json_object();
        json_object_set_new(j, "case_key", json_string(w->b->case_key));
        json_object_set_new(j, "op", json_string(w->b->op));
        json_object_set_new(j, "mode", json_string(w->b->mode));
        json_object_set_new(j, "dtype", json_string(w->b->dtype));
        json_object_set_new(j, "shape", json_string(w->b->shape_key));
        json_object_set_new(j, "params", json_string(w->b->params_json));
        json_object_set_new(j, "provider", json_string(w->b->provider));
        json_object_set_new(j, "sku_a", json_string(w->a->sku));
        json_object_set_new(j, "sku_b", json_string(w->b->sku));
        json_object_set_new(j, "verdict", json_string(sb_cmp_verdict_name(w->verdict)));
        json_object_set_new(j, "median_a_ms", num_or_null(w->median_a));
        json_object_set_new(j, "median_b_ms", num_or_null(w->median_b));
        json_object_set_new(j, "ratio", num_or_null(w->ratio));
        json_object_set_new(j, "p", num_or_null(w->p));
        json_object_set_new(j, "threshold", num_or_null(w->threshold));
        json_object_set_new(j, "threshold_from",
                            json_string(sb_rg_threshold_from_name(w->threshold_from)));
        json_object_set_new(j, "same_card", w->same_card < 0 ? json_null() : json_boolean(w->same_card));
        json_object_set_new(j, "samples_a", json_integer((json_int_t)w->n_a));
        json_object_set_new(j, "samples_b", json_integer((json_int_t)w->n_b));
        json_object_set_new(j, "commit_a", json_string(w->a->git_sha));
        json_object_set_new(j, "commit_b", json_string(w->b->git_sha));
        json_object_set_new(j, "run_a", json_integer(w->a->run_id));
        json_object_set_new(j, "run_b", json_integer(w->b->run_id));
        json_array_append_new(rows, j);
    }
    return sb_report_json_finish(root, out, err);
}
