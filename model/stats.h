/* stats.h - the statistics behind the tables: median, geometric mean,
 * the statistics of a result's samples and of the SM clock each ran at,
 * the two-sided Mann-Whitney U test
 * used by regression checks, and the Benjamini-Hochberg procedure over
 * many such tests.
 */
#ifndef SOLBOOK_REPORT_STATS_H
#define SOLBOOK_REPORT_STATS_H

#include <stddef.h>

/* Median of n values (n > 0); the mean of the two middle values for even n.
 * Does not modify v. Returns NAN for n == 0 or when out of memory. */
double sb_median(const double *v, size_t n);

/* The two middle values of v's n values (n > 0) in *lower and *upper,
 * the same value for an odd n; reorders v. Any median lies between them.
 * NaN values are not allowed. */
void sb_middle_values(double *v, size_t n, double *lower, double *upper);

/* Sorts v (n values) ascending, for the quantiles below. */
void sb_sort_ascending(double *v, size_t n);

/* The value of sorted (n > 0 values, ascending) at rank p in [0, 1],
 * the nearest of the n - 1 steps: p = 0.95 of 21 values is the 20th. */
double sb_quantile_sorted(const double *sorted, size_t n, double p);
/* The index into sorted that sb_quantile_sorted reads (n > 0). */
size_t sb_quantile_index(size_t n, double p);

/* The value of sorted (n > 0 values, ascending) at rank p in [0, 1],
 * interpolated linearly between the two order statistics around
 * p (n - 1) (numpy's default): what a result's percentiles are; the
 * halfway point is the mean of the two values, so p = 0.5 is sb_median. */
double sb_quantile_linear(const double *sorted, size_t n, double p);

/* The statistics of a result's samples (data/schemas/solbook.result.v1.json,
 * definitions/stats), the same for every writer of the format. */
typedef struct sb_sample_stats {
    size_t count;
    double min, p20, median, p80, max; /* sb_quantile_linear of the samples */
    double mean;
    double stdev;         /* n - 1 in the denominator; 0 with one sample */
    double rel_noise;     /* stdev / mean; 0 when the mean is 0 (every sample 0) */
    /* The stdev of the repeat medians over their mean (0 when that mean is
     * 0); NAN with fewer than two repeats that hold samples: one repeat
     * has no spread to give. */
    double repeat_spread;
} sb_sample_stats;

/* The standard deviation of v over its mean (n - 1 in the denominator;
 * 0 when the mean is 0), NAN when n < 2: a result's repeat_spread, of
 * its repeat medians, and the spread of a session run's round medians. */
double sb_relative_stdev(const double *v, size_t n);

/* Statistics of samples laid out repeat after repeat: repeat r holds
 * per_repeat[r] values (a repeat may hold none, and is then no repeat of
 * the spread). Every repeat counts, however many there are. -1 when there
 * are no samples or memory runs out, 0 otherwise. */
int sb_sample_stats_of(const double *samples, const size_t *per_repeat, size_t repeats,
                       sb_sample_stats *out);

/* What the SM clock of each sample says of a result (timing.
 * sample_sm_clock_mhz beside timing.samples): whether slow samples ran
 * throttled. */
typedef struct sb_clock_stats {
    size_t count;
    double min_mhz, median_mhz, max_mhz;
    /* samples more than 1% under the fastest sample's clock: a clock
     * measured over a sample varies by a few MHz without a throttle */
    size_t below;
    double median_ms_below, median_ms_top; /* their median time, and the others'; NAN when none */
    /* Pearson's r of sample time and clock: near -1 when the slow samples
     * are the low-clock ones; NAN when either is constant */
    double time_clock_r;
} sb_clock_stats;

/* The clock statistics of n > 0 samples ms[i], each run at clock mhz[i].
 * -1 when n is 0 or memory runs out, 0 otherwise. */
int sb_clock_stats_of(const double *ms, const double *mhz, size_t n, sb_clock_stats *out);

/* The smallest relative change a verdict counts, from the change A/A runs
 * of unchanged code showed (their largest, or a high percentile, as
 * |ratio - 1|): 1.5 times it, and never below floor. */
double sb_aa_threshold(double aa_change, double floor);

/* The A/A change a threshold is taken from (sb_aa_threshold's aa_change):
 * the 95th percentile (sb_quantile_sorted) of the |ratio - 1| of n > 0 A/A
 * comparisons, sorted ascending. Up to 10 comparisons that is their
 * largest; over more, one session that moved far from the others no
 * longer sets the threshold of every comparison alone. `solbook noise`
 * judges its held-out comparisons, and `report regressions` its steps,
 * with it (docs/SESSIONS.md). NAN when n is 0. */
#define SB_AA_QUANTILE 0.95
double sb_aa_change(const double *sorted, size_t n);

/* exp(mean(log v)); NAN unless every value is > 0 and n > 0. */
double sb_geomean(const double *v, size_t n);

typedef struct sb_mw_result {
    double u;        /* U of the first sample */
    double p;        /* two-sided p-value */
    int exact;       /* 1: exact (permutation) distribution; 0: normal approximation */
    double min_p;    /* smallest two-sided p any data of these sizes can give */
} sb_mw_result;

/* Two-sided Mann-Whitney U test of a (n1 values) against b (n2 values).
 * Exact when n1, n2 <= 20: the null distribution of U, or with ties the
 * permutation distribution of the rank sum with mid-ranks; otherwise the
 * normal approximation with tie correction and continuity correction.
 * All values tied gives p = 1. Returns -1 when n1 or n2 is 0 or memory
 * runs out, 0 on success. */
int sb_mann_whitney(const double *a, size_t n1, const double *b, size_t n2, sb_mw_result *out);

/* The exact null distribution of U for one pair of sample sizes, kept for
 * the next test of the same sizes (a history compares thousands of pairs
 * of equal sizes). Zero-initialise; free with sb_mw_cache_free. */
typedef struct sb_mw_cache {
    size_t n1, n2;
    double *counts;   /* arrangements with U = k, k = 0..n1*n2; NULL: empty */
} sb_mw_cache;

/* sb_mann_whitney with a cache (NULL: none). Samples already in
 * ascending order are merged instead of sorted again. */
int sb_mann_whitney_cached(const double *a, size_t n1, const double *b, size_t n2,
                           sb_mw_cache *cache, sb_mw_result *out);
void sb_mw_cache_free(sb_mw_cache *c);

/* Benjamini-Hochberg over n p-values (each in [0, 1]): adjusted[i] (may
 * be NULL) gets p[i]'s adjusted p-value, min over j with p_(j) >= p[i] of
 * min(1, n p_(j) / j) in the ascending order p_(1) <= ... <= p_(n);
 * discovery[i] (may be NULL) gets 1 where the step-up procedure at false
 * discovery rate q rejects p[i] (p_(i) <= k q / n for the largest such k
 * and every i <= k), which is where adjusted[i] <= q. Returns -1 for a
 * p-value that is NaN or outside [0, 1] or when memory runs out, 0
 * otherwise (n == 0 included). */
int sb_benjamini_hochberg(const double *p, size_t n, double q, double *adjusted, int *discovery);

#endif
