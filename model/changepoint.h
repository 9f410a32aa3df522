/* changepoint.h - change points in a series of per-commit medians by
 * E-Divisive means (Matteson and James, "A nonparametric approach for
 * multiple change point analysis of multivariate data", JASA 2014), the
 * detector performance-history tools such as MongoDB's and Apache Otava's
 * use.
 *
 * The divergence between the two sides of a split, X = x[0..tau) and
 * Y = x[tau..n), with alpha = 1 (absolute differences):
 *     q = m*k/(m+k) * (2 E|X-Y| - E|X-X'| - E|Y-Y'|)
 * with m, k the sizes of the sides and the within-side means taken over
 * distinct pairs. The best split of a segment maximises q over the splits
 * leaving at least min_segment points on each side. Several change points
 * come from bisection: the segment whose best split has the largest q is
 * split next, if a permutation test finds that q significant; the search
 * stops at the first split that is not. The test shuffles every
 * segment within itself `permutations` times and counts the shuffles
 * whose largest best q over the segments is at least as large:
 * p = (1 + count) / (1 + permutations). The shuffles come from
 * a small generator seeded by the caller, so the same input and seed give
 * the same answer. Nothing here reads a database or a file. */
#ifndef SOLBOOK_MODEL_CHANGEPOINT_H
#define SOLBOOK_MODEL_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct sb_cp_options {
    double alpha;          /* a split counts when p <= alpha; in (0, 1) */
    unsigned permutations; /* shuffles a test makes, >= 1 (199 is usual) */
    size_t min_segment;    /* fewest points on each side of a split, >= 2 */
    uint64_t seed;         /* seeds the shuffles */
} sb_cp_options;

/* alpha 0.05, 199 permutations, min_segment 3, seed 1. */
sb_cp_options sb_cp_defaults(void);

typedef struct sb_changepoint {
    size_t index;  /* first point after the change: x[index] starts the new segment */
    double q;      /* the divergence of the split when it was found */
    double p;      /* its permutation p-value */
    double before; /* median of the segment ending at index */
    double after;  /* median of the segment starting at index */
    double shift;  /* (after - before) / before */
} sb_changepoint;

/* The change points of x[0..n) (finite values), in index order, into *out
 * (malloc'd, NULL when none) and *count. A series shorter than
 * 2 * min_segment has none. SB_ERR for bad options, a value that is not
 * finite, or no memory. */
int sb_changepoints(const double *x, size_t n, const sb_cp_options *opt, sb_changepoint **out,
                    size_t *count, sb_error *err);

/* q of the split of x[0..n) at tau (2 <= tau <= n - 2), computed
 * directly; NAN otherwise. */
double sb_cp_divergence(const double *x, size_t n, size_t tau);

#endif
