/* stats.c - median, geomean, Mann-Whitney U, Benjamini-Hochberg (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sb_sort_ascending(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}

/* Partitions v[lo..hi] (inclusive, hi > lo) around the median of its
 * first, middle and last values; returns the pivot's final index, every
 * value before it no larger and every value after it no smaller. */
static size_t partition(double *v, size_t lo, size_t hi)
{
    size_t mid = lo + (hi - lo) / 2;
    double a = v[lo], b = v[mid], c = v[hi];
    size_t p = (a < b) == (b < c) ? mid : (b < a) == (a < c) ? lo : hi;
    double t = v[p];
    v[p] = v[hi];
    v[hi] = t;
    size_t store = lo;
    for (size_t i = lo; i < hi; i++)
        if (v[i] < t) {
            double x = v[i];
            v[i] = v[store];
            v[store++] = x;
        }
    v[hi] = v[store];
    v[store] = t;
    return store;
}

void sb_middle_values(double *v, size_t n, double *lower, double *upper)
{
    size_t k = (n - 1) / 2, lo = 0, hi = n - 1;
    /* quickselect; inputs that defeat its pivots (it takes about two
     * rounds a halving) are sorted instead, so no input costs more than a
     * sort */
    int rounds = 8;
    for (size_t m = n; m > 1; m /= 2)
        rounds += 2;
    while (lo < hi) {
        if (rounds-- == 0) {
            qsort(v + lo, hi - lo + 1, sizeof *v, cmp_double);
            break;
        }
        size_t p = partition(v, lo, hi);
        if (p == k)
            break;
        if (p < k)
            lo = p + 1;
        else
            hi = p - 1;
    }
    *lower = v[k];
    *upper = v[k];
    if (n % 2 == 0) {
        /* every value after k is no smaller: the upper middle is their least */
        double u = v[k + 1];
        for (size_t i = k + 2; i < n; i++)
            if (v[i] < u)
                u = v[i];
        *upper = u;
    }
}

double sb_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = sb_quantile_linear(c, n, 0.5);
    free(c);
    return m;
}

size_t sb_quantile_index(size_t n, double p)
{
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return i < n ? i : n - 1;
}

double sb_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    return sorted[sb_quantile_index(n, p)];
}

double sb_quantile_linear(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double pos = p * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double f = pos - (double)lo;
    /* halfway: the mean of the two, as a median of an even count is taken
     * (numpy's and Python's), which a + (b - a) / 2 can miss by an ulp */
    if (f == 0.5)
        return (sorted[lo] + sorted[hi]) / 2.0;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * f;
}

/* Sample standard deviation (n - 1) of v about its mean m; 0 for n < 2. */
static double sample_stdev(const double *v, size_t n, double m)
{
    if (n < 2)
        return 0.0;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    return sqrt(ss / (double)(n - 1));
}

double sb_relative_stdev(const double *v, size_t n)
{
    if (n < 2)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / (double)n;
    return mean > 0 ? sample_stdev(v, n, mean) / mean : 0.0;
}

int sb_sample_stats_of(const double *samples, const size_t *per_repeat, size_t repeats,
                       sb_sample_stats *out)
{
    size_t n = 0;
    for (size_t r = 0; r < repeats; r++)
        n += per_repeat[r];
    if (n == 0)
        return -1;
    double *all = malloc(n * sizeof *all);
    double *medians = malloc(repeats * sizeof *medians);
    if (!all || !medians) {
        free(all);
        free(medians);
        return -1;
    }
    memcpy(all, samples, n * sizeof *all);
    /* Each repeat sorted in place gives its median; the whole array sorted
     * after that gives the quantiles of all samples. */
    size_t k = 0, filled = 0;
    for (size_t r = 0; r < repeats; r++) {
        if (per_repeat[r] == 0)
            continue;
        qsort(all + k, per_repeat[r], sizeof *all, cmp_double);
        medians[filled++] = sb_quantile_linear(all + k, per_repeat[r], 0.5);
        k += per_repeat[r];
    }
    qsort(all, n, sizeof *all, cmp_double);
    double sum = 0; /* in ascending order, as the writers have always summed */
    for (size_t i = 0; i < n; i++)
        sum += all[i];
    out->count = n;
    out->min = all[0];
    out->p20 = sb_quantile_linear(all, n, 0.2);
    out->median = sb_quantile_linear(all, n, 0.5);
    out->p80 = sb_quantile_linear(all, n, 0.8);
    out->max = all[n - 1];
    out->mean = sum / (double)n;
    out->stdev = sample_stdev(all, n, out->mean);
    out->rel_noise = out->mean > 0 ? out->stdev / out->mean : 0.0;
    out->repeat_spread = sb_relative_stdev(medians, filled);
    free(all);
    free(medians);
    return 0;
}

