/* site_regress.c - regressions.html: this week's and the newest commit's
 * regressions and improvements (report/regress.h's history walk, every
 * commit against the one before). The project's kernels' own changes come
 * first, their regressions split by what the paired re-measure says
 * (confirmed, unconfirmed, refuted); other providers' steps (third-party
 * drift) and steps across an environment or protocol change are apart.
 * Each row links its two runs, its commits and its history; the count at
 * the top is the one every output gives (sb_rg_count_regressions). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geomean.h"
#include "isoweek.h"
#include "markdown.h"
#include "regress_render.h"
#include "site_parts.h"

static int is_change(sb_rg_verdict v)
{
    return v == SB_RG_REGRESSION || v == SB_RG_NOW_FAILING || v == SB_RG_IMPROVEMENT;
}

static int is_bad(sb_rg_verdict v)
{
    return v == SB_RG_REGRESSION || v == SB_RG_NOW_FAILING;
}

/* Regressions before improvements, newest first, then op, mode, dtype,
 * params, shape by its numbers, provider, SKU. */
static int cmp_rows(const void *x, const void *y)
{
    const sb_rg_row *a = *(const sb_rg_row *const *)x, *b = *(const sb_rg_row *const *)y;
    if (is_bad(a->verdict) != is_bad(b->verdict))
        return is_bad(b->verdict) - is_bad(a->verdict);
    const sb_result *p = a->new_run, *q = b->new_run;
    if (p->finished_epoch != q->finished_epoch)
        return p->finished_epoch < q->finished_epoch ? 1 : -1;
    int k = strcmp(p->op, q->op);
    site_case cp = {p->mode, p->dtype, p->params_json, p->shape_key};
    site_case cq = {q->mode, q->dtype, q->params_json, q->shape_key};
    if (!k)
        k = site_case_cmp(&cp, &cq);
    if (!k)
        k = strcmp(p->provider, q->provider);
    if (!k)
        k = strcmp(p->sku, q->sku);
    if (!k)
        k = (p->run_id > q->run_id) - (p->run_id < q->run_id);
    return k;
}

static json_t *row_json(const site_ctx *c, const sb_rg_row *r, long long week_from)
{
    const sb_result *n = r->new_run, *o = r->old_run;
    json_t *j = json_object();
    char buf[512];
    sb_tpl_set_str(j, "verdict", sb_rg_verdict_name(r->verdict));
    sb_tpl_set_str(j, "cls", is_bad(r->verdict) ? "failed" : "passed");
    sb_tpl_set_str(j, "mark", is_bad(r->verdict) ? "\xe2\x96\xb2" : "\xe2\x96\xbd");
    sb_tpl_set_str(j, "op", n->op);
    sb_tpl_set_str(j, "mode", n->mode);
    sb_tpl_set_str(j, "dtype", n->dtype);
    sb_tpl_set_str(j, "shape", n->shape_key);
    sb_buf t = SB_BUF_INIT;
    site_params_text(n->params_json, &t);
    sb_tpl_set_str(j, "params", sb_buf_str(&t));
    sb_buf_free(&t);
    sb_tpl_set_str(j, "provider", n->provider);
    sb_tpl_set_str(j, "sku", n->sku);
    if (r->rel_change == r->rel_change)
        snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * r->rel_change);
    else
        snprintf(buf, sizeof buf, "\xe2\x80\x93");
    sb_tpl_set_str(j, "change", buf);
    if (r->p_adjusted == r->p_adjusted)
        snprintf(buf, sizeof buf, "%.2g", r->p_adjusted);
    else
        snprintf(buf, sizeof buf, "\xe2\x80\x93");
    sb_tpl_set_str(j, "p", buf);
    snprintf(buf, sizeof buf, "%.10s", o && o->git_sha ? o->git_sha : "");
    sb_tpl_set_str(j, "old_sha", buf);
    snprintf(buf, sizeof buf, "%.10s", n->git_sha ? n->git_sha : "");
    sb_tpl_set_str(j, "new_sha", buf);
    /* the commits' addresses, "" without a repository URL */
    site_commit_href(c, o && o->git_sha ? o->git_sha : "", buf, sizeof buf);
    sb_tpl_set_str(j, "old_sha_href", buf);
    site_commit_href(c, n->git_sha ? n->git_sha : "", buf, sizeof buf);
    sb_tpl_set_str(j, "new_sha_href", buf);
    snprintf(buf, sizeof buf, "%.10s", n->finished_at ? n->finished_at : "");
    sb_tpl_set_str(j, "day", buf);
    json_object_set_new(j, "new_run", json_integer(n->run_id));
    site_run_path(buf, sizeof buf, n->run_id);
    sb_tpl_set_str(j, "new_href", buf);
    if (o) {
        json_object_set_new(j, "old_run", json_integer(o->run_id));
        site_run_path(buf, sizeof buf, o->run_id);
        sb_tpl_set_str(j, "old_href", buf);
    } else {
        json_object_set_new(j, "old_run", json_null());
    }
    site_history_path(buf, sizeof buf, n->case_key, n->sku, 1);
    sb_tpl_set_str(j, "history_href", buf);
    if (r->threshold > 0)
        snprintf(buf, sizeof buf, "%.1f%%", 100.0 * r->threshold);
    else
        snprintf(buf, sizeof buf, "\xe2\x80\x93");
    sb_tpl_set_str(j, "threshold", buf);
    sb_tpl_set_str(j, "cause", sb_rg_cause_name(r->cause));
    sb_tpl_set_str(j, "changed", r->changed);
    json_object_set_new(j, "counted", json_boolean(sb_rg_counts(r)));
    /* the paired re-measure: its verdict, change and runs */
    sb_tpl_set_str(j, "confirm", sb_rg_confirm_name(r->confirm));
    if (r->confirm_new_run >= 0) {
        snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * r->confirm_change);
        sb_tpl_set_str(j, "confirm_change", buf);
        json_object_set_new(j, "confirm_old_run", json_integer(r->confirm_old_run));
        json_object_set_new(j, "confirm_new_run", json_integer(r->confirm_new_run));
        site_run_path(buf, sizeof buf, r->confirm_old_run);
        sb_tpl_set_str(j, "confirm_old_href", buf);
        site_run_path(buf, sizeof buf, r->confirm_new_run);
        sb_tpl_set_str(j, "confirm_new_href", buf);
    } else {
        json_object_set_new(j, "confirm_new_run", json_null());
    }
    const char *when = r->latest && n->finished_epoch >= week_from ? "this week, newest commit"
                       : r->latest                                ? "newest commit"
                                                                  : "this week";
    sb_tpl_set_str(j, "when", when);
    return j;
}

