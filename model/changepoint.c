/* changepoint.c - E-Divisive means change points (changepoint.h). */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* splitmix64: small, fast, and enough to shuffle a series. */
typedef struct cp_rng {
    uint64_t s;
} cp_rng;

static uint64_t rng_next(cp_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound > 0, without modulo bias. */
static uint64_t rng_below(cp_rng *r, uint64_t bound)
{
    uint64_t floor = (0 - bound) % bound;
    for (;;) {
        uint64_t v = rng_next(r);
        if (v >= floor)
            return v % bound;
    }
}

typedef struct cp_segment {
    size_t start, end; /* x[start..end) */
    int has_split;     /* 0: too short for a split */
    size_t tau;        /* best split, relative to start */
    double q;          /* its divergence */
} cp_segment;

/* Everything one search needs: options, generator, scratch of n values. */
typedef struct cp_context {
    sb_cp_options opt;
    cp_rng rng;
    double *left;  /* left[t] = sum over i < t of |y[t] - y[i]| */
    double *right; /* right[t] = sum over j > t of |y[t] - y[j]| */
    double *shuffled;
} cp_context;

/* The best split of y[0..L): its position and divergence; 0 when L is too
 * short to leave min_segment on each side. O(L^2) for the pairwise sums,
 * then O(L) for the scan: the within-side sums move by one row a step. */
static int best_split(cp_context *c, const double *y, size_t L, size_t *tau_out, double *q_out)
{
    size_t ms = c->opt.min_segment;
    if (L < 2 * ms)
        return 0;
    memset(c->left, 0, L * sizeof *c->left);
    memset(c->right, 0, L * sizeof *c->right);
    double total = 0;
    for (size_t t = 1; t < L; t++) {
        double s = 0;
        for (size_t i = 0; i < t; i++) {
            double d = fabs(y[t] - y[i]);
            s += d;
            c->right[i] += d;
        }
        c->left[t] = s;
        total += s;
    }
    double within_left = 0, within_right = total;
    size_t best_tau = 0;
    double best_q = -INFINITY;
    for (size_t t = 0; t + ms <= L; t++) {
        /* here the left side is y[0..t) */
        if (t >= ms) {
            double m = (double)t, k = (double)(L - t);
            double between = total - within_left - within_right;
            double q = m * k / (m + k) *
                       (2.0 * between / (m * k) - within_left / (m * (m - 1) / 2) -
                        within_right / (k * (k - 1) / 2));
            if (q > best_q) {
                best_q = q;
                best_tau = t;
            }
        }
        within_left += c->left[t];
        within_right -= c->right[t];
    }
    *tau_out = best_tau;
    *q_out = best_q;
    return 1;
}

static void evaluate(cp_context *c, const double *x, cp_segment *s)
{
    s->has_split = best_split(c, x + s->start, s->end - s->start, &s->tau, &s->q);
}

/* p of the largest divergence q over the current segments: each shuffle
 * permutes every segment within itself (the change points already found
 * stay) and takes the largest best divergence over them, as the search
 * itself does. Shuffles stop early once the count of those at least as
 * large rules out p <= alpha (the p then returned is the bound reached,
 * above alpha). */
static double permutation_p(cp_context *c, const double *x, const cp_segment *segs, size_t nseg,
                            double q)
{
    unsigned R = c->opt.permutations;
    double limit = c->opt.alpha * (R + 1.0);
    size_t n = 0;
    for (size_t s = 0; s < nseg; s++)
        if (segs[s].end > n)
            n = segs[s].end;
    memcpy(c->shuffled, x, n * sizeof *x);
    unsigned count = 0;
    for (unsigned r = 0; r < R; r++) {
        int reached = 0;
        for (size_t s = 0; s < nseg; s++) {
            double *y = c->shuffled + segs[s].start;
            size_t L = segs[s].end - segs[s].start;
            for (size_t i = L - 1; i > 0; i--) {
                size_t j = (size_t)rng_below(&c->rng, (uint64_t)i + 1);
                double t = y[i];
                y[i] = y[j];
                y[j] = t;
            }
            size_t tau;
            double qp;
            if (!reached && best_split(c, y, L, &tau, &qp) && qp >= q)
                reached = 1;
        }
        if (reached) {
            count++;
            if (1.0 + count > limit)
                break;
        }
    }
    return (1.0 + count) / (1.0 + R);
}

sb_cp_options sb_cp_defaults(void)
{
    sb_cp_options o = {0.05, 199, 3, 1};
    return o;
}

double sb_cp_divergence(const double *x, size_t n, size_t tau)
{
    if (tau < 2 || n < 4 || tau > n - 2)
        return NAN;
    double within_l = 0, within_r = 0, between = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double d = fabs(x[i] - x[j]);
            if (j < tau)
                within_l += d;
            else if (i >= tau)
                within_r += d;
            else
                between += d;
        }
    double m = (double)tau, k = (double)(n - tau);
    return m * k / (m + k) *
           (2.0 * between / (m * k) - within_l / (m * (m - 1) / 2) - within_r / (k * (k - 1) / 2));
}

