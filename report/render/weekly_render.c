/* weekly_render.c - the weekly writeup's files (weekly_render.h). */
#include "markdown.h"
#include "weekly_render.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "casetable.h"
#include "claims.h"
#include "file_set.h"
#include "json_file.h"
#include "sessions.h"
#include "crossarch.h"
#include "crossarch_render.h"
#include "encode.h"
#include "gate.h"
#include "geomean.h"
#include "geomean_render.h"
#include "isoweek.h"
#include "note.h"
#include "plots.h"
#include "regress_render.h"
#include "repro.h"
#include "plausible.h"
#include "plausible_render.h"
#include "results.h"
#include "stats.h"
#include "template.h"
#include "training_render.h"
#include "weekly.h"

static int str_in(const char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return 1;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts the n names in v and drops repeats; returns how many are left. */
static size_t sorted_names(const char **v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_name);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i], v[k - 1]))
            v[k++] = v[i];
    return k;
}

static int sorted_has(const char **v, size_t n, const char *s)
{
    return n && bsearch(&s, v, n, sizeof *v, cmp_name) != NULL;
}

/* Appends v to the ", "-list in b unless it is there. */
static void add_distinct(sb_buf *b, const char *v)
{
    if (!v || !*v)
        return;
    const char *t = sb_buf_str(b);
    size_t lv = strlen(v);
    for (const char *p = t; (p = strstr(p, v)) != NULL; p++)
        if ((p == t || p[-1] == ' ') && (p[lv] == ',' || p[lv] == '\0'))
            return;
    sb_buf_printf(b, "%s%s", b->len ? ", " : "", v);
}

/* One environment row per SKU: GPU, drivers, CUDA, cuBLAS (where recorded),
 * commits, packages, runs. */
static json_t *env_rows(const sb_result_set *set, const sb_training_set *tr)
{
    json_t *rows = json_array();
    const char **sk = calloc(set->n + tr->n + 1, sizeof *sk), **ar = calloc(set->n + tr->n + 1, sizeof *ar);
    size_t nsk = 0;
    if (!sk || !ar) {
        free(sk);
        free(ar);
        return rows;
    }
    for (size_t i = 0; i < set->n + tr->n; i++) {
        const char *s = i < set->n ? set->v[i].sku : tr->v[i - set->n].sku;
        const char *a = i < set->n ? set->v[i].arch : tr->v[i - set->n].arch;
        if (!str_in(sk, nsk, s)) {
            sk[nsk] = s;
            ar[nsk++] = a;
        }
    }
    sb_sort_skus(sk, ar, nsk);
    for (size_t k = 0; k < nsk; k++) {
        sb_buf gpu = SB_BUF_INIT, drv = SB_BUF_INIT, cuda = SB_BUF_INIT, cublas = SB_BUF_INIT,
               sha = SB_BUF_INIT, pkg = SB_BUF_INIT;
        size_t runs = 0;
        for (size_t i = 0; i < set->n + tr->n; i++) {
            const char *s, *g, *d, *c, *cb = NULL, *h, *pj = NULL;
            if (i < set->n) {
                const sb_result *r = &set->v[i];
                s = r->sku, g = r->gpu_name, d = r->driver, c = r->cuda, cb = r->cublas,
                h = r->git_sha, pj = r->packages_json;
            } else {
                const sb_training *t = &tr->v[i - set->n];
                s = t->sku, g = t->gpu_name, d = t->driver, c = t->cuda, h = t->git_sha;
            }
            if (strcmp(s, sk[k]))
                continue;
            runs++;
            add_distinct(&gpu, g);
            add_distinct(&drv, d);
            add_distinct(&cuda, c);
            if (cb && strcmp(cb, "unknown"))
                add_distinct(&cublas, cb);
            char short_sha[16];
            snprintf(short_sha, sizeof short_sha, "%.7s", h);
            add_distinct(&sha, short_sha);
            sb_packages_list(pj, &pkg);
        }
        size_t ncommits = 1;
        for (const char *p = sb_buf_str(&sha); *p; p++)
            ncommits += *p == ',';
        json_t *row = json_object();
        sb_tpl_set_str(row, "sku", sk[k]);
        sb_tpl_set_str(row, "arch", ar[k]);
        sb_tpl_set_str(row, "gpu", sb_buf_str(&gpu));
        sb_tpl_set_str(row, "driver", drv.len ? sb_buf_str(&drv) : "unknown");
        sb_tpl_set_str(row, "cuda", cuda.len ? sb_buf_str(&cuda) : "unknown");
        sb_tpl_set_str(row, "cublas", cublas.len ? sb_buf_str(&cublas) : "-");
        sb_tpl_set_str(row, "packages", pkg.len ? sb_buf_str(&pkg) : "-");
        json_object_set_new(row, "commits", json_integer((json_int_t)ncommits));
        /* a long commit list goes to the appendix */
        sb_tpl_set_str(row, "commit_list", sb_buf_str(&sha));
        json_object_set_new(row, "runs", json_integer((json_int_t)runs));
        json_array_append_new(rows, row);
        sb_buf_free(&gpu);
        sb_buf_free(&drv);
        sb_buf_free(&cuda);
        sb_buf_free(&cublas);
        sb_buf_free(&sha);
        sb_buf_free(&pkg);
    }
    free(sk);
    free(ar);
    return rows;
}

typedef struct opgroup {
    const char *op, *mode, *dtype, *suite;
} opgroup;

static size_t count_lines(const sb_buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += sb_buf_str(b)[i] == '\n';
    return n;
}

/* One change since the previous week for the list at the top. */
static json_t *change_item(const sb_rg_row *r, const sb_rg_opts *o)
{
    json_t *c = json_object();
    const sb_result *n = r->new_run;
    sb_buf label = SB_BUF_INIT;
    sb_case_label(n, &label);
    sb_tpl_set_str(c, "op", n->op);
    sb_tpl_set_str(c, "mode", n->mode);
    sb_tpl_set_str(c, "dtype", n->dtype);
    sb_tpl_set_str(c, "case", sb_buf_str(&label));
    sb_tpl_set_str(c, "provider", n->provider);
    sb_tpl_set_str(c, "sku", n->sku);
    sb_tpl_set_num(c, "change", "%+.1f", 100.0 * r->rel_change);
    json_object_set_new(c, "old_run", json_integer(r->old_run ? r->old_run->run_id : -1));
    json_object_set_new(c, "new_run", json_integer(n->run_id));
    sb_buf_reset(&label);
    if (r->old_run)
        sb_rg_range_md(r, o, &label);
    sb_tpl_set_str(c, "range", sb_buf_str(&label));
    sb_tpl_set_str(c, "confirm", sb_rg_confirm_name(r->confirm));
    sb_buf_free(&label);
    return c;
}

static int cmp_change(const void *a, const void *b)
{
    double x = fabs((*(const sb_rg_row *const *)a)->rel_change);
    double y = fabs((*(const sb_rg_row *const *)b)->rel_change);
    return (x < y) - (x > y);
}

/* The opening table: per op x mode x dtype and SKU, the project's kernels
 * over each baseline in the newest session that pairs them (the other
 * sessions' figures are in the appendix), one cell a baseline, the first
 * max_rows rows and a line saying how many more the appendix holds;
 * returns the rows of the whole table. */
static size_t summary_table(const sb_session_headlines *h, size_t max_rows, sb_buf *out)
{
    const char *bases[8];
    size_t nb = 0;
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (strcmp(x->provider, SB_WEEKLY_SUBJECT) || str_in(bases, nb, x->baseline) ||
            nb == sizeof bases / sizeof bases[0])
            continue;
        size_t k = nb++;
        for (; k > 0 && sb_headline_baseline_rank(bases[k - 1]) > x->baseline_rank; k--)
            bases[k] = bases[k - 1];
        bases[k] = x->baseline;
    }
    if (nb == 0)
        return 0;
    sb_buf_puts(out, "| op | mode | dtype | SKU |");
    for (size_t b = 0; b < nb; b++) {
        sb_buf_puts(out, " over ");
        sb_enc_md_text(out, bases[b], SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " |");
    }
    sb_buf_puts(out, " session (shapes) |\n| --- | --- | --- | --- |");
    for (size_t b = 0; b < nb; b++)
        sb_buf_puts(out, " ---: |");
    sb_buf_puts(out, " --- |\n");
    size_t rows = 0;
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *g = &h->v[i];
        if (strcmp(g->provider, SB_WEEKLY_SUBJECT))
            continue;
        int first = 1;
        for (size_t j = 0; j < i && first; j++) {
            const sb_session_headline *y = &h->v[j];
            first = strcmp(y->provider, g->provider) || strcmp(y->op, g->op) || strcmp(y->mode, g->mode) ||
                    strcmp(y->dtype, g->dtype) || strcmp(y->sku, g->sku);
        }
        if (!first)
            continue;
        if (rows++ >= max_rows)
            continue;
        const char *cells[] = {g->op, g->mode, g->dtype, g->sku};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 4; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        sb_buf sessions = SB_BUF_INIT;
        for (size_t b = 0; b < nb; b++) {
            const sb_session_headline *x =
                sb_session_headline_find(h, g->op, g->mode, g->dtype, g->sku, g->provider, bases[b]);
            if (!x) {
                sb_buf_puts(out, " - |");
                continue;
            }
            sb_buf_printf(out, " %.3f [%.3f-%.3f] |", x->geomean.ratio, x->geomean.lo, x->geomean.hi);
            char one[64];
            snprintf(one, sizeof one, "%.*s (%zu)", SB_SESSION_SHORT, x->session_id, x->count);
            add_distinct(&sessions, one);
        }
        sb_buf_printf(out, " %s |\n", sb_buf_str(&sessions));
        sb_buf_free(&sessions);
    }
    sb_buf_puts(out, "\n");
    if (rows > max_rows)
        sb_buf_printf(out, "%zu more row%s of this table, past the writeup's limits, are in the appendix "
                           "(Geomean speedups).\n\n",
                      rows - max_rows, rows - max_rows == 1 ? "" : "s");
    return rows;
}

