/* rg_settle.h - the passes over many steps of the stored regression
 * history (report/regress.h, migration 016): the Benjamini-Hochberg
 * adjustment of a family's p-values (the tested steps between one old and
 * one new commit) and the figures of a drift noise class, which give each
 * of its steps a threshold from the others. They take the steps as
 * members (model/rg_stored.h); the caller reads and stores them.
 */
#ifndef SOLBOOK_MODEL_RG_SETTLE_H
#define SOLBOOK_MODEL_RG_SETTLE_H

#include <stddef.h>

#include "error.h"
#include "rg_stored.h"

/* Fewest other steps of a drift step's noise class that give it a
 * threshold (sb_rg_walk_open). */
#define SB_RG_DRIFT_MIN_CLASS 3

/* The verdict of a step whose p-value is p and whose medians changed by
 * rel_change ((new - old) / old), at alpha and threshold: a regression,
 * an improvement or no change. */
sb_rg_verdict sb_rg_judge(double p, double rel_change, double alpha, double threshold);

/* 1 when a step (its verdict, old commit and p) is a member of its
 * family: tested (a regression, an improvement or no change) from a
 * commit, with a p-value. */
int sb_rg_family_member(int verdict, long long old_commit, double p);

/* Benjamini-Hochberg over the members *m[0..n) of one family at alpha:
 * each one's p_adjusted. */
int sb_rg_adjust_family(sb_rg_member **m, size_t n, double alpha, sb_error *err);

/* The threshold a tested drift step (grp, seq) of the class of f takes,
 * whose walk gave it *threshold: at least sb_aa_threshold of the largest
 * |change| of the others where the class has more than
 * SB_RG_DRIFT_MIN_CLASS tested steps (*from then SB_RG_FROM_HISTORY_AA). */
void sb_rg_class_threshold(const sb_rg_class_figs *f, long long grp, long long seq, double min_effect,
                           double *threshold, sb_rg_threshold_from *from);

/* The figures of class cls from its tested steps: tested of them
 * (counted up to SB_RG_DRIFT_MIN_CLASS + 1) and the ntop (at most 2) of
 * the largest |change|, largest first. *min_abs: the least |change| a
 * step of the class needs to be flagged (-1: any). */
void sb_rg_class_figs_of(long long cls, long long tested, const sb_rg_member *top, size_t ntop,
                         double min_effect, sb_rg_class_figs *f, double *min_abs);

/* f->flagged: how many of m[0..n), the class's tested steps whose
 * |change| is at least sb_rg_class_figs_of's min_abs, the settled
 * verdicts flag (a regression or an improvement). */
void sb_rg_class_flagged(sb_rg_class_figs *f, const sb_rg_member *m, size_t n, double alpha, double min_effect);

#endif
