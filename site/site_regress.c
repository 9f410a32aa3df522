/* site_regress.c - regressions.html: this week's and the newest commit's
 * regressions and improvements (report/regress.h's history walk, every
 * commit against the one before), the project's kernels first and the
 * other providers (third-party drift) apart, each row linked to its two
 * runs and its history. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geomean.h"
#include "isoweek.h"
#include "site_internal.h"

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
    const char *when = r->latest && n->finished_epoch >= week_from ? "this week, newest commit"
                       : r->latest                                ? "newest commit"
                                                                  : "this week";
    sb_tpl_set_str(j, "when", when);
    return j;
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
    json_t *d = json_object(), *own = json_array(), *others = json_array();
    sb_tpl_set_str(d, "week", week);
    sb_tpl_set_str(d, "project", SB_PROJECT_PROVIDER);
    json_object_set_new(d, "own", own);
    json_object_set_new(d, "others", others);
    size_t own_bad = 0, own_week_bad = 0, own_good = 0, other_bad = 0, other_good = 0;
    /* Bounded so that the page stays under its size budget at any fleet
     * size: at most twice page_rows regressions of the project's kernels
     * (newest first), page_rows improvements of them and page_rows rows of
     * the others (regressions first); the history pages have the rest. */
    size_t own_shown_bad = 0, own_shown_good = 0, others_shown = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_rg_row *r = rows[i];
        int mine = sb_rg_own_provider(r->new_run->provider);
        int bad = is_bad(r->verdict), in_week = r->new_run->finished_epoch >= from;
        if (mine && (bad ? own_shown_bad++ < 2 * c->page_rows : own_shown_good++ < c->page_rows))
            json_array_append_new(own, row_json(c, r, from));
        else if (!mine && others_shown++ < c->page_rows)
            json_array_append_new(others, row_json(c, r, from));
        if (mine) {
            own_bad += bad;
            own_week_bad += bad && in_week;
            own_good += !bad;
        } else {
            other_bad += bad;
            other_good += !bad;
        }
    }
    json_object_set_new(d, "own_left", json_integer((json_int_t)(own_bad + own_good - json_array_size(own))));
    json_object_set_new(d, "others_left",
                        json_integer((json_int_t)(other_bad + other_good - json_array_size(others))));
    json_object_set_new(d, "own_bad", json_integer((json_int_t)own_bad));
    json_object_set_new(d, "own_week_bad", json_integer((json_int_t)own_week_bad));
    json_object_set_new(d, "own_good", json_integer((json_int_t)own_good));
    json_object_set_new(d, "other_bad", json_integer((json_int_t)other_bad));
    json_object_set_new(d, "other_good", json_integer((json_int_t)other_good));
    /* The regressions every output counts (report/regress.h,
     * sb_rg_count_regressions), with the definition they all state. */
    json_t *wow = json_array();
    json_object_set_new(d, "wow", wow);
    size_t wow_bad = sb_rg_count_regressions(&c->rg), wow_own_bad = 0;
    const sb_rg_row **v = malloc((c->rg.n + 1) * sizeof *v);
    if (!v) {
        free(rows);
        json_decref(d);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < c->rg.n; i++)
        if (sb_rg_counts(&c->rg.v[i]))
            v[wow_own_bad++] = &c->rg.v[i];
    if (wow_own_bad)
        qsort(v, wow_own_bad, sizeof *v, cmp_rows);
    for (size_t i = 0; i < wow_own_bad; i++)
        json_array_append_new(wow, row_json(c, v[i], from));
    free(v);
    sb_buf def = SB_BUF_INIT;
    sb_rg_definition(&c->rg, &c->rg_opts, &def);
    sb_tpl_set_str(d, "definition", sb_buf_str(&def));
    sb_buf_free(&def);
    json_object_set_new(d, "wow_bad", json_integer((json_int_t)wow_bad));
    json_object_set_new(d, "wow_own_bad", json_integer((json_int_t)wow_own_bad));
    json_object_set_new(d, "alpha", json_real(c->rg_opts.alpha));
    json_object_set_new(d, "min_effect", json_integer((json_int_t)(c->rg_opts.min_effect * 100 + 0.5)));
    free(rows);
    sb_buf b = SB_BUF_INIT;
    int rc = site_render("regressions.html.tmpl", d, &b, err);
    json_decref(d);
    if (rc == SB_OK)
        rc = site_page(c, "regressions.html", 0, "regressions", "regressions and improvements", &b, err);
    sb_buf_free(&b);
    return rc;
}
