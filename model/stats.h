/* stats.h - the statistics behind the tables: median, geometric mean,
 * the two-sided Mann-Whitney U test used by regression checks, and the
 * Benjamini-Hochberg procedure over many such tests.
 */
#ifndef SOLBOOK_REPORT_STATS_H
#define SOLBOOK_REPORT_STATS_H

#include <stddef.h>

/* Median of n values (n > 0); the mean of the two middle values for even n.
 * Does not modify v. Returns NAN for n == 0 or when out of memory. */
double sb_median(const double *v, size_t n);

/* The value of sorted (n > 0 values, ascending) at rank p in [0, 1],
 * the nearest of the n - 1 steps: p = 0.95 of 21 values is the 20th. */
double sb_quantile_sorted(const double *sorted, size_t n, double p);

/* The smallest relative change a verdict counts, from the change A/A runs
 * of unchanged code showed (their largest, or a high percentile, as
 * |ratio - 1|): 1.5 times it, and never below floor. */
double sb_aa_threshold(double aa_change, double floor);

/* exp(mean(log v)); NAN unless every value is > 0 and n > 0. */
double sb_geomean(const double *v, size_t n);

typedef struct sb_mw_result {
    double u;        /* U of the first sample */
    double p;        /* two-sided p-value */
    int exact;       /* 1: exact null distribution; 0: normal approximation */
    double min_p;    /* smallest two-sided p any data of these sizes can give */
} sb_mw_result;

/* Two-sided Mann-Whitney U test of a (n1 values) against b (n2 values).
 * Exact null distribution when there are no ties and n1, n2 <= 20;
 * otherwise the normal approximation with tie correction and continuity
 * correction. All values tied gives p = 1. Returns -1 when n1 or n2 is 0 or
 * memory runs out, 0 on success. */
int sb_mann_whitney(const double *a, size_t n1, const double *b, size_t n2, sb_mw_result *out);

/* The exact null distribution of U for one pair of sample sizes, kept for
 * the next test of the same sizes (a history compares thousands of pairs
 * of equal sizes). Zero-initialise; free with sb_mw_cache_free. */
typedef struct sb_mw_cache {
    size_t n1, n2;
    double *counts;   /* arrangements with U = k, k = 0..n1*n2; NULL: empty */
} sb_mw_cache;

/* sb_mann_whitney with a cache (NULL: none). */
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