/* What the week measured on each SKU, for the opening lines: its runs,
 * its measuring sessions and the distinct GPUs they ran on (from the
 * session runs h read), e.g. "h100-sxm5-80gb (NVIDIA H100 80GB HBM3):
 * 312 runs, 9 measuring sessions on 4 GPUs"), one Markdown string a
 * SKU appended to items. */
static int measured_cards(const sb_result_set *week, const sb_session_headlines *h, json_t *items, size_t *nsessions)
{
    *nsessions = 0;
    size_t n = week->n, nsku = 0;
    const char **ids = calloc(n + 1, sizeof *ids), **sku = calloc(n + 1, sizeof *sku),
               **arch = calloc(n + 1, sizeof *arch), **gpus = calloc(h->runs.n + 1, sizeof *gpus);
    if (!ids || !sku || !arch || !gpus) {
        free(ids);
        free(sku);
        free(arch);
        free(gpus);
        return -1;
    }
    size_t nids = 0;
    for (size_t i = 0; i < n; i++) {
        if (week->v[i].session_id)
            ids[nids++] = week->v[i].session_id;
        if (!str_in(sku, nsku, week->v[i].sku)) {
            sku[nsku] = week->v[i].sku;
            arch[nsku++] = week->v[i].arch;
        }
    }
    nids = sorted_names(ids, nids);
    *nsessions = nids;
    sb_sort_skus(sku, arch, nsku);
    for (size_t k = 0; k < nsku; k++) {
        size_t runs = 0, sessions = 0, ngpu = 0;
        const char *gpu_name = "";
        for (size_t i = 0; i < n; i++)
            if (!strcmp(week->v[i].sku, sku[k])) {
                runs++;
                gpu_name = week->v[i].gpu_name;
            }
        for (size_t s = 0; s < nids; s++) {
            for (size_t i = 0; i < n; i++)
                if (week->v[i].session_id && !strcmp(week->v[i].session_id, ids[s]) &&
                    !strcmp(week->v[i].sku, sku[k])) {
                    sessions++;
                    break;
                }
        }
        for (size_t i = 0; i < h->runs.n; i++) {
            const sb_session_run *r = &h->runs.v[i];
            if (r->gpu_uuid && !strcmp(r->sku, sku[k]) && sorted_has(ids, nids, r->session_id))
                gpus[ngpu++] = r->gpu_uuid;
        }
        ngpu = sorted_names(gpus, ngpu);
        sb_buf one = SB_BUF_INIT;
        sb_enc_md_text(&one, sku[k], SB_TEXT_NAME_MAX);
        sb_buf_puts(&one, " (");
        sb_enc_md_text(&one, gpu_name, SB_TEXT_NAME_MAX);
        sb_buf_printf(&one, "): %zu run%s", runs, runs == 1 ? "" : "s");
        if (sessions)
            sb_buf_printf(&one, ", %zu measuring session%s on %zu GPU%s", sessions, sessions == 1 ? "" : "s", ngpu,
                          ngpu == 1 ? "" : "s");
        json_array_append_new(items, json_string_nocheck(sb_buf_str(&one)));
        sb_buf_free(&one);
    }
    free(ids);
    free(sku);
    free(arch);
    free(gpus);
    return 0;
}



#define TOP_CHANGES 5

/* ---- the first screen: what changed in the project's kernels ---------- */

/* Rows of changes the first screen shows over all cards; the appendix
 * has every op group. */
#define FIRST_SCREEN_ROWS 10




static const char *state_name(int st)
{
    return st == SB_WEEKLY_LEADS ? "leads" : st == SB_WEEKLY_TRAILS ? "trails" : st == SB_WEEKLY_LEVEL ? "level"
           : st == SB_WEEKLY_UNCLEAR ? "unclear" : "not paired";
}

/* The share of the ceiling that fits the op, over runs[0..n): the matmul
 * ceiling where the op model is a matmul, else the bandwidth ceiling of
 * its read/write mix (copy for row ops); runs whose bytes fit the L2 are
 * left out. "-" without a figure. Where a run is over 100%, *note gets
 * why, after label (else it is left empty), and the cell ends in
 * "(max N%" for note_add to close with the note's number. */
static int share_cell(const sb_weekly_snapshot *ws, const sb_result *const *runs, size_t nruns, const char *label, sb_buf *out,
                      sb_buf *note, sb_error *err)
{
    double *pct = calloc(nruns + 1, sizeof *pct), max = -1;
    size_t n = 0;
    int tensor = 0;
    char name[64] = "", why[sizeof ((sb_plaus_verdict *)0)->reason + 200] = "";
    if (!pct)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < nruns; i++) {
        const sb_plaus_verdict *vp = sb_weekly_snapshot_verdict(ws, runs[i]->run_id);
        if (!vp) {
            free(pct);
            return sb_error_set(err, NULL, NULL, "run %lld: its plausibility verdict was not read for the writeup",
                                runs[i]->run_id);
        }
        const sb_plaus_verdict v = *vp;
        double p = v.tensor ? v.pct_flop_ceiling : v.pct_ceiling;
        if (v.state == SB_PLAUS_CACHE_RESIDENT || !isfinite(p))
            continue;
        pct[n++] = p;
        tensor = v.tensor;
        snprintf(name, sizeof name, "%s", v.tensor ? v.flop_ceiling_name : v.ceiling_name);
        if (p > max) {
            max = p;
            if (v.tensor && v.state != SB_PLAUS_IMPLAUSIBLE)
                snprintf(why, sizeof why,
                         "%.1f TFLOP/s against %s %.1f TFLOP/s, within the %.0f%% margin the plausibility "
                         "check allows a ceiling",
                         v.tflops, v.flop_ceiling_name, v.flop_ceiling_tflops, 100.0 * SB_PLAUS_MARGIN);
            else if (v.state == SB_PLAUS_OK)
                snprintf(why, sizeof why,
                         "%s; a run may pass a measured ceiling, itself one calibration's measurement, by up "
                         "to the %.0f%% margin the plausibility check allows",
                         v.reason, 100.0 * SB_PLAUS_MARGIN);
            else
                snprintf(why, sizeof why, "%s", v.reason);
        }
    }
    sb_buf_reset(note);
    if (n == 0) {
        sb_buf_puts(out, "-");
        free(pct);
        return SB_OK;
    }
    if (tensor)
        sb_buf_printf(out, "%.0f%% of matmul (%s)", sb_median(pct, n), name);
    else
        sb_buf_printf(out, "%.0f%% of %s", sb_median(pct, n), name);
    free(pct);
    if (max > 100.0) {
        sb_buf_printf(note, "%s at %.1f%%: %s", label, max, why);
        sb_buf_printf(out, " (max %.1f%%", max);
    }
    return SB_OK;
}

/* share_cell over fused's passing runs of x's session. */
static int ceiling_cell(const sb_weekly_snapshot *ws, const sb_result_set *week, const sb_session_headline *x, sb_buf *out,
                        sb_buf *note, sb_error *err)
{
    const sb_result **runs = calloc(week->n + 1, sizeof *runs);
    size_t n = 0;
    if (!runs)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < week->n; i++) {
        const sb_result *r = &week->v[i];
        if (r->passing && r->session_id && !strcmp(r->session_id, x->session_id) &&
            !strcmp(r->provider, SB_PROJECT_PROVIDER) && !strcmp(r->op, x->op) && !strcmp(r->mode, x->mode) &&
            !strcmp(r->dtype, x->dtype) && !strcmp(r->sku, x->sku))
            runs[n++] = r;
    }
    char label[256];
    snprintf(label, sizeof label, "%s %s %s", x->op, x->mode, x->dtype);
    int rc = share_cell(ws, runs, n, label, out, note, err);
    free(runs);
    return rc;
}

