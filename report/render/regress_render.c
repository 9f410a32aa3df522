/* regress_render.c - the regression list's renderings (regress_render.h):
 * the definition of the count, commit ranges, the Markdown sections and
 * the JSON document. */
#include "regress_render.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "geomean.h"
#include "report_json.h"

/* The cross-card thresholds in a few words, naming no SKU (the weekly
 * writeup names only what its runs have). A SKU may have an entry of
 * each hold; it is counted once. */
static void cross_card_text(const sb_rg_list *l, sb_buf *out)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t measured = 0, defaulted = 0;
    for (size_t i = 0; i < l->nnoise; i++) {
        if (!l->noise[i].comparisons) {
            defaulted++;
            continue;
        }
        int again = 0;
        for (size_t j = 0; j < i && !again; j++)
            again = l->noise[j].comparisons && strcmp(l->noise[j].sku, l->noise[i].sku) == 0;
        measured += !again;
        lo = fmin(lo, l->noise[i].threshold);
        hi = fmax(hi, l->noise[i].threshold);
    }
    if (measured) {
        sb_buf_printf(out, "from the stored A/A runs: %.1f%%", lo * 100.0);
        if (hi > lo)
            sb_buf_printf(out, " to %.1f%%", hi * 100.0);
        sb_buf_printf(out, " for %zu SKU%s", measured, measured == 1 ? "" : "s");
    }
    if (defaulted || !measured)
        sb_buf_printf(out, "%s%.1f%%, the default%s", measured ? "; " : "",
                      SB_RG_CROSS_CARD_DEFAULT * 100.0,
                      measured ? " where none are stored" : " without stored A/A runs");
}

/* One line per SKU of its cross-card threshold. */
static void cross_card_md(const sb_rg_list *l, sb_buf *out)
{
    if (!l->nnoise)
        return;
    sb_buf_puts(out, "Cross-card thresholds: ");
    for (size_t i = 0; i < l->nnoise; i++) {
        const sb_rg_noise *e = &l->noise[i];
        sb_buf_puts(out, i ? "; " : "");
        sb_enc_md_text(out, e->sku, SB_TEXT_NAME_MAX);
        sb_buf_puts(out, e->let_go ? ", a hold let go," : ", held launches,");
        if (e->comparisons)
            sb_buf_printf(out, " %.1f%% (1.5 times the 95th percentile of %zu A/A comparisons "
                               "across its cards, %s)",
                          e->threshold * 100.0, e->comparisons, e->let_go ? "a hold let go" : "held");
        else
            sb_buf_printf(out, " %.1f%% (no such A/A comparisons across its cards stored: the default)",
                          e->threshold * 100.0);
    }
    sb_buf_puts(out, ".\n\n");
}

void sb_rg_definition(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out)
{
    size_t n = sb_rg_count_regressions(l);
    sb_buf_printf(out,
                  "**%zu regression%s of the project's kernels** (providers " SB_PROJECT_PROVIDER
                  " and solbook-*): series (one case, provider and SKU under one protocol and "
                  "one environment) whose newest commit is slower than the series' commit before "
                  "it, Mann-Whitney p adjusted by Benjamini-Hochberg below %.4g and the median "
                  "slower by at least %.1f%% on the same card, across cards by the SKU's "
                  "cross-card A/A threshold, from the comparisons held or let go as the step's runs were (",
                  n, n == 1 ? "" : "s", o->alpha, o->min_effect * 100.0);
    cross_card_text(l, out);
    sb_buf_puts(out, "); where the stored A/A sessions measured the case by held launch, by at "
                     "least 1.5 times the 95th percentile of its A/A changes on that relation of cards, taken from "
                     "the A/A comparisons whose held launches held for a step whose runs held, and "
                     "from those where a run's hold was let go (the op waited on the host) for a "
                     "step where one was let go; or failing now after passing. Steps of other providers (environment "
                     "or noise drift) and steps across a protocol or environment change are "
                     "listed apart and never counted.");
}

/* 1: sha is 40 hex digits (an "unknown" commit gives no link). */
static int full_sha(const char *sha)
{
    return strlen(sha) == 40 && strspn(sha, "0123456789abcdef") == 40;
}