double sb_aa_threshold(double aa_change, double floor)
{
    return 1.5 * aa_change > floor ? 1.5 * aa_change : floor;
}

double sb_aa_change(const double *sorted, size_t n)
{
    return sb_quantile_sorted(sorted, n, SB_AA_QUANTILE);
}

double sb_geomean(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0) || !isfinite(v[i]))
            return NAN;
        s += log(v[i]);
    }
    return exp(s / (double)n);
}

typedef struct tagged {
    double v;
    int group; /* 0: a, 1: b */
} tagged;

/* 1: v[0..n) is in ascending order (no NaN). */
static int ascending(const double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (!(v[i - 1] <= v[i]))
            return 0;
    return 1;
}

static int cmp_tagged(const void *a, const void *b)
{
    const tagged *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return x->group - y->group;
}

/* The number of arrangements of n1 a's and n2 b's with U = k, k = 0..n1*n2
 * (malloc'd), by c(m, n, u) = c(m-1, n, u-n) + c(m, n-1, u); NULL when out
 * of memory. */
static double *arrangements(size_t n1, size_t n2)
{
    size_t umax = n1 * n2;
    /* cnt[j][k] for the current m: number of arrangements of m a's and j
     * b's with U = k. Rolling over m. */
    size_t w = umax + 1;
    double *prev = calloc((n2 + 1) * w, sizeof(double));
    double *cur = calloc((n2 + 1) * w, sizeof(double));
    double *out = malloc(w * sizeof(double));
    if (!prev || !cur || !out) {
        free(prev);
        free(cur);
        free(out);
        return NULL;
    }
    for (size_t j = 0; j <= n2; j++)
        prev[j * w + 0] = 1; /* m = 0: one arrangement, U = 0 */
    for (size_t m = 1; m <= n1; m++) {
        for (size_t j = 0; j <= n2; j++) {
            size_t top = m * j < w ? m * j : w - 1;
            for (size_t k = 0; k <= top; k++) {
                double c = 0;
                /* last element is an a: it exceeds all j b's -> adds j */
                if (k >= j)
                    c += prev[j * w + (k - j)];
                /* last element is a b: adds nothing */
                if (j > 0)
                    c += cur[(j - 1) * w + k];
                cur[j * w + k] = c;
            }
            /* what the previous round left above this row's reach */
            if (top + 1 < w)
                memset(cur + j * w + top + 1, 0, (w - top - 1) * sizeof(double));
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    memcpy(out, prev + n2 * w, w * sizeof(double));
    free(prev);
    free(cur);
    return out;
}

/* P(U <= u) and P(U >= u) under H0 without ties. */
static void exact_tails(size_t n1, size_t n2, double u, sb_mw_cache *cache, double *lower,
                        double *upper)
{
    double *counts = cache && cache->counts && cache->n1 == n1 && cache->n2 == n2 ? cache->counts
                                                                                     : NULL;
    if (!counts) {
        counts = arrangements(n1, n2);
        if (!counts) {
            *lower = *upper = 1;
            return;
        }
        if (cache) {
            free(cache->counts);
            cache->counts = counts;
            cache->n1 = n1;
            cache->n2 = n2;
        }
    }
    double total = 0, lo = 0, hi = 0;
    for (size_t k = 0; k <= n1 * n2; k++) {
        double c = counts[k];
        total += c;
        if ((double)k <= u + 1e-9)
            lo += c;
        if ((double)k >= u - 1e-9)
            hi += c;
    }
    *lower = lo / total;
    *upper = hi / total;
    if (!cache)
        free(counts);
}

/* The two-sided p of a test with ties, exact: under H0 every choice of
 * n1 of the n pooled values for the first sample is equally likely; the
 * p-value is twice the smaller tail of the rank sum at the observed one,
 * as without ties (so no p falls below sb_mw_result.min_p where ties make
 * the distribution lopsided). rank2[i] is twice the mid-rank of
 * pooled value i (an integer); r1_2 twice the observed rank sum of the
 * first sample. Counts by c(k, s) over the values one at a time: the
 * choices of k values whose doubled ranks sum to s. Only the nearer tail
 * is counted: the first sample's sum at or below r1_2, or, where r1_2 is
 * past the middle, the second sample's sum at or below all - r1_2 (the
 * same choices seen from the values left out); the other tail is the
 * total C(n, n1) less that one plus the shared point. The counts are
 * integers below 2^53 (n is at most 40), so every sum is exact. -1 when
 * out of memory. */
static double exact_tied_p(const unsigned *rank2, size_t n, size_t n1, unsigned long r1_2)
{
    unsigned long all = 0;
    for (size_t i = 0; i < n; i++)
        all += rank2[i];
    int from_second = r1_2 > all - r1_2;
    size_t kk = from_second ? n - n1 : n1;
    unsigned long at = from_second ? all - r1_2 : r1_2;
    double tail = 1, point = 1;
    /* at the least sum kk values can have (twice 1 + ... + kk), the
     * counted side holds the kk lowest values with no tie reaching past
     * them, and no other choice comes that low: one choice, no counting */
    if (at != (unsigned long)kk * (kk + 1)) {
        size_t w = (size_t)at + 1;
        double *c = calloc((kk + 1) * w, sizeof *c);
        if (!c)
            return -1.0;
        c[0] = 1;
        unsigned long reach = 0; /* the largest sum the values so far reach */
        for (size_t i = 0; i < n; i++) {
            reach += rank2[i];
            size_t top = reach < w ? (size_t)reach : w - 1;
            for (size_t k = (i + 1 < kk ? i + 1 : kk); k > 0; k--)
                for (size_t s = rank2[i]; s <= top; s++)
                    c[k * w + s] += c[(k - 1) * w + s - rank2[i]];
        }
        tail = 0;
        for (size_t s = 0; s < w; s++)
            tail += c[kk * w + s];
        point = c[kk * w + at];
        free(c);
    }
    double total = 1; /* C(n, n1), exact: every partial product is C(n, k) * (n - k) < 2^53 */
    for (size_t k = 0; k < n1; k++)
        total = total * (double)(n - k) / (double)(k + 1);
    double other = total - tail + point;
    double lo = from_second ? other : tail, hi = from_second ? tail : other;
    return total > 0 ? fmin(1.0, 2.0 * fmin(lo, hi) / total) : 1.0;
}

void sb_mw_cache_free(sb_mw_cache *c)
{
    free(c->counts);
    memset(c, 0, sizeof *c);
}

int sb_mann_whitney(const double *a, size_t n1, const double *b, size_t n2, sb_mw_result *out)
{
    return sb_mann_whitney_cached(a, n1, b, n2, NULL, out);
}

int sb_mann_whitney_cached(const double *a, size_t n1, const double *b, size_t n2,
                           sb_mw_cache *cache, sb_mw_result *out)
{
    memset(out, 0, sizeof *out);
    if (n1 == 0 || n2 == 0)
        return -1;
    size_t n = n1 + n2;
    tagged *t = malloc(n * sizeof *t);
    if (!t)
        return -1;
    if (ascending(a, n1) && ascending(b, n2)) {
        /* both already sorted (a history sorts each run's samples once
         * for its median): a merge gives the order cmp_tagged gives, a's
         * value first on a tie */
        size_t i = 0, j = 0, k = 0;
        while (i < n1 || j < n2)
            t[k++] = j == n2 || (i < n1 && a[i] <= b[j]) ? (tagged){a[i++], 0} : (tagged){b[j++], 1};
    } else {
        for (size_t i = 0; i < n1; i++)
            t[i] = (tagged){a[i], 0};
        for (size_t i = 0; i < n2; i++)
            t[n1 + i] = (tagged){b[i], 1};
        qsort(t, n, sizeof *t, cmp_tagged);
    }
    unsigned *rank2 = malloc(n * sizeof *rank2);
    if (!rank2) {
        free(t);
        return -1;
    }
    double r1 = 0, tie_term = 0;
    unsigned long r1_2 = 0;
    int ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && t[j + 1].v == t[i].v)
            j++;
        double rank = (double)(i + j) / 2.0 + 1.0;
        double tcount = (double)(j - i + 1);
        if (j > i) {
            ties = 1;
            tie_term += tcount * tcount * tcount - tcount;
        }
        for (size_t k = i; k <= j; k++) {
            rank2[k] = (unsigned)(i + j + 2);
            if (t[k].group == 0) {
                r1 += rank;
                r1_2 += rank2[k];
            }
        }
        i = j + 1;
    }
    free(t);
    double dn1 = (double)n1, dn2 = (double)n2, dn = (double)n;
    double u = r1 - dn1 * (dn1 + 1) / 2.0;
    out->u = u;
    out->min_p = fmin(1.0, 2.0 * exp(lgamma(dn1 + 1) + lgamma(dn2 + 1) - lgamma(dn + 1)));
    if (n1 <= 20 && n2 <= 20) {
        /* Small samples are exact, ties or not: the normal approximation
         * is poor there (5 round medians against 5 that do not overlap
         * but hold a tie get p = 0.012 from it, 2/252 exactly), and round
         * medians of a timer's ticks tie often. */
        if (ties) {
            double p = exact_tied_p(rank2, n, n1, r1_2);
            free(rank2);
            if (p < 0)
                return -1;
            out->p = p;
        } else {
            free(rank2);
            double lo, hi;
            exact_tails(n1, n2, u, cache, &lo, &hi);
            out->p = fmin(1.0, 2.0 * fmin(lo, hi));
        }
        out->exact = 1;
        return 0;
    }
    free(rank2);
    double mu = dn1 * dn2 / 2.0;
    double var = dn1 * dn2 / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    if (!(var > 0)) {
        out->p = 1.0;
        return 0;
    }
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    out->p = fmin(1.0, erfc(z / sqrt(2.0)));
    return 0;
}