/* Closes a ceiling cell with an over-100% note: numbered in notes. */
static void note_add(json_t *notes, const sb_buf *note, sb_buf *cell)
{
    if (!note->len)
        return;
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)json_array_size(notes) + 1));
    sb_tpl_set_str(o, "text", sb_buf_str(note));
    sb_buf_printf(cell, ", note %zu)", json_array_size(notes) + 1);
    json_array_append_new(notes, o);
}

/* One row of a standing table. */
static json_t *standing_row(const sb_session_headline *x, const char *change, const sb_weekly_standing *before,
                            const char *ceiling)
{
    json_t *row = json_object();
    char buf[160];
    sb_tpl_set_str(row, "change", change);
    sb_tpl_set_str(row, "op", x->op);
    sb_tpl_set_str(row, "mode", x->mode);
    sb_tpl_set_str(row, "dtype", x->dtype);
    sb_tpl_set_str(row, "upstream", x->baseline);
    snprintf(buf, sizeof buf, "%.3f [%.3f-%.3f]", x->geomean.ratio, x->geomean.lo, x->geomean.hi);
    sb_tpl_set_str(row, "speedup", buf);
    if (before->best)
        snprintf(buf, sizeof buf, "%.3f %s", before->best->geomean.ratio, state_name(before->state));
    else
        snprintf(buf, sizeof buf, "not paired");
    sb_tpl_set_str(row, "before", buf);
    sb_tpl_set_str(row, "ceiling", ceiling);
    snprintf(buf, sizeof buf, "%.*s", SB_SESSION_SHORT, x->session_id);
    sb_tpl_set_str(row, "session", buf);
    return row;
}

typedef struct change_row {
    json_t *row;
    int loss;
    double ratio;
} change_row;

static int cmp_change_row(const void *a, const void *b)
{
    const change_row *x = a, *y = b;
    if (x->loss != y->loss)
        return y->loss - x->loss; /* losses first */
    /* the largest gap first: losses by the smallest speedup, wins by the largest */
    double kx = x->loss ? x->ratio : -x->ratio, ky = y->loss ? y->ratio : -y->ratio;
    return (kx > ky) - (kx < ky);
}

/* The regressions and improvements of the project's kernels (regress.h)
 * whose new run is of [start, end) on sku. */
static void card_changes(const sb_rg_list *rg, const sb_rg_opts *o, const char *sku, long long start, long long end,
                         json_t *card)
{
    size_t reg = 0, confirmed = 0, refuted = 0, imp = 0;
    json_t *regs = json_array(), *imps = json_array();
    for (size_t i = 0; i < rg->n; i++) {
        const sb_rg_row *r = &rg->v[i];
        const sb_result *n = r->new_run;
        if (!n || strcmp(n->sku, sku) || n->finished_epoch < start || n->finished_epoch >= end)
            continue;
        int is_reg = sb_rg_counts(r);
        int is_imp = r->latest && r->cause == SB_RG_CODE && r->verdict == SB_RG_IMPROVEMENT;
        if (!is_reg && !is_imp)
            continue;
        reg += is_reg;
        imp += is_imp;
        confirmed += is_reg && r->confirm == SB_RG_CONFIRMED;
        refuted += is_reg && r->confirm == SB_RG_REFUTED;
        /* the confirmed regressions and the improvements are named */
        if ((is_reg && r->confirm != SB_RG_CONFIRMED) || json_array_size(is_reg ? regs : imps) >= 3)
            continue;
        json_t *c = json_object();
        sb_buf b = SB_BUF_INIT;
        sb_tpl_set_str(c, "op", n->op);
        sb_tpl_set_str(c, "mode", n->mode);
        sb_tpl_set_str(c, "dtype", n->dtype);
        sb_case_label(n, &b);
        sb_tpl_set_str(c, "case", sb_buf_str(&b));
        sb_tpl_set_num(c, "change", "%+.1f", 100.0 * r->rel_change);
        sb_buf_reset(&b);
        if (r->old_run)
            sb_rg_range_md(r, o, &b);
        sb_tpl_set_str(c, "range", sb_buf_str(&b));
        sb_buf_free(&b);
        json_array_append_new(is_reg ? regs : imps, c);
    }
    json_object_set_new(card, "regressions", json_integer((json_int_t)reg));
    json_object_set_new(card, "confirmed", json_integer((json_int_t)confirmed));
    json_object_set_new(card, "refuted", json_integer((json_int_t)refuted));
    json_object_set_new(card, "unconfirmed", json_integer((json_int_t)(reg - confirmed - refuted)));
    json_object_set_new(card, "improvements", json_integer((json_int_t)imp));
    json_object_set_new(card, "confirmed_list", regs);
    json_object_set_new(card, "improved_list", imps);
}

/* The writeup's view of the cross-arch tables (crossarch.h; each in full
 * in the appendix): one row per table and card, in at most 8 columns:
 * the cases, the geomean speedup over each baseline, fused's share of
 * the ceiling that fits the op and the time over the first card's beside
 * the copy-bound ratio; then a note for each share over 100%. The first
 * max_rows rows, and a line saying how many more the appendix holds. */
static int cross_digest(const sb_weekly_snapshot *ws, const sb_xa_set *xa, size_t max_rows,
                        sb_buf *out, sb_error *err)
{
    if (xa->n == 0)
        return SB_OK;
    json_t *notes = json_array();
    int rc = SB_OK;
    size_t rows = 0;
    sb_buf_puts(out, "| op | mode | dtype | card | cases | geomean speedup | fused, share of ceiling | time over "
                     "the first card (copy-bound) |\n| --- | --- | --- | --- | ---: | --- | --- | --- |\n");
    for (size_t i = 0; i < xa->n && rc == SB_OK; i++) {
        const sb_xa_table *t = &xa->v[i];
        const sb_result **runs = calloc(t->nrows + 1, sizeof *runs);
        if (!runs) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            break;
        }
        for (size_t c = 0; c < t->ncards && rc == SB_OK; c++) {
            if (rows++ >= max_rows)
                continue;
            size_t n = 0;
            for (size_t r = 0; r < t->nrows; r++)
                if (t->rows[r].cell[c].run)
                    runs[n++] = t->rows[r].cell[c].run;
            const char *cells[] = {t->op, t->mode, t->dtype, t->sku[c]};
            sb_buf_puts(out, "|");
            for (size_t k = 0; k < 4; k++) {
                sb_buf_putc(out, ' ');
                sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
                sb_buf_puts(out, " |");
            }
            sb_buf_printf(out, " %zu | ", n);
            int any = 0;
            for (size_t b = 0; b < t->nbases; b++)
                if (isfinite(t->geomean[c].vs[b])) {
                    sb_buf_printf(out, "%sx ", any++ ? ", " : "");
                    sb_enc_md_text(out, t->base[b], SB_TEXT_NAME_MAX);
                    sb_buf_printf(out, " %.2f", t->geomean[c].vs[b]);
                }
            sb_buf_puts(out, any ? " | " : "- | ");
            char label[256];
            snprintf(label, sizeof label, "%s %s %s on %s", t->op, t->mode, t->dtype, t->sku[c]);
            sb_buf cell = SB_BUF_INIT, note = SB_BUF_INIT, text = SB_BUF_INIT;
            rc = share_cell(ws, runs, n, label, &cell, &note, err);
            note_add(notes, &note, &cell);
            sb_enc_md_text(&text, sb_buf_str(&cell), SB_TEXT_NOTE_MAX);
            sb_buf_printf(out, "%s | ", sb_buf_str(&text));
            /* a card with no calibration has no copy ceiling: its bound
             * is left out rather than printed as nan */
            double bound = t->copy_gbps[0] / t->copy_gbps[c];
            if (c > 0 && isfinite(t->geomean[c].ratio) && isfinite(bound))
                sb_buf_printf(out, "%.3f (%.3f) |\n", t->geomean[c].ratio, bound);
            else if (c > 0 && isfinite(t->geomean[c].ratio))
                sb_buf_printf(out, "%.3f (no copy ceiling) |\n", t->geomean[c].ratio);
            else
                sb_buf_puts(out, "- |\n");
            sb_buf_free(&cell);
            sb_buf_free(&note);
            sb_buf_free(&text);
        }
        free(runs);
    }
    if (rows > max_rows)
        sb_buf_printf(out, "\n%zu more row%s, past the writeup's limits, are in the appendix (Cross-arch "
                           "tables).\n",
                      rows - max_rows, rows - max_rows == 1 ? "" : "s");
    if (json_array_size(notes))
        sb_buf_puts(out, "\n");
    for (size_t i = 0; i < json_array_size(notes); i++) {
        json_t *o = json_array_get(notes, i);
        sb_buf_printf(out, "- Note %lld: ", (long long)json_integer_value(json_object_get(o, "n")));
        sb_enc_md_text(out, json_string_value(json_object_get(o, "text")), SB_TEXT_NOTE_MAX);
        sb_buf_putc(out, '\n');
    }
    sb_buf_putc(out, '\n');
    json_decref(notes);
    return rc;
}

