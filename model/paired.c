/* paired.c - per-round ratios and their intervals (paired.h). */
#include "paired.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

int sb_round_medians(const char *json, double **out, size_t *n, sb_error *err)
{
    *out = NULL;
    *n = 0;
    json_error_t je;
    json_t *root = json ? json_loads(json, JSON_REJECT_DUPLICATES, &je) : NULL;
    if (!root || !json_is_array(root) || json_array_size(root) == 0) {
        json_decref(root);
        return sb_error_set(err, NULL, NULL, "samples: not an array of rounds");
    }
    size_t rounds = json_array_size(root), most = 0;
    for (size_t r = 0; r < rounds; r++) {
        json_t *row = json_array_get(root, r);
        if (!json_is_array(row) || json_array_size(row) == 0) {
            json_decref(root);
            return sb_error_set(err, NULL, NULL, "samples: round %zu is not a non-empty array", r);
        }
        if (json_array_size(row) > most)
            most = json_array_size(row);
    }
    double *med = malloc(rounds * sizeof *med), *tmp = malloc(most * sizeof *tmp);
    if (!med || !tmp) {
        free(med);
        free(tmp);
        json_decref(root);
        return sb_error_set(err, NULL, NULL, "samples: out of memory");
    }
    for (size_t r = 0; r < rounds; r++) {
        json_t *row = json_array_get(root, r);
        size_t k = json_array_size(row);
        for (size_t i = 0; i < k; i++) {
            json_t *v = json_array_get(row, i);
            tmp[i] = json_is_number(v) ? json_number_value(v) : NAN;
        }
        med[r] = sb_median(tmp, k);
        if (!(med[r] >= SB_ROUND_MEDIAN_MIN_MS && med[r] <= SB_ROUND_MEDIAN_MAX_MS)) {
            double m = med[r];
            free(med);
            free(tmp);
            json_decref(root);
            /* A median that is not finite would print as "inf" or "nan":
             * say what made it so instead. */
            if (isnan(m))
                return sb_error_set(err, NULL, NULL, "samples: round %zu holds a value that is not a number", r);
            if (isinf(m))
                return sb_error_set(err, NULL, NULL,
                                    "samples: round %zu has a median past the largest number (its middle values "
                                    "overflow when averaged), outside %g to %g ms",
                                    r, SB_ROUND_MEDIAN_MIN_MS, SB_ROUND_MEDIAN_MAX_MS);
            return sb_error_set(err, NULL, NULL, "samples: round %zu has median %g ms, outside %g to %g ms", r,
                                m, SB_ROUND_MEDIAN_MIN_MS, SB_ROUND_MEDIAN_MAX_MS);
        }
    }
    free(tmp);
    json_decref(root);
    *out = med;
    *n = rounds;
    return SB_OK;
}

/* The regularized incomplete beta function I_x(a, b) by its continued
 * fraction (modified Lentz), on the side where it converges fast. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
    double f = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + num * d;
        c = 1.0 + num / c;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = fabs(c) < tiny ? tiny : c;
        f *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + num * d;
        c = 1.0 + num / c;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = fabs(c) < tiny ? tiny : c;
        double step = d * c;
        f *= step;
        if (fabs(step - 1.0) < 1e-15)
            break;
    }
    return f;
}

static double beta_reg(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(lfront) * beta_cf(a, b, x) / a;
    return 1.0 - exp(lgamma(a + b) - lgamma(a) - lgamma(b) + b * log1p(-x) + a * log(x)) *
                     beta_cf(b, a, 1.0 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double student_t_cdf(double t, double df)
{
    double tail = 0.5 * beta_reg(0.5 * df, 0.5, df / (df + t * t));
    return t >= 0.0 ? 1.0 - tail : tail;
}

double sb_student_t_quantile(double p, double df)
{
    if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
        return NAN;
    if (p == 0.5)
        return 0.0;
    /* bisection on the monotone CDF over [-1e6, 1e6] (cdf(lo) < p <=
     * cdf(hi) throughout) down to the double's resolution: once the
     * midpoint is an end, every later halving leaves both ends as they
     * are, so the search stops there (about 75 halvings, not 200) */
    double lo = -1e6, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi)
            break;
        if (student_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* out's ratio and interval from the mean log ratio, its standard error and
 * the degrees of freedom of the t quantile. */
static void set_interval(double mean, double se, double df, double level, size_t n, sb_paired *out)
{
    double q = sb_student_t_quantile(0.5 + 0.5 * level, df);
    out->n = n;
    out->ratio = exp(mean);
    out->lo = exp(mean - q * se);
    out->hi = exp(mean + q * se);
    out->log_se = se;
}

int sb_paired_ratio(const double *a, const double *b, size_t n, double level, sb_paired *out, sb_error *err)
{
    if (n < 2)
        return sb_error_set(err, NULL, NULL, "a paired ratio needs at least 2 rounds, not %zu", n);
    if (!(level > 0.0 && level < 1.0))
        return sb_error_set(err, NULL, NULL, "confidence level %g is not in (0, 1)", level);
    double sum = 0.0, sum2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(a[i] > 0.0) || !(b[i] > 0.0) || !isfinite(a[i]) || !isfinite(b[i]))
            return sb_error_set(err, NULL, NULL, "round %zu: times must be positive and finite", i);
        sum += log(b[i] / a[i]);
    }
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = log(b[i] / a[i]) - mean;
        sum2 += d * d;
    }
    set_interval(mean, sqrt(sum2 / (double)(n - 1)) / sqrt((double)n), (double)(n - 1), level, n, out);
    return SB_OK;
}

int sb_paired_geomean(const sb_paired *v, size_t k, double level, sb_paired *out, sb_error *err)
{
    if (k == 0)
        return sb_error_set(err, NULL, NULL, "a geometric mean of no ratios");
    if (!(level > 0.0 && level < 1.0))
        return sb_error_set(err, NULL, NULL, "confidence level %g is not in (0, 1)", level);
    double sum = 0.0, var = 0.0;
    size_t rounds = (size_t)-1;
    for (size_t i = 0; i < k; i++) {
        if (!(v[i].ratio > 0.0) || !isfinite(v[i].log_se))
            return sb_error_set(err, NULL, NULL, "ratio %zu is not a positive paired ratio", i);
        sum += log(v[i].ratio);
        var += v[i].log_se * v[i].log_se;
        if (v[i].n < rounds)
            rounds = v[i].n;
    }
    /* the fewest rounds of any case bound the degrees of freedom */
    set_interval(sum / (double)k, sqrt(var) / (double)k, (double)(rounds > 1 ? rounds - 1 : 1), level, rounds,
                 out);
    return SB_OK;
}

sb_paired_verdict sb_paired_judge(const sb_paired *p, double threshold)
{
    double up = 1.0 + threshold, down = 1.0 / (1.0 + threshold);
    if (p->lo > 1.0 && p->ratio > up)
        return SB_PAIRED_SLOWER;
    if (p->hi < 1.0 && p->ratio < down)
        return SB_PAIRED_FASTER;
    if (p->lo >= down && p->hi <= up)
        return SB_PAIRED_SAME;
    return SB_PAIRED_INCONCLUSIVE;
}

const char *sb_paired_verdict_name(sb_paired_verdict v)
{
    static const char *const names[] = {"same", "faster", "slower", "inconclusive"};
    return (unsigned)v < 4 ? names[v] : "unknown";
}