typedef struct ranked_p {
    double p;
    size_t at;
} ranked_p;

static int cmp_ranked_p(const void *a, const void *b)
{
    const ranked_p *x = a, *y = b;
    if (x->p != y->p)
        return (x->p > y->p) - (x->p < y->p);
    return (x->at > y->at) - (x->at < y->at);
}

int sb_benjamini_hochberg(const double *p, size_t n, double q, double *adjusted, int *discovery)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(p[i] >= 0 && p[i] <= 1))
            return -1;
    ranked_p *r = malloc(n * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < n; i++)
        r[i] = (ranked_p){p[i], i};
    qsort(r, n, sizeof *r, cmp_ranked_p);
    /* step up: the largest rank k (1-based) with p_(k) <= k q / n */
    size_t k = 0;
    for (size_t i = n; i > 0; i--)
        if (r[i - 1].p <= (double)i * q / (double)n) {
            k = i;
            break;
        }
    double running = 1.0;
    for (size_t i = n; i > 0; i--) {
        double a = r[i - 1].p * (double)n / (double)i;
        if (a < running)
            running = a;
        if (adjusted)
            adjusted[r[i - 1].at] = running;
        if (discovery)
            discovery[r[i - 1].at] = i <= k;
    }
    free(r);
    return 0;
}