/* The first screen of the writeup (d: `changes[]`, `changes_upstream`,
 * `has_changes`) and the standing of every op group in the appendix (ad:
 * `standing[]`): per SKU of the week's runs, the week's regressions and
 * improvements of the project's kernels, and fused against the fastest
 * upstream provider in the week's measuring sessions beside the sessions
 * before it. */
static int first_screen(const sb_weekly_snapshot *ws, const sb_rg_list *rg,
                        const sb_rg_opts *rgo, const sb_result_set *week, long long start, long long end, json_t *d,
                        json_t *ad, sb_error *err)
{
    int rc = SB_ERR;
    sb_session_runs runs = {0}, runs_before = {0};
    sb_session_headlines now = {0}, before = {0};
    const char **sk = calloc(week->n + 1, sizeof *sk), **ar = calloc(week->n + 1, sizeof *ar);
    size_t nsk = 0;
    json_t *cards = json_array(), *all = json_array();
    json_object_set_new(d, "changes", cards);
    json_object_set_new(ad, "standing", all);
    if (!sk || !ar) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (sb_session_runs_copy(&ws->sessions, &runs) != 0 || sb_session_runs_copy(&ws->sessions, &runs_before) != 0) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (sb_session_headlines_take(&runs, NULL, sb_weekly_upstream, start, end, &now, err) != SB_OK ||
        sb_session_headlines_take(&runs_before, NULL, sb_weekly_upstream, LLONG_MIN, start, &before, err) != SB_OK)
        goto done;
    for (size_t i = 0; i < week->n; i++)
        if (!str_in(sk, nsk, week->v[i].sku)) {
            sk[nsk] = week->v[i].sku;
            ar[nsk++] = week->v[i].arch;
        }
    sb_sort_skus(sk, ar, nsk);
    /* the upstream providers the week's sessions set fused against, named
     * in the text only when some headline has them */
    sb_buf names = SB_BUF_INIT;
    for (size_t b = 0; sb_weekly_upstream[b]; b++)
        for (size_t i = 0; i < now.n; i++)
            if (!strcmp(now.v[i].provider, SB_PROJECT_PROVIDER) && !strcmp(now.v[i].baseline, sb_weekly_upstream[b])) {
                add_distinct(&names, sb_weekly_upstream[b]);
                break;
            }
    sb_tpl_set_str(d, "changes_upstream", sb_buf_str(&names));
    json_object_set_new(d, "has_changes", json_boolean(nsk > 0));
    sb_buf_free(&names);
    for (size_t k = 0; k < nsk; k++) {
        json_t *card = json_object(), *rows = json_array(), *notes = json_array(), *arows = json_array(),
               *anotes = json_array(), *ac = json_object();
        sb_tpl_set_str(card, "sku", sk[k]);
        json_object_set_new(card, "rows", rows);
        json_object_set_new(card, "notes", notes);
        json_array_append_new(cards, card);
        sb_tpl_set_str(ac, "sku", sk[k]);
        json_object_set_new(ac, "rows", arows);
        json_object_set_new(ac, "notes", anotes);
        json_array_append_new(all, ac);
        card_changes(rg, rgo, sk[k], start, end, card);
        size_t groups = 0, count[5] = {0}, new_wins = 0, new_losses = 0, first = 0, nch = 0;
        change_row *ch = calloc(now.n + 1, sizeof *ch);
        if (!ch) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < now.n; i++) {
            const sb_session_headline *g = &now.v[i];
            if (strcmp(g->provider, SB_PROJECT_PROVIDER) || strcmp(g->sku, sk[k]))
                continue;
            /* each op group once: its first headline */
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !strcmp(now.v[j].provider, g->provider) && !strcmp(now.v[j].sku, g->sku) &&
                       !strcmp(now.v[j].op, g->op) && !strcmp(now.v[j].mode, g->mode) &&
                       !strcmp(now.v[j].dtype, g->dtype);
            if (seen)
                continue;
            sb_weekly_standing s = sb_weekly_standing_of(&now, g->op, g->mode, g->dtype, sk[k]);
            sb_weekly_standing b = sb_weekly_standing_of(&before, g->op, g->mode, g->dtype, sk[k]);
            groups++;
            count[s.state + 1]++;
            first += b.best == NULL;
            int win = s.state == SB_WEEKLY_LEADS && b.state != SB_WEEKLY_LEADS;
            int loss = s.state == SB_WEEKLY_TRAILS && b.state != SB_WEEKLY_TRAILS;
            new_wins += win;
            new_losses += loss;
            sb_buf cell = SB_BUF_INIT, note = SB_BUF_INIT, acell = SB_BUF_INIT;
            if (ceiling_cell(ws, week, s.best, &cell, &note, err) != SB_OK) {
                sb_buf_free(&cell);
                sb_buf_free(&note);
                for (size_t q = 0; q < nch; q++)
                    json_decref(ch[q].row);
                free(ch);
                goto done;
            }
            sb_buf_puts(&acell, sb_buf_str(&cell));
            note_add(anotes, &note, &acell);
            json_array_append_new(arows, standing_row(s.best, state_name(s.state), &b, sb_buf_str(&acell)));
            sb_buf_free(&acell);
            if (win || loss) {
                char change[96];
                if (b.best)
                    snprintf(change, sizeof change, "new %s (was %.3f, %s)", win ? "win" : "loss",
                             b.best->geomean.ratio, state_name(b.state));
                else
                    snprintf(change, sizeof change, "new %s (first paired)", win ? "win" : "loss");
                ch[nch].row = standing_row(s.best, change, &b, sb_buf_str(&cell));
                /* numbered once the rows shown are known */
                sb_tpl_set_str(ch[nch].row, "note", sb_buf_str(&note));
                ch[nch].loss = loss;
                ch[nch++].ratio = s.best->geomean.ratio;
            }
            sb_buf_free(&cell);
            sb_buf_free(&note);
        }
        qsort(ch, nch, sizeof *ch, cmp_change_row);
        /* the first screen holds every card: fewer rows each when there
         * are several */
        size_t shown = nsk > 1 ? FIRST_SCREEN_ROWS / nsk : FIRST_SCREEN_ROWS;
        if (shown < 3)
            shown = 3;
        /* as many losses as wins where both are more than fit, the
         * largest gaps of each (ch holds the losses first) */
        size_t nloss = 0;
        while (nloss < nch && ch[nloss].loss)
            nloss++;
        size_t take_loss = nloss, take_win = nch - nloss;
        if (nch > shown) {
            size_t half = (shown + 1) / 2;
            take_loss = nloss < half ? nloss : take_win < shown - half ? shown - take_win : half;
            take_win = shown - take_loss < take_win ? shown - take_loss : take_win;
        }
        for (size_t i = 0; i < nch; i++) {
            json_t *row = ch[i].row;
            const char *nt = json_string_value(json_object_get(row, "note"));
            int show = i < nloss ? i < take_loss : i - nloss < take_win;
            if (show && nt && *nt) {
                sb_buf note = SB_BUF_INIT, cell = SB_BUF_INIT;
                sb_buf_puts(&note, nt);
                sb_buf_puts(&cell, json_string_value(json_object_get(row, "ceiling")));
                note_add(notes, &note, &cell);
                sb_tpl_set_str(row, "ceiling", sb_buf_str(&cell));
                sb_buf_free(&note);
                sb_buf_free(&cell);
            }
            if (show)
                json_array_append_new(rows, row);
            else
                json_decref(row);
        }
        free(ch);
        json_object_set_new(card, "more_rows", json_integer((json_int_t)(nch - take_loss - take_win)));
        json_object_set_new(card, "has_rows", json_boolean(nch > 0));
        json_object_set_new(card, "groups", json_integer((json_int_t)groups));
        json_object_set_new(card, "leads", json_integer((json_int_t)count[SB_WEEKLY_LEADS + 1]));
        json_object_set_new(card, "trails", json_integer((json_int_t)count[SB_WEEKLY_TRAILS + 1]));
        json_object_set_new(card, "level", json_integer((json_int_t)count[SB_WEEKLY_LEVEL + 1]));
        json_object_set_new(card, "unclear", json_integer((json_int_t)count[SB_WEEKLY_UNCLEAR + 1]));
        json_object_set_new(card, "new_wins", json_integer((json_int_t)new_wins));
        json_object_set_new(card, "new_losses", json_integer((json_int_t)new_losses));
        json_object_set_new(card, "first_paired", json_integer((json_int_t)first));
    }
    rc = SB_OK;
done:
    sb_session_headlines_free(&now);
    sb_session_headlines_free(&before);
    sb_session_runs_free(&runs);
    sb_session_runs_free(&runs_before);
    free(sk);
    free(ar);
    return rc;
}

/* ---- the writeup within its limits ------------------------------------ */

/* The writeup's lists in full, each most important first: what
 * fit_writeup cuts when the whole writeup would pass its limits. */
typedef struct writeup_lists {
    json_t *changes, *environment, *plots; /* objects, as the template takes them */
    json_t *cards;                         /* Markdown strings (measured_cards) */
    json_t *ops, *new_ops, *new_skus;      /* names */
} writeup_lists;