void sb_rg_range_md(const sb_rg_row *r, const sb_rg_opts *o, sb_buf *out)
{
    char os[13], ns[13];
    snprintf(os, sizeof os, "%.12s", r->old_run ? r->old_run->git_sha : "-");
    snprintf(ns, sizeof ns, "%.12s", r->new_run->git_sha);
    if (o->repo_url && sb_url_link_safe(o->repo_url) && r->old_run && full_sha(r->old_run->git_sha) &&
        full_sha(r->new_run->git_sha)) {
        size_t len = strlen(o->repo_url);
        while (len && o->repo_url[len - 1] == '/')
            len--;
        sb_buf_printf(out, "[%s..%s](%.*s/compare/%s...%s)", os, ns, (int)len, o->repo_url,
                      r->old_run->git_sha, r->new_run->git_sha);
    } else {
        sb_buf_printf(out, "%s..%s", os, ns);
    }
    if (r->range_commits > 0)
        sb_buf_printf(out, " (%ld commit%s)", r->range_commits, r->range_commits == 1 ? "" : "s");
}

static void fmt_ms(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.4f", v);
}

typedef int (*row_filter)(const sb_rg_row *r, int latest_only);

static size_t md_count(const sb_rg_list *l, row_filter want, int latest_only)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++)
        c += (size_t)want(&l->v[i], latest_only);
    return c;
}

enum { COL_CONFIRM = 1, COL_CHANGED = 2 };

static void md_table(const sb_rg_list *l, const sb_rg_opts *o, row_filter want, int latest_only,
                     int extra, sb_buf *out)
{
    if (!md_count(l, want, latest_only)) {
        sb_buf_puts(out, "None.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | shape | provider | SKU | verdict | old median ms | new "
                     "median ms | change | threshold | p | samples old/new | card | commits | old "
                     "run | new run |");
    if (extra & COL_CONFIRM)
        sb_buf_puts(out, " counted | paired re-measure |");
    if (extra & COL_CHANGED)
        sb_buf_puts(out, " what changed |");
    sb_buf_puts(out, "\n| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | "
                     "---: | ---: | --- | --- | ---: | ---: |");
    if (extra & COL_CONFIRM)
        sb_buf_puts(out, " --- | --- |");
    if (extra & COL_CHANGED)
        sb_buf_puts(out, " --- |");
    sb_buf_puts(out, "\n");
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        if (!want(r, latest_only))
            continue;
        const sb_result *n = r->new_run;
        const char *cells[] = {n->op, n->mode, n->dtype, n->shape_key, n->provider, n->sku,
                               sb_rg_verdict_name(r->verdict)};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 7; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        char om[32], nm[32], ch[32], th[32], p[64];
        fmt_ms(r->old_run ? r->old_run->median_ms : NAN, om, sizeof om);
        fmt_ms(n->median_ms, nm, sizeof nm);
        if (isnan(r->rel_change))
            snprintf(ch, sizeof ch, "-");
        else
            snprintf(ch, sizeof ch, "%+.1f%%", r->rel_change * 100.0);
        if (r->threshold > 0)
            snprintf(th, sizeof th, "%.1f%%", r->threshold * 100.0);
        else
            snprintf(th, sizeof th, "-");
        if (isnan(r->p))
            snprintf(p, sizeof p, "-");
        else if (!isnan(r->p_adjusted) && r->p_adjusted != r->p)
            snprintf(p, sizeof p, "%.2g (adjusted %.2g)", r->p, r->p_adjusted);
        else
            snprintf(p, sizeof p, "%.2g", r->p);
        sb_buf_printf(out, " %s | %s | %s | %s | %s | %zu/%zu | %s | ", om, nm, ch, th, p, r->n_old,
                      r->n_new,
                      r->same_card == 1 ? "same" : r->same_card == 0 ? "two cards" : "not recorded");
        if (r->old_run) {
            sb_rg_range_md(r, o, out);
            sb_buf_printf(out, " | %lld | ", r->old_run->run_id);
        } else {
            sb_buf_printf(out, "%.12s | - | ", n->git_sha);
        }
        sb_buf_printf(out, "%lld |", n->run_id);
        if (extra & COL_CONFIRM) {
            sb_buf_printf(out, " %s | %s", sb_rg_counts(r) ? "yes" : "no (undone later)",
                          sb_rg_confirm_name(r->confirm));
            if (r->confirm_new_run >= 0)
                sb_buf_printf(out, " %+.1f%% (runs %lld, %lld)", r->confirm_change * 100.0,
                              r->confirm_old_run, r->confirm_new_run);
            sb_buf_puts(out, " |");
        }
        if (extra & COL_CHANGED) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, r->changed, strlen(r->changed));
            sb_buf_puts(out, " |");
        }
        sb_buf_puts(out, "\n");
    }
    sb_buf_puts(out, "\n");
}