static int cmp_cp(const void *a, const void *b)
{
    const sb_changepoint *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

int sb_changepoints(const double *x, size_t n, const sb_cp_options *opt, sb_changepoint **out,
                    size_t *count, sb_error *err)
{
    *out = NULL;
    *count = 0;
    if (!opt || !(opt->alpha > 0 && opt->alpha < 1) || opt->permutations < 1 || opt->min_segment < 2)
        return sb_error_set(err, NULL, NULL,
                            "change points: alpha must be in (0, 1), permutations >= 1, "
                            "min_segment >= 2");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return sb_error_set(err, NULL, NULL, "change points: value %zu is not finite", i);
    if (n < 2 * opt->min_segment)
        return SB_OK;

    cp_context c = {*opt, {opt->seed}, NULL, NULL, NULL};
    size_t max_segs = n / opt->min_segment + 1;
    c.left = malloc(n * sizeof *c.left);
    c.right = malloc(n * sizeof *c.right);
    c.shuffled = malloc(n * sizeof *c.shuffled);
    cp_segment *segs = malloc(max_segs * sizeof *segs);
    sb_changepoint *cps = malloc(max_segs * sizeof *cps);
    int rc = SB_OK;
    if (!c.left || !c.right || !c.shuffled || !segs || !cps) {
        rc = sb_error_set(err, NULL, NULL, "change points: out of memory");
        goto done;
    }
    size_t nseg = 1, ncp = 0;
    segs[0] = (cp_segment){0, n, 0, 0, 0};
    evaluate(&c, x, &segs[0]);
    for (;;) {
        size_t best = nseg;
        for (size_t i = 0; i < nseg; i++)
            if (segs[i].has_split && (best == nseg || segs[i].q > segs[best].q))
                best = i;
        if (best == nseg)
            break;
        cp_segment s = segs[best];
        double p = permutation_p(&c, x, segs, nseg, s.q);
        if (p > opt->alpha)
            break;
        cps[ncp++] = (sb_changepoint){s.start + s.tau, s.q, p, NAN, NAN, NAN};
        segs[best] = (cp_segment){s.start, s.start + s.tau, 0, 0, 0};
        segs[nseg] = (cp_segment){s.start + s.tau, s.end, 0, 0, 0};
        evaluate(&c, x, &segs[best]);
        evaluate(&c, x, &segs[nseg]);
        nseg++;
    }
    if (ncp == 0) {
        free(cps);
        cps = NULL;
        goto done;
    }
    qsort(cps, ncp, sizeof *cps, cmp_cp);
    for (size_t i = 0; i < ncp; i++) {
        size_t lo = i ? cps[i - 1].index : 0;
        size_t hi = i + 1 < ncp ? cps[i + 1].index : n;
        cps[i].before = sb_median(x + lo, cps[i].index - lo);
        cps[i].after = sb_median(x + cps[i].index, hi - cps[i].index);
        cps[i].shift = (cps[i].after - cps[i].before) / cps[i].before;
    }
    *out = cps;
    *count = ncp;
    cps = NULL;
done:
    free(cps);
    free(segs);
    free(c.left);
    free(c.right);
    free(c.shuffled);
    return rc;
}