static void lists_free(writeup_lists *l)
{
    json_t *all[] = {l->changes, l->environment, l->plots, l->cards, l->ops, l->new_ops, l->new_skus};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        json_decref(all[i]);
}

/* Appends v to the array of names when it is not there yet. */
static void names_add(json_t *names, const char *v)
{
    if (!v || !*v)
        return;
    for (size_t i = 0; i < json_array_size(names); i++)
        if (!strcmp(json_string_value(json_array_get(names, i)), v))
            return;
    json_array_append_new(names, json_string_nocheck(v));
}

/* d[key]: the first cap entries of full; d[key_more]: how many are left
 * out, which is returned. */
static size_t show_first(json_t *d, const char *key, const json_t *full, size_t cap)
{
    json_t *a = json_array();
    size_t n = json_array_size(full);
    for (size_t i = 0; i < n && i < cap; i++)
        json_array_append(a, json_array_get(full, i));
    json_object_set_new(d, key, a);
    char more[64];
    snprintf(more, sizeof more, "%s_more", key);
    size_t left = n > cap ? n - cap : 0;
    json_object_set_new(d, more, json_integer((json_int_t)left));
    return left;
}

/* d[key]: the first cap strings of full (at least one) joined by sep, as
 * many as fit in SB_TEXT_NOTE_MAX bytes, where the Markdown escaping of a
 * template value would cut the text unsaid; d[key_more]: how many are
 * left out, which is returned. */
static size_t join_first(json_t *d, const char *key, const json_t *full, size_t cap, const char *sep)
{
    sb_buf b = SB_BUF_INIT;
    size_t n = json_array_size(full);
    if (cap < 1)
        cap = 1;
    size_t shown = 0;
    for (; shown < n && shown < cap; shown++) {
        const char *v = json_string_value(json_array_get(full, shown));
        if (shown && b.len + strlen(sep) + strlen(v) > SB_TEXT_NOTE_MAX)
            break;
        sb_buf_puts(&b, shown ? sep : "");
        sb_buf_puts(&b, v);
    }
    json_object_set_new(d, key, json_string_nocheck(sb_buf_str(&b)));
    sb_buf_free(&b);
    char more[64];
    snprintf(more, sizeof more, "%s_more", key);
    size_t left = n - shown;
    json_object_set_new(d, more, json_integer((json_int_t)left));
    return left;
}

static json_int_t int_of(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* A card's weight on the first screen: its regressions, improvements,
 * new wins and new losses this week. */
static json_int_t card_weight(const json_t *card)
{
    return int_of(card, "regressions") + int_of(card, "improvements") + int_of(card, "new_wins") +
           int_of(card, "new_losses");
}

typedef struct ranked {
    json_t *v;
    json_int_t weight;
    size_t at;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return (x->at > y->at) - (x->at < y->at);
}

/* Orders the objects of arr by weight, heaviest first, keeping the order
 * they came in among equals. */
static void rank_by(json_t *arr, json_int_t (*weight)(const json_t *))
{
    size_t n = json_array_size(arr);
    ranked *r = malloc((n + 1) * sizeof *r);
    if (!r)
        return; /* left in SKU order */
    for (size_t i = 0; i < n; i++)
        r[i] = (ranked){json_incref(json_array_get(arr, i)), weight(json_array_get(arr, i)), i};
    qsort(r, n, sizeof *r, cmp_ranked);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, r[i].v);
    free(r);
}

static json_int_t env_weight(const json_t *row)
{
    return int_of(row, "runs");
}

/* Renders weekly.md.tmpl into md with at most cap entries of each list
 * (at least one name of each list of names); *left gets the entries left
 * out in all. */
static int render_capped(const sb_weekly_snapshot *ws, const sb_xa_set *xa,
                         const sb_session_headlines *paired, const writeup_lists *l, size_t cap, json_t *d, sb_buf *md,
                         size_t *left, sb_error *err)
{
    *left = show_first(d, "changes", l->changes, cap) + show_first(d, "environment", l->environment, cap) +
            show_first(d, "plots", l->plots, cap) + join_first(d, "measured_cards", l->cards, cap, "; ") +
            join_first(d, "measured_ops", l->ops, cap, ", ") + join_first(d, "new_ops", l->new_ops, cap, ", ") +
            join_first(d, "new_skus", l->new_skus, cap, ", ");
    sb_buf t = SB_BUF_INIT;
    size_t rows = summary_table(paired, cap, &t);
    *left += rows > cap ? rows - cap : 0;
    sb_tpl_set_str(d, "paired_md", sb_buf_str(&t));
    sb_buf_reset(&t);
    size_t xrows = 0;
    for (size_t i = 0; i < xa->n; i++)
        xrows += xa->v[i].ncards;
    *left += xrows > cap ? xrows - cap : 0;
    int rc = cross_digest(ws, xa, cap, &t, err);
    if (rc == SB_OK) {
        sb_tpl_set_str(d, "cross_tables", sb_buf_str(&t));
        sb_buf_reset(md);
        rc = sb_render_home("weekly.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, md, err);
    }
    sb_buf_free(&t);
    return rc;
}

static int within_limits(const sb_buf *md)
{
    return md->len <= SB_WEEKLY_MAX_BYTES && count_lines(md) <= SB_WEEKLY_MAX_LINES;
}

/* The writeup in md, within SB_WEEKLY_MAX_BYTES and SB_WEEKLY_MAX_LINES
 * whatever the week holds: whole when it fits, else with each list cut
 * to its first N entries, N the largest that fits (one figure for every
 * list, so none is emptied while another stays long). A cut writeup
 * puts first the cards with the most regressions, improvements and new
 * wins and losses, and in the table of cards those with the most runs;
 * the other lists keep the appendix's order. Each cut list says how many entries it left
 * out and where they are; *left_out gets the sum. */
static int fit_writeup(const sb_weekly_snapshot *ws, const sb_xa_set *xa,
                       const sb_session_headlines *paired, const writeup_lists *l, const char *week, json_t *d,
                       sb_buf *md, size_t *left_out, sb_error *err)
{
    size_t left;
    *left_out = 0;
    if (render_capped(ws, xa, paired, l, SIZE_MAX, d, md, &left, err) != SB_OK)
        return SB_ERR;
    if (within_limits(md))
        return SB_OK;
    rank_by(l->changes, card_weight);
    rank_by(l->environment, env_weight);
    /* the longest list bounds the search: a cap at its length cuts nothing */
    const json_t *lists[] = {l->changes, l->environment, l->plots, l->cards, l->ops, l->new_ops, l->new_skus};
    sb_buf scratch = SB_BUF_INIT;
    size_t hi = summary_table(paired, 0, &scratch), lo = 0;
    sb_buf_free(&scratch);
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (json_array_size(lists[i]) > hi)
            hi = json_array_size(lists[i]);
    for (size_t i = 0, x = 0; i < xa->n; i++)
        if ((x += xa->v[i].ncards) > hi)
            hi = x;
    if (render_capped(ws, xa, paired, l, 0, d, md, &left, err) != SB_OK)
        return SB_ERR;
    if (!within_limits(md))
        return sb_error_set(err, NULL, NULL,
                            "the %s writeup would be %zu bytes and %zu lines with every list cut "
                            "(limits: %d bytes, %d lines)",
                            week, md->len, count_lines(md), SB_WEEKLY_MAX_BYTES, SB_WEEKLY_MAX_LINES);
    /* lo fits, hi does not */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (render_capped(ws, xa, paired, l, mid, d, md, &left, err) != SB_OK)
            return SB_ERR;
        if (within_limits(md))
            lo = mid;
        else
            hi = mid;
    }
    if (render_capped(ws, xa, paired, l, lo, d, md, &left, err) != SB_OK)
        return SB_ERR;
    *left_out = left;
    return SB_OK;
}

/* The result note (report/note.h) over all, or over the snapshot's note
 * runs when all is NULL, with the run details the snapshot holds. */
int sb_weekly_note(const sb_weekly_snapshot *ws, const sb_result_set *all, const sb_sku_table *skus, sb_buf *out,
                   sb_error *err)
{
    return sb_note_render(all ? all : &ws->note_runs, ws->details, skus, SB_WEEKLY_GATE_ARCHES, out, err);
}