/* The page's groups, in the order they are shown. */
enum {
    G_CONFIRMED = 0, /* the project's code: regressions a paired re-measure confirms */
    G_UNCONFIRMED,   /* ... that no pair re-measured (or too few samples), and now failing */
    G_REFUTED,       /* ... that the paired re-measure shows are none */
    G_IMPROVED,      /* the project's code: improvements */
    G_DRIFT,         /* other providers within a series: third-party drift */
    G_SETUP,         /* across an environment or protocol change, any provider */
    G_COUNT
};
static const char *const GROUP_KEY[G_COUNT] = {"confirmed", "unconfirmed", "refuted",
                                               "improved", "drift", "setup"};

static int group_of(const sb_rg_row *r)
{
    if (r->cause == SB_RG_DRIFT)
        return G_DRIFT;
    if (r->cause != SB_RG_CODE)
        return G_SETUP;
    if (!is_bad(r->verdict))
        return G_IMPROVED;
    return r->confirm == SB_RG_CONFIRMED ? G_CONFIRMED
           : r->confirm == SB_RG_REFUTED ? G_REFUTED
                                         : G_UNCONFIRMED;
}

int site_build_regressions(site_ctx *c, sb_error *err)
{
    /* the newest ISO week with a result run */
    long long newest = LLONG_MIN;
    for (size_t i = 0; i < c->set.n; i++)
        if (c->set.v[i].finished_epoch > newest)
            newest = c->set.v[i].finished_epoch;
    long long from = LLONG_MAX, to = LLONG_MAX;
    char week[16] = "";
    if (newest != LLONG_MIN) {
        int y, w;
        sb_isoweek_of(newest, &y, &w);
        sb_isoweek_range(y, w, &from, &to);
        sb_isoweek_format(y, w, week, sizeof week);
    }
    const sb_rg_row **rows = malloc((c->rg.n + 1) * sizeof *rows);
    if (!rows)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < c->rg.n; i++) {
        const sb_rg_row *r = &c->rg.v[i];
        if (!is_change(r->verdict))
            continue;
        long long e = r->new_run->finished_epoch;
        if (r->latest || (e >= from && e < to))
            rows[n++] = r;
    }
    if (n)
        qsort(rows, n, sizeof *rows, cmp_rows);
    json_t *d = json_object(), *list = json_array(), *gobj[G_COUNT], *groups[G_COUNT];
    sb_tpl_set_str(d, "week", week);
    sb_tpl_set_str(d, "project", SB_PROJECT_PROVIDER);
    json_object_set_new(d, "groups", list);
    char key[32];
    for (int g = 0; g < G_COUNT; g++) {
        /* the template words each group by its flag is_KEY */
        gobj[g] = json_object();
        groups[g] = json_array();
        for (int k = 0; k < G_COUNT; k++) {
            snprintf(key, sizeof key, "is_%s", GROUP_KEY[k]);
            json_object_set_new(gobj[g], key, json_boolean(k == g));
        }
        sb_tpl_set_str(gobj[g], "id", GROUP_KEY[g]);
        json_object_set_new(gobj[g], "own", json_boolean(g <= G_REFUTED));
        json_object_set_new(gobj[g], "setup", json_boolean(g == G_SETUP));
        json_object_set_new(gobj[g], "rows", groups[g]);
        json_array_append_new(list, gobj[g]);
    }
    /* Bounded so that the page stays under its size budget at any fleet
     * size: at most twice page_rows rows of each group of the project's
     * regressions (newest first) and page_rows of each other group
     * (regressions first); the history pages have the rest. */
    size_t total[G_COUNT] = {0}, bad[G_COUNT] = {0}, own_week_bad = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_rg_row *r = rows[i];
        int g = group_of(r);
        size_t cap = g <= G_REFUTED ? 2 * c->page_rows : c->page_rows;
        if (total[g]++ < cap)
            json_array_append_new(groups[g], row_json(c, r, from));
        bad[g] += is_bad(r->verdict);
        own_week_bad += g <= G_REFUTED && r->new_run->finished_epoch >= from;
    }
    for (int g = 0; g < G_COUNT; g++) {
        json_object_set_new(gobj[g], "n", json_integer((json_int_t)total[g]));
        json_object_set_new(gobj[g], "left",
                            json_integer((json_int_t)(total[g] - json_array_size(groups[g]))));
        /* the counts again at the top, for the summary */
        snprintf(key, sizeof key, "%s_bad", GROUP_KEY[g]);
        json_object_set_new(d, key, json_integer((json_int_t)bad[g]));
        snprintf(key, sizeof key, "%s_good", GROUP_KEY[g]);
        json_object_set_new(d, key, json_integer((json_int_t)(total[g] - bad[g])));
    }
    json_object_set_new(d, "own_week_bad", json_integer((json_int_t)own_week_bad));
    /* The regressions every output counts (report/regress.h,
     * sb_rg_count_regressions), with the definition they all state, and
     * how many of them a paired re-measure confirms. */
    size_t counted[G_COUNT] = {0};
    for (size_t i = 0; i < c->rg.n; i++)
        if (sb_rg_counts(&c->rg.v[i]))
            counted[group_of(&c->rg.v[i])]++;
    json_object_set_new(d, "wow_bad", json_integer((json_int_t)sb_rg_count_regressions(&c->rg)));
    json_object_set_new(d, "wow_confirmed", json_integer((json_int_t)counted[G_CONFIRMED]));
    json_object_set_new(d, "wow_unconfirmed", json_integer((json_int_t)counted[G_UNCONFIRMED]));
    json_object_set_new(d, "wow_refuted", json_integer((json_int_t)counted[G_REFUTED]));
    sb_buf def = SB_BUF_INIT;
    sb_rg_definition(&c->rg, &c->rg_opts, &def);
    /* a Markdown paragraph, as the weekly writeup states it */
    char *def_html = NULL;
    int rc = sb_markdown_to_html(sb_buf_str(&def), def.len, &def_html, err);
    sb_buf_free(&def);
    if (rc != SB_OK) {
        free(rows);
        json_decref(d);
        return SB_ERR;
    }
    sb_tpl_set_str(d, "definition", def_html);
    free(def_html);
    json_object_set_new(d, "alpha", json_real(c->rg_opts.alpha));
    json_object_set_new(d, "min_effect", json_integer((json_int_t)(c->rg_opts.min_effect * 100 + 0.5)));
    sb_tpl_set_str(d, "confirm_suite", SB_RG_CONFIRM_SUITE);
    free(rows);
    sb_buf b = SB_BUF_INIT;
    rc = site_render("regressions.html.tmpl", d, &b, err);
    json_decref(d);
    if (rc == SB_OK)
        rc = site_page(c, "regressions.html", 0, "regressions", "regressions and improvements", &b, err);
    sb_buf_free(&b);
    return rc;
}
