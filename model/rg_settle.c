/* rg_settle.c - the passes over many steps of the stored regression
 * history (rg_settle.h). */
#include "rg_settle.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

sb_rg_verdict sb_rg_judge(double p, double rel_change, double alpha, double threshold)
{
    if (p < alpha && rel_change >= threshold)
        return SB_RG_REGRESSION;
    if (p < alpha && rel_change <= -threshold)
        return SB_RG_IMPROVEMENT;
    return SB_RG_NO_CHANGE;
}

int sb_rg_family_member(int verdict, long long old_commit, double p)
{
    return (verdict == SB_RG_REGRESSION || verdict == SB_RG_IMPROVEMENT || verdict == SB_RG_NO_CHANGE) &&
           old_commit && !isnan(p);
}

int sb_rg_adjust_family(sb_rg_member **m, size_t n, double alpha, sb_error *err)
{
    double *p = calloc(n ? n : 1, sizeof *p); /* zeroed: GCC cannot see that the loop fills it */
    double *adj = malloc((n ? n : 1) * sizeof *adj);
    if (!p || !adj) {
        free(p);
        free(adj);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t k = 0; k < n; k++)
        p[k] = m[k]->p;
    int rc = SB_OK;
    if (sb_benjamini_hochberg(p, n, alpha, adj, NULL) != 0)
        rc = sb_error_set(err, NULL, NULL, "Benjamini-Hochberg: a p-value out of range");
    for (size_t k = 0; rc == SB_OK && k < n; k++)
        m[k]->p_adjusted = adj[k];
    free(p);
    free(adj);
    return rc;
}

void sb_rg_class_threshold(const sb_rg_class_figs *f, long long grp, long long seq, double min_effect,
                           double *threshold, sb_rg_threshold_from *from)
{
    if (f->tested <= SB_RG_DRIFT_MIN_CLASS)
        return;
    /* the largest change of the others: the second for the largest's
     * step (equal to the largest where two steps share it) */
    double most = grp == f->top_grp && seq == f->top_seq ? f->second_change : f->top_change;
    double t = sb_aa_threshold(most, min_effect);
    if (t > *threshold) {
        *threshold = t;
        *from = SB_RG_FROM_HISTORY_AA;
    }
}

void sb_rg_class_figs_of(long long cls, long long tested, const sb_rg_member *top, size_t ntop,
                         double min_effect, sb_rg_class_figs *f, double *min_abs)
{
    *f = (sb_rg_class_figs){cls, tested, -1, -1, 0, 0, 0};
    if (ntop) {
        f->top_grp = top[0].grp;
        f->top_seq = top[0].seq;
        f->top_change = fabs(top[0].rel_change);
    }
    if (ntop > 1)
        f->second_change = fabs(top[1].rel_change);
    /* A step is flagged only where its |change| reaches its threshold.
     * In a class with thresholds of its own, every step but the
     * largest's has a threshold of at least sb_aa_threshold(top_change),
     * and the largest's |change| is top_change: only the steps whose
     * |change| reaches the smaller of the two can be flagged. */
    *min_abs = -1.0;
    if (f->tested > SB_RG_DRIFT_MIN_CLASS) {
        *min_abs = sb_aa_threshold(f->top_change, min_effect);
        if (f->top_change < *min_abs)
            *min_abs = f->top_change;
    }
}

void sb_rg_class_flagged(sb_rg_class_figs *f, const sb_rg_member *m, size_t n, double alpha, double min_effect)
{
    f->flagged = 0;
    for (size_t k = 0; k < n; k++) {
        double t = m[k].threshold;
        sb_rg_threshold_from from = SB_RG_FROM_MIN_EFFECT;
        sb_rg_class_threshold(f, m[k].grp, m[k].seq, min_effect, &t, &from);
        double p = isnan(m[k].p_adjusted) ? m[k].p : m[k].p_adjusted;
        sb_rg_verdict v = sb_rg_judge(p, m[k].rel_change, alpha, t);
        f->flagged += v == SB_RG_REGRESSION || v == SB_RG_IMPROVEMENT;
    }
}