int sb_weekly_build(const sb_weekly_snapshot *ws, const sb_weekly_steps *steps,
                    const sb_sku_table *skus, const sb_weekly_opts *o, sb_weekly_summary *sum, sb_file_set *out,
                    sb_error *err)
{
    memset(sum, 0, sizeof *sum);
    memset(out, 0, sizeof *out);
    char week[16], prev[16];
    int py, pw;
    sb_isoweek_format(o->year, o->week, week, sizeof week);
    sb_isoweek_prev(o->year, o->week, &py, &pw);
    sb_isoweek_format(py, pw, prev, sizeof prev);
    long long start, end;
    sb_isoweek_range(o->year, o->week, &start, &end);

    int rc = SB_ERR;
    /* the rows its caller read (weekly_snapshot.h) */
    const sb_result_set set = ws->week, both = ws->before, spec = ws->spec,
                        sess = ws->with_sessions, sess_only = ws->session_only;
    const sb_training_set tr = ws->training;
    const sb_rg_list rg = *o->regressions;
    sb_pick *picks = NULL;
    size_t npicks = 0;
    sb_geo_table geo = {0};
    sb_session_headlines paired = {0};
    sb_xa_set xa = {0};
    sb_repro *rp = NULL;
    json_t *d = NULL, *ad = NULL;
    sb_buf md = SB_BUF_INIT, tmp = SB_BUF_INIT, html = SB_BUF_INIT, app = SB_BUF_INIT,
           script = SB_BUF_INIT;
    char *frag = NULL;
    opgroup *groups = NULL;
    size_t ngroups = 0;
    const sb_result **cited = NULL;
    const sb_rg_row **chg = NULL;
    writeup_lists lists = {NULL, NULL, NULL, json_array(), json_array(), json_array(), json_array()};

    if (sb_picks_latest(&set, &picks, &npicks, err) != SB_OK)
        goto done;
    /* the headline: the week's sessions, paired; the newest runs of the
     * rest only in the sections labelled as not paired (docs/CLAIMS.md) */
    sb_session_runs sruns = {0};
    if (sb_session_runs_copy(&ws->sessions, &sruns) != 0) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (sb_claims_headlines_take(&sruns, NULL, o->baseline, start, end, &paired, err) != SB_OK ||
        sb_geo_compute_unpaired(&set, picks, npicks, o->baseline, &paired, &geo, err) != SB_OK)
        goto done;
    if (sb_xa_build(o->snap, picks, npicks, SB_WEEKLY_SUBJECT, o->baseline, &paired, &xa, err) != SB_OK)
        goto done;
    if (sb_repro_open(&rp, err) != SB_OK)
        goto done;

    for (size_t i = 0; i < sess.n; i++) {
        const sb_result *r = &sess.v[i];
        sum->runs++;
        if (r->passing)
            sum->passing++;
        else if (strcmp(r->status, "skipped") == 0)
            sum->skipped++;
        else
            sum->failed++;
    }
    sum->training = tr.n;
    sum->regressions = sb_rg_count_regressions(&rg);
    for (size_t i = 0; i < rg.n; i++)
        if (rg.v[i].latest && rg.v[i].cause == SB_RG_CODE && rg.v[i].verdict == SB_RG_IMPROVEMENT)
            sum->improvements++;

    d = json_object();
    ad = json_object();
    if (!d || !ad) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    char date[16], appendix[64];
    snprintf(appendix, sizeof appendix, "%s-appendix.md", week);
    json_t *both_d[] = {d, ad};
    for (size_t k = 0; k < 2; k++) {
        json_t *x = both_d[k];
        sb_tpl_set_str(x, "week", week);
        sb_tpl_set_str(x, "previous_week", prev);
        sb_epoch_date(start, date);
        sb_tpl_set_str(x, "week_start", date);
        sb_epoch_date(end - 86400, date);
        sb_tpl_set_str(x, "week_end", date);
        sb_evidence_labels_set(x);
        sb_tpl_set_str(x, "appendix", appendix);
        sb_tpl_set_str(x, "site", SB_WEEKLY_SITE_ROOT);
        sb_tpl_set_str(x, "subject", SB_WEEKLY_SUBJECT);
        json_object_set_new(x, "has_runs", json_boolean(sess.n > 0 || tr.n > 0));
        json_object_set_new(x, "has_results", json_boolean(set.n > 0));
    }
    json_object_set_new(d, "runs", json_integer((json_int_t)sum->runs));
    {
        size_t in_sessions = 0, nsessions = 0, ops = 0;
        for (size_t i = 0; i < sess.n; i++)
            in_sessions += sess.v[i].session_id != NULL;
        json_object_set_new(d, "session_runs", json_integer((json_int_t)in_sessions));
        json_object_set_new(d, "result_runs", json_integer((json_int_t)(sess.n - in_sessions)));
        if (measured_cards(&sess, &paired, lists.cards, &nsessions) != 0) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        char phrase[64];
        snprintf(phrase, sizeof phrase, "%zu measuring session%s", nsessions, nsessions == 1 ? "" : "s");
        sb_tpl_set_str(d, "sessions", phrase);
        for (size_t i = 0; i < sess.n; i++)
            names_add(lists.ops, sess.v[i].op);
        ops = json_array_size(lists.ops);
        char op_phrase[64];
        snprintf(op_phrase, sizeof op_phrase, "%zu op%s", ops, ops == 1 ? "" : "s");
        sb_tpl_set_str(d, "measured_op_count", op_phrase);
        /* the note's GEMM spec runs may be of any week: say how many are this week's */
        size_t spec_week = 0;
        for (size_t i = 0; i < spec.n; i++)
            spec_week += spec.v[i].finished_epoch >= start && spec.v[i].finished_epoch < end;
        json_object_set_new(d, "spec_runs", json_integer((json_int_t)spec_week));
    }
    {
        char line[128];
        snprintf(line, sizeof line, "%zu " SB_LEFT_OUT_TIME, set.n_left_out);
        sb_tpl_set_str(d, "left_out", line);
        json_object_set_new(d, "has_left_out", json_boolean(set.n_left_out > 0));
    }
    json_object_set_new(d, "passing", json_integer((json_int_t)sum->passing));
    json_object_set_new(d, "failed", json_integer((json_int_t)sum->failed));
    json_object_set_new(d, "skipped", json_integer((json_int_t)sum->skipped));
    json_object_set_new(d, "training_runs", json_integer((json_int_t)tr.n));
    json_object_set_new(d, "regressions", json_integer((json_int_t)sum->regressions));
    json_object_set_new(d, "improvements", json_integer((json_int_t)sum->improvements));
    {
        sb_buf_reset(&tmp);
        sb_rg_definition(&rg, &o->rg, &tmp);
        sb_tpl_set_str(d, "regression_definition", sb_buf_str(&tmp));
        size_t tested, flagged, changes = 0;
        sb_rg_drift_share(&rg, &tested, &flagged);
        for (size_t i = 0; i < rg.n; i++)
            changes += rg.v[i].latest && (rg.v[i].cause == SB_RG_PROTOCOL || rg.v[i].cause == SB_RG_ENVIRONMENT);
        json_object_set_new(d, "drift_tested", json_integer((json_int_t)tested));
        json_object_set_new(d, "drift_flagged", json_integer((json_int_t)flagged));
        json_object_set_new(d, "setup_changes", json_integer((json_int_t)changes));
    }

    /* the note */
    sb_buf_reset(&tmp);
    if (o->note)
        sb_buf_puts(&tmp, o->note);
    else if (sb_weekly_note(ws, o->all, skus, &tmp, err) != SB_OK)
        goto done;
    sb_tpl_set_str(d, "note", sb_buf_str(&tmp));

    /* what changed: the largest regressions and improvements, new ops and cards */
    {
        chg = calloc(rg.n + 1, sizeof *chg);
        if (!chg) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        const char *keys[] = {"regressed", "improved"};
        for (size_t k = 0; k < 2; k++) {
            size_t nc = 0;
            for (size_t i = 0; i < rg.n; i++) {
                const sb_rg_row *r = &rg.v[i];
                if (k == 0 ? sb_rg_counts(r) && r->verdict == SB_RG_REGRESSION
                           : r->latest && r->cause == SB_RG_CODE && r->verdict == SB_RG_IMPROVEMENT)
                    chg[nc++] = r;
            }
            qsort(chg, nc, sizeof *chg, cmp_change);
            json_t *l = json_array();
            for (size_t i = 0; i < nc && i < TOP_CHANGES; i++)
                json_array_append_new(l, change_item(chg[i], &o->rg));
            json_object_set_new(d, keys[k], l);
        }
        size_t now_failing = 0;
        for (size_t i = 0; i < rg.n; i++)
            now_failing += sb_rg_counts(&rg.v[i]) && rg.v[i].verdict == SB_RG_NOW_FAILING;
        json_object_set_new(d, "now_failing", json_integer((json_int_t)now_failing));
        /* the ops and cards of the previous week, sorted once, so each of
         * the week's runs is looked up instead of compared with every run */
        const char **ops_before = calloc(both.n + 1, sizeof *ops_before);
        const char **skus_before = calloc(both.n + 1, sizeof *skus_before);
        if (!ops_before || !skus_before) {
            free(ops_before);
            free(skus_before);
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        size_t nbefore = 0;
        for (size_t j = 0; j < both.n; j++) {
            ops_before[nbefore] = both.v[j].op;
            skus_before[nbefore++] = both.v[j].sku;
        }
        size_t nops_before = sorted_names(ops_before, nbefore);
        size_t nskus_before = sorted_names(skus_before, nbefore);
        for (size_t i = 0; i < sess.n; i++) {
            const sb_result *r = &sess.v[i];
            if (!sorted_has(ops_before, nops_before, r->op))
                names_add(lists.new_ops, r->op);
            if (!sorted_has(skus_before, nskus_before, r->sku))
                names_add(lists.new_skus, r->sku);
        }
        free(ops_before);
        free(skus_before);
    }

    json_object_set_new(d, "environment", env_rows(&sess, &tr));
    json_object_set_new(ad, "environment", env_rows(&sess, &tr));

    /* the first screen: what changed in the project's kernels, per card */
    if (first_screen(ws, &rg, &o->rg, &sess, start, end, d, ad, err) != SB_OK)
        goto done;

    /* the paired headline: the project's kernels in the writeup, every
     * provider in the appendix */
    sb_buf_reset(&tmp);
    size_t summary_rows = summary_table(&paired, SIZE_MAX, &tmp);
    json_object_set_new(d, "has_paired", json_boolean(summary_rows > 0));
    json_object_set_new(d, "paired_count", json_integer((json_int_t)paired.n));
    json_object_set_new(ad, "has_paired", json_boolean(paired.n > 0));
    /* the geomean tables and full cross-arch tables go to the appendix */
    sb_buf_reset(&tmp);
    if (geo.n || paired.n)
        sb_geo_render_report_md(&paired, &geo, &tmp);
    sb_tpl_set_str(ad, "geomean_tables", sb_buf_str(&tmp));
    json_object_set_new(ad, "has_geomean", json_boolean(geo.n > 0 || paired.n > 0));
    {
        /* the week's session runs, whose pairs the paired headline takes */
        sb_plaus_summary ps;
        sb_buf_reset(&tmp);
        if (sb_plaus_render_md(&ws->plaus, picks, npicks, &sess_only, "##", &tmp, &ps, err) != SB_OK)
            goto done;
        sb_plaus_render_set_aside_md(o->snap, "##", &tmp);
        sb_tpl_set_str(ad, "plausibility_md", sb_buf_str(&tmp));
        json_object_set_new(d, "plaus_checked", json_integer((json_int_t)ps.checked));
        json_object_set_new(d, "implausible", json_integer((json_int_t)ps.implausible));
        json_object_set_new(d, "cache_resident", json_integer((json_int_t)ps.cache_resident));
        json_object_set_new(d, "big_speedups", json_integer((json_int_t)ps.big_speedups));
        json_object_set_new(d, "session_plaus_checked", json_integer((json_int_t)ps.session_checked));
        json_object_set_new(d, "session_implausible", json_integer((json_int_t)ps.session_implausible));
        json_object_set_new(d, "session_cache_resident", json_integer((json_int_t)ps.session_cache_resident));
    }
    sb_buf_reset(&tmp);
    for (size_t i = 0; i < xa.n; i++)
        sb_xa_render_md(&xa.v[i], SIZE_MAX, &tmp);
    sb_tpl_set_str(ad, "cross_tables", sb_buf_str(&tmp));
    json_object_set_new(d, "has_cross", json_boolean(xa.n > 0));
    json_object_set_new(ad, "has_cross", json_boolean(xa.n > 0));
    json_object_set_new(d, "cross_count", json_integer((json_int_t)xa.n));

    /* plots: rooflines and speedup bars are written; the writeup shows the
     * rooflines and the bars of the groups with the most cases */
    json_t *plots = json_array(), *all_plots = json_array();
    json_object_set_new(d, "plots", plots);
    json_object_set_new(ad, "plots", all_plots);
    {
        const char **sk = calloc(npicks + 1, sizeof *sk);
        const char **ar = calloc(npicks + 1, sizeof *ar);
        size_t nsk = 0;
        if (!sk || !ar) {
            free(sk);
            free(ar);
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < npicks; i++)
            if (!str_in(sk, nsk, picks[i].r->sku)) {
                sk[nsk] = picks[i].r->sku;
                ar[nsk++] = picks[i].r->arch;
            }
        sb_sort_skus(sk, ar, nsk);
        int bad = 0;
        for (size_t k = 0; k < nsk && !bad; k++) {
            char slug[SB_PAGE_ID_SIZE], file[1024];
            size_t drawn = 0;
            sb_page_id(sk[k], slug);
            snprintf(file, sizeof file, "%s-roofline-%s.svg", week, slug);
            sb_buf_reset(&tmp);
            if (sb_plot_roofline(o->snap, skus, picks, npicks, sk[k], &tmp, &drawn, err) != SB_OK ||
                sb_file_set_add(out, file, &tmp, 0, err) != SB_OK) {
                bad = 1;
                break;
            }
            json_t *p = json_object();
            char title[512];
            snprintf(title, sizeof title, "Roofline on %s, %zu points", sk[k], drawn);
            sb_tpl_set_str(p, "title", title);
            sb_tpl_set_str(p, "file", file);
            json_array_append_new(plots, json_deep_copy(p));
            json_array_append_new(all_plots, p);
            sum->plots++;
        }
        free(sk);
        free(ar);
        groups = calloc(npicks + 1, sizeof *groups);
        if (!groups && !bad) {
            sb_error_set(err, NULL, NULL, "out of memory");
            bad = 1;
        }
        for (size_t i = 0; i < npicks && !bad; i++) {
            const sb_result *r = picks[i].r;
            size_t g = 0;
            while (g < ngroups && (strcmp(groups[g].op, r->op) || strcmp(groups[g].mode, r->mode) ||
                                   strcmp(groups[g].dtype, r->dtype)))
                g++;
            if (g == ngroups)
                groups[ngroups++] = (opgroup){r->op, r->mode, r->dtype, r->suite};
        }
        /* the bars shown: the cross-arch tables with the most cases */
        size_t shown[SB_WEEKLY_PLOTS] = {0}, nshown = 0;
        for (size_t q = 0; q < SB_WEEKLY_PLOTS && q < xa.n; q++) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < xa.n; i++) {
                int taken = 0;
                for (size_t j = 0; j < nshown; j++)
                    taken |= shown[j] == i;
                if (!taken && (best == SIZE_MAX || xa.v[i].nrows > xa.v[best].nrows))
                    best = i;
            }
            shown[nshown++] = best;
        }
        for (size_t g = 0; g < ngroups && !bad; g++) {
            char slug[SB_PAGE_ID_SIZE], file[1024], title[512], name[1024];
            const char *base = NULL;
            int rank = -1;
            for (size_t i = 0; i < geo.n; i++) {
                const sb_geo_row *r = &geo.rows[i];
                if (!strcmp(r->op, groups[g].op) && !strcmp(r->mode, groups[g].mode) &&
                    !strcmp(r->dtype, groups[g].dtype) && (rank < 0 || r->baseline_rank < rank)) {
                    rank = r->baseline_rank;
                    base = r->baseline;
                }
            }
            if (!base)
                continue;
            /* '/' is escaped in a page id and mode and dtype are enum
             * values without one, so distinct groups get distinct names */
            snprintf(name, sizeof name, "%s/%s/%s", groups[g].op, groups[g].mode, groups[g].dtype);
            sb_page_id(name, slug);
            snprintf(file, sizeof file, "%s-speedup-%s.svg", week, slug);
            sb_buf_reset(&tmp);
            sb_plot_speedup(&geo, groups[g].op, groups[g].mode, groups[g].dtype, &tmp);
            snprintf(title, sizeof title, "Unpaired geomean speedup over %s, %s %s %s", base, groups[g].op,
                     groups[g].mode, groups[g].dtype);
            if (sb_file_set_add(out, file, &tmp, 0, err) != SB_OK) {
                bad = 1;
                break;
            }
            json_t *p = json_object();
            sb_tpl_set_str(p, "title", title);
            sb_tpl_set_str(p, "file", file);
            int show = 0;
            for (size_t j = 0; j < nshown; j++)
                show |= !strcmp(xa.v[shown[j]].op, groups[g].op) &&
                        !strcmp(xa.v[shown[j]].mode, groups[g].mode) &&
                        !strcmp(xa.v[shown[j]].dtype, groups[g].dtype);
            if (show)
                json_array_append_new(plots, json_deep_copy(p));
            json_array_append_new(all_plots, p);
            sum->plots++;
        }
        if (bad)
            goto done;
    }
    json_object_set_new(d, "has_plots", json_boolean(json_array_size(plots) > 0));

    /* regressions in full: appendix */
    sb_buf_reset(&tmp);
    sb_rg_render_md(&rg, &o->rg, 1, &tmp);
    sb_tpl_set_str(ad, "regressions_md", sb_buf_str(&tmp));

    /* training (end-to-end): report/training.c, in the appendix; counted
     * in the writeup */
    {
        sb_buf plot = SB_BUF_INIT;
        /* the op-level rows beside the training steps take the newest
         * run of each series (the snapshot's latest) */
        int trc = SB_OK;
        sb_training_opts to = {&tr, &plot, NULL, o->all ? o->all : &ws->latest, NULL};
        char tname[64];
        snprintf(tname, sizeof tname, "%s-training-tokens.svg", week);
        to.plot_name = tname;
        sb_training_summary ts;
        sb_buf_reset(&tmp);
        if (trc == SB_OK)
            trc = sb_training_render_md(&to, &tmp, &ts, err);
        if (trc == SB_OK && ts.plot_drawn)
            trc = sb_file_set_add(out, tname, &plot, 0, err);
        sb_buf_free(&plot);
        if (trc != SB_OK)
            goto done;
        sb_tpl_set_str(ad, "training_md", sb_buf_str(&tmp));
        sum->plots += (size_t)ts.plot_drawn;
    }

    /* commands per op group: a script beside the appendix, which lists the
     * groups and links it, so the appendix stays a page a reader opens; the
     * database is named by its file name only, so no path of this machine
     * is written */
    const char *db_name = o->db_label ? strrchr(o->db_label, '/') : NULL;
    db_name = db_name ? db_name + 1 : o->db_label ? o->db_label : "solbook.db";
    char reproduce[64];
    snprintf(reproduce, sizeof reproduce, "%s-reproduce.sh", week);
    sb_tpl_set_str(ad, "reproduce", reproduce);
    json_object_set_new(ad, "has_commands", json_boolean(ngroups > 0));
    {
        json_t *cmds = json_array();
        json_object_set_new(ad, "commands", cmds);
        const char *interpreter = sb_shell_interpreter("");
        for (size_t g = 0; g < ngroups; g++) {
            json_t *c = json_object();
            char name[512];
            snprintf(name, sizeof name, "%s %s %s", groups[g].op, groups[g].mode, groups[g].dtype);
            sb_tpl_set_str(c, "table", name);
            size_t cases = 0; /* distinct lines: one a picked run */
            sb_buf_reset(&tmp);
            sb_buf seen = SB_BUF_INIT;
            for (size_t i = 0; i < npicks; i++) {
                const sb_result *r = picks[i].r;
                if (strcmp(r->op, groups[g].op) || strcmp(r->mode, groups[g].mode) ||
                    strcmp(r->dtype, groups[g].dtype))
                    continue;
                sb_buf line = SB_BUF_INIT;
                if (sb_repro_case(rp, r, &line, err) != SB_OK) {
                    sb_buf_free(&line);
                    sb_buf_free(&seen);
                    json_decref(c);
                    goto done;
                }
                sb_buf_putc(&line, '\n');
                if (!strstr(sb_buf_str(&seen), sb_buf_str(&line))) {
                    sb_buf_puts(&seen, sb_buf_str(&line));
                    cases++;
                }
                sb_buf_free(&line);
            }
            json_object_set_new(c, "count", json_integer((json_int_t)cases));
            sb_buf_puts(&tmp, sb_buf_str(&seen));
            sb_buf_free(&seen);
            /* options before operands: solbook's parser stops at the
             * first operand, as git's does */
            sb_buf_puts(&tmp, "solbook ingest --db ");
            sb_enc_shell_arg(&tmp, db_name);
            sb_buf_puts(&tmp, " results/\nsolbook report table --db ");
            sb_enc_shell_arg(&tmp, db_name);
            sb_buf_puts(&tmp, " --op ");
            sb_enc_shell_arg(&tmp, groups[g].op);
            sb_buf_puts(&tmp, " --sku SKU");
            sb_tpl_set_str(c, "lines", sb_buf_str(&tmp));
            json_array_append_new(cmds, c);
            /* a value only $'...' writes exactly makes the script bash's */
            if (strcmp(interpreter, sb_shell_interpreter("")) == 0)
                interpreter = sb_shell_interpreter(sb_buf_str(&tmp));
        }
        sb_tpl_set_str(ad, "interpreter", interpreter);
    }
    sb_tpl_set_str(d, "db_name", db_name);
    {
        /* a code span of one command: the database name is one shell word,
         * and the span's backticks outnumber any run inside it */
        sb_buf cmd = SB_BUF_INIT, span = SB_BUF_INIT;
        sb_buf_printf(&cmd, "solbook report weekly --week %s --db ", week);
        sb_enc_shell_arg(&cmd, db_name);
        sb_enc_md_code_span(&span, sb_buf_str(&cmd), 0);
        sb_tpl_set_str(d, "rebuild", sb_buf_str(&span));
        sb_buf_free(&cmd);
        sb_buf_free(&span);
    }

    /* the writeup within its limits: the cross-arch tables as one row per
     * table and card (every case is in the appendix), every list cut
     * where the whole would not fit */
    lists.changes = json_incref(json_object_get(d, "changes"));
    lists.environment = json_incref(json_object_get(d, "environment"));
    lists.plots = json_incref(json_object_get(d, "plots"));
    if (fit_writeup(ws, &xa, &paired, &lists, week, d, &md, &sum->left_out, err) != SB_OK)
        goto done;
    /* what the writeup names must come from its runs, and no file of it
     * may name the staging folder it is written into */
    cited = calloc(spec.n + sess.n + 2 * rg.n + 1, sizeof *cited);
    if (!cited) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    size_t ncited = 0;
    for (size_t i = 0; i < spec.n; i++)
        cited[ncited++] = &spec.v[i];
    for (size_t i = 0; i < sess.n; i++)
        cited[ncited++] = &sess.v[i];
    /* the regressions and improvements listed may cite runs of earlier weeks */
    for (size_t i = 0; i < rg.n; i++)
        if (sb_weekly_names_step(&rg.v[i])) {
            cited[ncited++] = rg.v[i].old_run;
            cited[ncited++] = rg.v[i].new_run;
        }
    {
        const char *paths[] = {o->out_dir, NULL};
        sb_claims claims = {0};
        sb_weekly_claims(&paired, &xa, picks, npicks, &rg, &claims);
        sb_claim_run *cr = sb_claim_runs_of(cited, ncited);
        int ok = cr && sb_claims_verify(&claims, cr, ncited, "the weekly writeup", err) == SB_OK &&
                 sb_claims_verify_steps(steps->aa, &steps->devices, &steps->samples, &claims, cited, ncited,
                                        &o->rg, "the weekly writeup", err) == SB_OK;
        if (!cr)
            sb_error_set(err, NULL, NULL, "out of memory");
        free(cr);
        sb_claims_free(&claims);
        if (!ok || sb_paths_check(paths, sb_buf_str(&md), "the weekly writeup", err) != SB_OK)
            goto done;
        if (sb_render_home("weekly-appendix.md.tmpl", ad, SB_TPL_ESCAPE_MARKDOWN, &app, err) !=
                SB_OK ||
            sb_paths_check(paths, sb_buf_str(&app), "the weekly appendix", err) != SB_OK ||
            sb_render_home("weekly-reproduce.sh.tmpl", ad, SB_TPL_ESCAPE_SHELL_COMMENT, &script,
                           err) != SB_OK ||
            sb_paths_check(paths, sb_buf_str(&script), "the weekly reproduce script", err) != SB_OK)
            goto done;
    }
    /* the paths reported are where the files are once moved into place */
    snprintf(sum->md_path, sizeof sum->md_path, "%s/%s.md", o->out_dir, week);
    snprintf(sum->html_path, sizeof sum->html_path, "%s/%s.html", o->out_dir, week);
    snprintf(sum->appendix_path, sizeof sum->appendix_path, "%s/%s", o->out_dir, appendix);
    snprintf(sum->reproduce_path, sizeof sum->reproduce_path, "%s/%s", o->out_dir, reproduce);
    sum->md_bytes = md.len;
    sum->md_lines = count_lines(&md);
    char md_name[64], html_name[64];
    snprintf(md_name, sizeof md_name, "%s.md", week);
    snprintf(html_name, sizeof html_name, "%s.html", week);
    if (sb_file_set_add(out, md_name, &md, 0, err) != SB_OK || sb_file_set_add(out, appendix, &app, 0, err) != SB_OK ||
        sb_file_set_add(out, reproduce, &script, 0, err) != SB_OK)
        goto done;
    if (sb_markdown_to_html(sb_buf_str(&md), md.len, &frag, err) != SB_OK)
        goto done;
    {
        json_t *h = json_object();
        char title[128];
        snprintf(title, sizeof title, "solbook weekly %s", week);
        sb_tpl_set_str(h, "title", title);
        sb_tpl_set_str(h, "body", frag);
        int r2 = sb_render_home("weekly.html.tmpl", h, SB_TPL_ESCAPE_HTML, &html, err);
        json_decref(h);
        if (r2 != SB_OK)
            goto done;
    }
    if (sb_file_set_add(out, html_name, &html, 0, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    if (rc != SB_OK)
        sb_file_set_free(out);
    free(frag);
    free(groups);
    free(cited);
    free(chg);
    sb_buf_free(&md);
    sb_buf_free(&tmp);
    sb_buf_free(&html);
    sb_buf_free(&app);
    sb_buf_free(&script);
    lists_free(&lists);
    json_decref(d);
    json_decref(ad);
    sb_repro_close(rp);
    sb_xa_free(&xa);
    sb_geo_free(&geo);
    sb_session_headlines_free(&paired);
    free(picks);
    return rc;
}
