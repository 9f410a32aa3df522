/* paired.h - ratios between runs of one measuring session, round by round
 * (docs/SESSIONS.md says why a ratio is taken only so).
 *
 * A session measures every provider once a round; within a round the
 * providers share the card's state (clocks, temperature, neighbours), so
 * the ratio of two providers' medians in the same round cancels what
 * drifts between rounds. The paired ratio is the geometric mean over the
 * rounds of those per-round ratios, with a Student-t interval on their
 * logarithms. Nothing here reads a database or a file. */
#ifndef SOLBOOK_MODEL_PAIRED_H
#define SOLBOOK_MODEL_PAIRED_H

#include <stddef.h>

#include "error.h"

/* The range a round's median time (ms) must lie in to be paired: no GPU
 * timer resolves less than a nanosecond, and between the two ends the
 * ratio of two rounds (at most 1e15) and its logarithm stay far inside
 * a double's range, so no paired ratio, interval or geometric mean of
 * stored runs overflows to infinity or underflows to zero. */
#define SB_ROUND_MEDIAN_MIN_MS 1e-6
#define SB_ROUND_MEDIAN_MAX_MS 1e9

/* The median of each round of a samples array in JSON text (one array of
 * numbers a round, as timing.samples and timing.kernel.samples hold them)
 * into *out (malloc'd, *n rounds). SB_ERR with a one-line message for
 * text that is not such an array, an empty round, or a round whose median
 * is outside [SB_ROUND_MEDIAN_MIN_MS, SB_ROUND_MEDIAN_MAX_MS]. */
int sb_round_medians(const char *json, double **out, size_t *n, sb_error *err);

typedef struct sb_paired {
    size_t n;      /* rounds paired */
    double ratio;  /* geometric mean over the rounds of b[i] / a[i] */
    double lo, hi; /* the interval of ratio at the level asked for */
    double log_se; /* standard error of the mean log ratio */
} sb_paired;

/* b over a, round by round, n >= 2 rounds of positive values, at a
 * confidence level in (0, 1) (0.95 for 95%). SB_ERR otherwise. */
int sb_paired_ratio(const double *a, const double *b, size_t n, double level, sb_paired *out,
                    sb_error *err);

/* The geometric mean of k paired ratios (cases of one comparison), its
 * interval from the cases' own standard errors (the measurement's
 * uncertainty; how much the ratio varies from case to case is a fact of
 * the cases, not noise, and shows in their spread, not here). */
int sb_paired_geomean(const sb_paired *v, size_t k, double level, sb_paired *out, sb_error *err);

/* What a paired ratio of times (new over old, or provider over provider)
 * says, with `threshold` the smallest relative change that counts:
 * SLOWER when the whole interval is above 1 and the ratio above
 * 1 + threshold; FASTER when the interval is below 1 and the ratio below
 * 1 / (1 + threshold); SAME when the interval lies inside
 * [1 / (1 + threshold), 1 + threshold]; INCONCLUSIVE otherwise. */
typedef enum { SB_PAIRED_SAME, SB_PAIRED_FASTER, SB_PAIRED_SLOWER, SB_PAIRED_INCONCLUSIVE } sb_paired_verdict;
sb_paired_verdict sb_paired_judge(const sb_paired *p, double threshold);
const char *sb_paired_verdict_name(sb_paired_verdict v);

/* The p-quantile of Student's t with df > 0 degrees of freedom. */
double sb_student_t_quantile(double p, double df);

#endif
