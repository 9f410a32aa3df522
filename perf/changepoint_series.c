/* changepoint_series.c - times sb_changepoints (model/changepoint.h) on
 * seeded series of per-commit medians: flat 1% noise, and the same with a
 * 5% step at the middle, each of the lengths given (default 1000), with
 * 199 permutations. Prints the change points found and the median wall
 * time of 5 runs. Run by perf/changepoint_series.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "changepoint.h"
#include "stats.h"

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double gaussian(uint64_t *s)
{
    double u1 = ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int run(size_t n, double step)
{
    double *x = malloc(n * sizeof *x);
    if (!x)
        return 2;
    uint64_t s = 12345;
    for (size_t i = 0; i < n; i++)
        x[i] = (i >= n / 2 ? 1 + step : 1.0) * (1 + 0.01 * gaussian(&s));
    sb_cp_options o = sb_cp_defaults();
    double t[5];
    sb_changepoint *cp = NULL;
    size_t k = 0;
    for (int r = 0; r < 5; r++) {
        sb_error e;
        free(cp);
        double t0 = now();
        if (sb_changepoints(x, n, &o, &cp, &k, &e) != SB_OK) {
            sb_error_print(&e, stderr);
            free(x);
            return 2;
        }
        t[r] = now() - t0;
    }
    printf("%zu points, %s: %zu change point(s)", n, step > 0 ? "5% step at the middle" : "flat", k);
    for (size_t i = 0; i < k; i++)
        printf(" [%zu p=%.3f shift=%+.2f%%]", cp[i].index, cp[i].p, 100 * cp[i].shift);
    double lo = t[0], hi = t[0];
    for (int r = 1; r < 5; r++) {
        lo = fmin(lo, t[r]);
        hi = fmax(hi, t[r]);
    }
    printf("; median of 5 runs %.3f s (min %.3f, max %.3f)\n", sb_median(t, 5), lo, hi);
    free(cp);
    free(x);
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc || i == 1; i++) {
        size_t n = argc > 1 ? strtoul(argv[i], NULL, 10) : 1000;
        if (run(n, 0) || run(n, 0.05))
            return 2;
    }
    return 0;
}