static int shown(const sb_rg_row *r, int latest_only)
{
    return !latest_only || r->latest;
}

static int want_code_regression(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && r->cause == SB_RG_CODE &&
           (r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_NOW_FAILING);
}

static int want_code_improvement(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && r->cause == SB_RG_CODE && r->verdict == SB_RG_IMPROVEMENT;
}

static int flagged(const sb_rg_row *r)
{
    return r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_NOW_FAILING ||
           r->verdict == SB_RG_IMPROVEMENT;
}

static int want_drift(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && r->cause == SB_RG_DRIFT && flagged(r);
}

static int want_change(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && (r->cause == SB_RG_PROTOCOL || r->cause == SB_RG_ENVIRONMENT) &&
           flagged(r);
}

static int want_untested(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) &&
           (r->verdict == SB_RG_INSUFFICIENT || r->verdict == SB_RG_NO_SAMPLES);
}

static int want_single(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && r->verdict == SB_RG_SINGLE_COMMIT;
}

static int want_any_change(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && (r->cause == SB_RG_PROTOCOL || r->cause == SB_RG_ENVIRONMENT);
}

static int want_compared(const sb_rg_row *r, int latest_only)
{
    return shown(r, latest_only) && r->old_run != NULL;
}

static void md_changepoints(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out)
{
    sb_buf_printf(out, "### Change points (%zu)\n\n", l->ncp);
    sb_buf_printf(out,
                  "E-Divisive means over each series' per-commit medians (newest passing run "
                  "of each commit), permutation test at alpha %.4g with 199 permutations, at "
                  "least 3 commits a segment; shifts of at least %.1f%%. The change lies "
                  "between the two commits.\n\n",
                  o->alpha, o->min_effect * 100.0);
    if (!l->ncp) {
        sb_buf_puts(out, "None.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | shape | provider | SKU | median ms before | median ms "
                     "after | shift | p | commits before/after | last commit before (run) | "
                     "first commit after (run) |\n");
    sb_buf_puts(out, "| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | "
                     "--- | --- |\n");
    for (size_t i = 0; i < l->ncp; i++) {
        const sb_rg_changepoint *c = &l->cp[i];
        const sb_result *n = c->first_after;
        const char *cells[] = {n->op, n->mode, n->dtype, n->shape_key, n->provider, n->sku};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 6; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        sb_buf_printf(out, " %.4f | %.4f | %+.1f%% | %.2g | %zu/%zu | %.12s (run %lld) | %.12s (run %lld) |\n",
                      c->before, c->after, c->shift * 100.0, c->p, c->commits_before,
                      c->commits_after, c->last_before->git_sha, c->last_before->run_id,
                      n->git_sha, n->run_id);
    }
    sb_buf_puts(out, "\n");
}

void sb_rg_render_md(const sb_rg_list *l, const sb_rg_opts *o, int latest_only, sb_buf *out)
{
    sb_rg_definition(l, o, out);
    sb_buf_puts(out, "\n\n");
    size_t same = 0, steps = md_count(l, want_compared, latest_only);
    for (size_t i = 0; i < l->n; i++)
        if (shown(&l->v[i], latest_only) && l->v[i].verdict == SB_RG_NO_CHANGE)
            same++;
    sb_buf_printf(out,
                  "Evidence level: " "op-level microbenchmark" ". Two-sided Mann-Whitney U on the "
                  "stored samples. %zu step(s) between commits %s; %zu with no significant "
                  "change.\n\n",
                  steps, latest_only ? "to each series' newest commit" : "over the history", same);
    if (l->series_git || l->series_measured) {
        sb_buf_puts(out, "Commit order: ");
        if (l->series_git)
            sb_buf_printf(out, "git ancestry (solbook commits import) for %zu series", l->series_git);
        if (l->series_git && l->series_measured)
            sb_buf_puts(out, "; ");
        if (l->series_measured)
            sb_buf_printf(out,
                          "first measured for %zu series, whose commits the commits table "
                          "does not all know",
                          l->series_measured);
        sb_buf_puts(out, ". Where a commit step holds several cases, p is adjusted by "
                         "Benjamini-Hochberg over them (false discovery rate alpha).\n\n");
    }
    cross_card_md(l, out);
    size_t tested, drift;
    sb_rg_drift_share(l, &tested, &drift);
    sb_buf_printf(out, "### Regressions of the project's kernels (%zu", sb_rg_count_regressions(l));
    if (!latest_only)
        sb_buf_printf(out, " at the newest commit; %zu in the history",
                      md_count(l, want_code_regression, 0));
    sb_buf_puts(out, ")\n\n");
    md_table(l, o, want_code_regression, latest_only, COL_CONFIRM, out);
    sb_buf_printf(out, "### Improvements of the project's kernels (%zu)\n\n",
                  md_count(l, want_code_improvement, latest_only));
    md_table(l, o, want_code_improvement, latest_only, 0, out);
    sb_buf_printf(out,
                  "### Environment or noise drift, not counted (%zu)\n\nOther providers' steps "
                  "under an unchanged protocol and environment: code this project does not "
                  "change. Over the history %zu of %zu tested steps (%.1f%%) pass their "
                  "threshold.\n\n",
                  md_count(l, want_drift, latest_only), drift, tested,
                  tested ? 100.0 * (double)drift / (double)tested : 0.0);
    md_table(l, o, want_drift, latest_only, 0, out);
    sb_buf_printf(out,
                  "### Protocol or environment changes, not counted (%zu of %zu steps)\n\nThe "
                  "first commit of a series against the commit before it under another protocol "
                  "or environment; steps past their threshold are listed.\n\n",
                  md_count(l, want_change, latest_only), md_count(l, want_any_change, latest_only));
    md_table(l, o, want_change, latest_only, COL_CHANGED, out);
    sb_buf_printf(out, "### Not tested (%zu)\n\n%zu series measured at one commit only (no "
                       "comparison); the steps without samples or with too few:\n\n",
                  md_count(l, want_untested, latest_only) + md_count(l, want_single, latest_only),
                  md_count(l, want_single, latest_only));
    md_table(l, o, want_untested, latest_only, 0, out);
    if (l->searched_cp && !latest_only)
        md_changepoints(l, o, out);
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

int sb_rg_render_json(const sb_rg_list *l, const sb_rg_opts *o, int latest_only, sb_buf *out,
                      sb_error *err)
{
    json_t *rows = NULL;
    json_t *root = sb_report_json_new("op-level microbenchmark", "cases", &rows);
    if (!root)
        return sb_error_set(err, NULL, NULL, "out of memory");
    json_object_set_new(root, "alpha", json_real(o->alpha));
    json_object_set_new(root, "min_effect", json_real(o->min_effect));
    json_object_set_new(root, "regressions",
                        json_integer((json_int_t)sb_rg_count_regressions(l)));
    sb_buf def = SB_BUF_INIT;
    sb_rg_definition(l, o, &def);
    json_object_set_new(root, "definition", json_string(sb_buf_str(&def)));
    sb_buf_free(&def);
    size_t tested, drift;
    sb_rg_drift_share(l, &tested, &drift);
    json_t *dj = json_object();
    json_object_set_new(dj, "tested", json_integer((json_int_t)tested));
    json_object_set_new(dj, "flagged", json_integer((json_int_t)drift));
    json_object_set_new(root, "drift", dj);
    json_t *noise = json_array();
    for (size_t i = 0; i < l->nnoise; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "sku", json_string(l->noise[i].sku));
        json_object_set_new(e, "hold_let_go", json_boolean(l->noise[i].let_go));
        json_object_set_new(e, "threshold", json_real(l->noise[i].threshold));
        json_object_set_new(e, "aa_comparisons", json_integer((json_int_t)l->noise[i].comparisons));
        json_array_append_new(noise, e);
    }
    json_object_set_new(root, "cross_card", noise);
    for (size_t i = 0; i < l->n; i++) {
        const sb_rg_row *r = &l->v[i];
        if (!shown(r, latest_only))
            continue;
        const sb_result *n = r->new_run;
        json_t *j = json_object();
        json_object_set_new(j, "case_key", json_string(n->case_key));
        json_object_set_new(j, "op", json_string(n->op));
        json_object_set_new(j, "mode", json_string(n->mode));
        json_object_set_new(j, "dtype", json_string(n->dtype));
        json_object_set_new(j, "shape", json_string(n->shape_key));
        json_object_set_new(j, "provider", json_string(n->provider));
        json_object_set_new(j, "sku", json_string(n->sku));
        json_object_set_new(j, "verdict", json_string(sb_rg_verdict_name(r->verdict)));
        json_object_set_new(j, "cause", json_string(sb_rg_cause_name(r->cause)));
        json_object_set_new(j, "counted", json_boolean(sb_rg_counts(r)));
        json_object_set_new(j, "new_commit", json_string(n->git_sha));
        json_object_set_new(j, "new_run", json_integer(n->run_id));
        json_object_set_new(j, "new_median_ms", num_or_null(n->median_ms));
        json_object_set_new(j, "old_commit",
                            r->old_run ? json_string(r->old_run->git_sha) : json_null());
        json_object_set_new(j, "old_run",
                            r->old_run ? json_integer(r->old_run->run_id) : json_null());
        json_object_set_new(j, "old_median_ms",
                            num_or_null(r->old_run ? r->old_run->median_ms : NAN));
        json_object_set_new(j, "p", num_or_null(r->p));
        json_object_set_new(j, "p_adjusted", num_or_null(r->p_adjusted));
        json_object_set_new(j, "rel_change", num_or_null(r->rel_change));
        json_object_set_new(j, "threshold", num_or_null(r->threshold > 0 ? r->threshold : NAN));
        json_object_set_new(j, "threshold_from", json_string(sb_rg_threshold_from_name(r->threshold_from)));
        json_object_set_new(j, "same_card", r->same_card < 0 ? json_null() : json_boolean(r->same_card));
        json_object_set_new(j, "range_commits",
                            r->range_commits < 0 ? json_null() : json_integer(r->range_commits));
        json_object_set_new(j, "changed", json_string(r->changed));
        json_object_set_new(j, "confirm", json_string(sb_rg_confirm_name(r->confirm)));
        json_object_set_new(j, "samples_old", json_integer((json_int_t)r->n_old));
        json_object_set_new(j, "samples_new", json_integer((json_int_t)r->n_new));
        json_object_set_new(j, "latest", json_boolean(r->latest));
        json_array_append_new(rows, j);
    }
    if (l->series_git || l->series_measured) {
        json_t *ord = json_object();
        json_object_set_new(ord, "git", json_integer((json_int_t)l->series_git));
        json_object_set_new(ord, "first_measured", json_integer((json_int_t)l->series_measured));
        json_object_set_new(root, "commit_order", ord);
    }
    if (l->searched_cp && !latest_only) {
        json_t *cps = json_array();
        for (size_t i = 0; i < l->ncp; i++) {
            const sb_rg_changepoint *c = &l->cp[i];
            const sb_result *n = c->first_after;
            json_t *j = json_object();
            json_object_set_new(j, "case_key", json_string(n->case_key));
            json_object_set_new(j, "provider", json_string(n->provider));
            json_object_set_new(j, "sku", json_string(n->sku));
            json_object_set_new(j, "last_commit_before", json_string(c->last_before->git_sha));
            json_object_set_new(j, "last_run_before", json_integer(c->last_before->run_id));
            json_object_set_new(j, "first_commit_after", json_string(n->git_sha));
            json_object_set_new(j, "first_run_after", json_integer(n->run_id));
            json_object_set_new(j, "commits_before", json_integer((json_int_t)c->commits_before));
            json_object_set_new(j, "commits_after", json_integer((json_int_t)c->commits_after));
            json_object_set_new(j, "median_ms_before", num_or_null(c->before));
            json_object_set_new(j, "median_ms_after", num_or_null(c->after));
            json_object_set_new(j, "shift", num_or_null(c->shift));
            json_object_set_new(j, "p", num_or_null(c->p));
            json_array_append_new(cps, j);
        }
        json_object_set_new(root, "change_points", cps);
    }
    return sb_report_json_finish(root, out, err);
}
