/* weekly.c - what the weekly writeup reports on (weekly.h): the steps it
 * names, its claims and the standing of the project's kernels. */
#include "weekly.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "crossarch.h"
#include "results.h"
#include "sessions.h"

const char *const sb_weekly_upstream[] = {"liger", "quack", "torch-compile", "huggingface", NULL};

/* The steps of the project's kernels the writeup may name: its
 * regressions and improvements, each with the run before it. */
int sb_weekly_names_step(const sb_rg_row *r)
{
    return r->latest && r->cause == SB_RG_CODE && r->old_run &&
           (r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_IMPROVEMENT);
}

/* The writeup's claims (report/claims.h): the subject's paired headlines
 * with the runs of their pairs, the cross-arch tables' times and
 * speedups with the runs they are of, and each regression and
 * improvement as a step of its series. */
void sb_weekly_claims(const sb_session_headlines *h, const sb_xa_set *xa, const sb_pick *picks, size_t np,
                           const sb_rg_list *rg, sb_claims *c)
{
    for (size_t i = 0; i < rg->n; i++)
        if (sb_weekly_names_step(&rg->v[i]))
            sb_claims_add_step(c, &rg->v[i]);
    char figure[32];
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (strcmp(x->provider, SB_WEEKLY_SUBJECT))
            continue;
        int64_t *ids = malloc((2 * x->count + 1) * sizeof *ids);
        if (!ids) {
            c->failed = 1;
            return;
        }
        for (size_t k = 0; k < x->count; k++) {
            ids[2 * k] = h->report.pairs[x->pair[k]].target->run_id;
            ids[2 * k + 1] = h->report.pairs[x->pair[k]].base->run_id;
        }
        snprintf(figure, sizeof figure, "%.3f", x->geomean.ratio);
        sb_claims_add(c, figure, x->provider, x->baseline, x->sku, x->session_id, ids, 2 * x->count);
        free(ids);
    }
    for (size_t i = 0; i < xa->n; i++) {
        const sb_xa_table *t = &xa->v[i];
        for (size_t r = 0; r < t->nrows; r++)
            for (size_t k = 0; k < t->ncards; k++) {
                const sb_xa_cell *cell = &t->rows[r].cell[k];
                if (!cell->run)
                    continue;
                int64_t ids[2] = {cell->run->run_id, -1};
                snprintf(figure, sizeof figure, "%.4f ms", cell->latency_ms);
                sb_claims_add(c, figure, t->provider, NULL, t->sku[k], NULL, ids, 1);
                for (size_t b = 0; b < t->nbases; b++) {
                    const sb_pick *q = sb_pick_find(picks, np, cell->run->case_key, t->base[b], t->sku[k]);
                    if (isnan(cell->vs[b]) || !q)
                        continue;
                    ids[1] = q->r->run_id;
                    snprintf(figure, sizeof figure, "%.2fx", cell->vs[b]);
                    sb_claims_add(c, figure, t->provider, t->base[b], t->sku[k], NULL, ids, 2);
                }
            }
    }
}

sb_weekly_standing sb_weekly_standing_of(const sb_session_headlines *h, const char *op, const char *mode, const char *dtype,
                            const char *sku)
{
    sb_weekly_standing s = {NULL, SB_WEEKLY_NONE};
    for (size_t b = 0; sb_weekly_upstream[b]; b++) {
        const sb_session_headline *x =
            sb_session_headline_find(h, op, mode, dtype, sku, SB_PROJECT_PROVIDER, sb_weekly_upstream[b]);
        if (x && (!s.best || x->geomean.ratio < s.best->geomean.ratio))
            s.best = x;
    }
    if (s.best) {
        /* the speedup is a ratio of times (base over fused): "slower"
         * there means fused is faster */
        sb_paired_verdict v = sb_paired_judge(&s.best->geomean, SB_HEADLINE_FLOOR);
        s.state = v == SB_PAIRED_SLOWER ? SB_WEEKLY_LEADS : v == SB_PAIRED_FASTER ? SB_WEEKLY_TRAILS
                  : v == SB_PAIRED_SAME ? SB_WEEKLY_LEVEL : SB_WEEKLY_UNCLEAR;
    }
    return s;
}

int sb_weekly_step_runs(const sb_rg_list *rg, long long **ids, size_t *n, sb_error *err)
{
    *ids = NULL;
    *n = 0;
    sb_claims c = {0};
    const sb_result **cited = malloc((2 * rg->n + 1) * sizeof *cited);
    size_t ncited = 0;
    if (!cited)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < rg->n; i++)
        if (sb_weekly_names_step(&rg->v[i])) {
            sb_claims_add_step(&c, &rg->v[i]);
            cited[ncited++] = rg->v[i].old_run;
            cited[ncited++] = rg->v[i].new_run;
        }
    int rc = c.failed ? sb_error_set(err, NULL, NULL, "out of memory")
                      : sb_claims_step_runs(&c, cited, ncited, ids, n, err);
    sb_claims_free(&c);
    free(cited);
    return rc;
}