int sb_clock_stats_of(const double *ms, const double *mhz, size_t n, sb_clock_stats *out)
{
    if (n == 0)
        return -1;
    double *below = malloc(2 * n * sizeof *below);
    if (!below)
        return -1;
    double *top = below + n;
    double lo = mhz[0], hi = mhz[0], mean_t = 0, mean_c = 0;
    for (size_t i = 0; i < n; i++) {
        lo = mhz[i] < lo ? mhz[i] : lo;
        hi = mhz[i] > hi ? mhz[i] : hi;
        mean_t += ms[i];
        mean_c += mhz[i];
    }
    mean_t /= (double)n;
    mean_c /= (double)n;
    size_t nb = 0, nt = 0;
    double stt = 0, scc = 0, stc = 0;
    for (size_t i = 0; i < n; i++) {
        if (mhz[i] < 0.99 * hi)
            below[nb++] = ms[i];
        else
            top[nt++] = ms[i];
        stt += (ms[i] - mean_t) * (ms[i] - mean_t);
        scc += (mhz[i] - mean_c) * (mhz[i] - mean_c);
        stc += (ms[i] - mean_t) * (mhz[i] - mean_c);
    }
    out->count = n;
    out->min_mhz = lo;
    out->max_mhz = hi;
    out->median_mhz = sb_median(mhz, n);
    out->below = nb;
    out->median_ms_below = nb ? sb_median(below, nb) : NAN;
    out->median_ms_top = nt ? sb_median(top, nt) : NAN;
    out->time_clock_r = stt > 0 && scc > 0 ? stc / sqrt(stt * scc) : NAN;
    free(below);
    return 0;
}
