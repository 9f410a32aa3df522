/* run_details.c - what a report reads of a few runs beyond their stored
 * row, held read-only (run_details.h). */
#include "run_details.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of one metric of one run. */
typedef struct detail_series {
    long long run_id;
    char *metric;
    double *v;
    size_t n, cap;
    char unit[32];
} detail_series;

typedef struct detail_column {
    long long run_id;
    char *column;
    double value;
} detail_column;

typedef struct detail_clocks {
    long long run_id;
    sb_run_clocks c;
} detail_clocks;

typedef struct detail_arch {
    char *arch;
    long long runs;
} detail_arch;

/* A report asks for a handful of runs and archs: looked up by a linear
 * scan. */
struct sb_run_details {
    detail_series *series;
    size_t nseries, cap_series;
    detail_column *cols;
    size_t ncols, cap_cols;
    detail_clocks *clocks;
    size_t nclocks, cap_clocks;
    detail_arch *archs;
    size_t narchs, cap_archs;
};

/* Room for one more element of size sz in *v (n used, *cap allocated). */
static int grow(void *v, size_t n, size_t *cap, size_t sz)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? 2 * *cap : 8;
    void *p = realloc(*(void **)v, nc * sz);
    if (!p)
        return 0;
    *(void **)v = p;
    *cap = nc;
    return 1;
}

static int oom(sb_error *err)
{
    return sb_error_set(err, NULL, NULL, "out of memory reading the runs' details");
}

int sb_details_ask_run(sb_details_ask *a, long long run_id, sb_error *err)
{
    for (size_t i = 0; i < a->nruns; i++)
        if (a->runs[i] == run_id)
            return SB_OK;
    if (!grow(&a->runs, a->nruns, &a->cap_runs, sizeof *a->runs))
        return oom(err);
    a->runs[a->nruns++] = run_id;
    return SB_OK;
}

int sb_details_ask_arch(sb_details_ask *a, const char *arch, sb_error *err)
{
    for (size_t i = 0; i < a->narchs; i++)
        if (strcmp(a->archs[i], arch) == 0)
            return SB_OK;
    char *copy = strdup(arch);
    if (!copy || !grow(&a->archs, a->narchs, &a->cap_archs, sizeof *a->archs)) {
        free(copy);
        return oom(err);
    }
    a->archs[a->narchs++] = copy;
    return SB_OK;
}

void sb_details_ask_free(sb_details_ask *a)
{
    for (size_t i = 0; i < a->narchs; i++)
        free(a->archs[i]);
    free(a->archs);
    free(a->runs);
    memset(a, 0, sizeof *a);
}

sb_run_details *sb_run_details_new(void)
{
    return calloc(1, sizeof(sb_run_details));
}

static detail_series *series_find(const sb_run_details *d, long long run_id, const char *metric)
{
    for (size_t i = 0; i < d->nseries; i++)
        if (d->series[i].run_id == run_id && strcmp(d->series[i].metric, metric) == 0)
            return &d->series[i];
    return NULL;
}

int sb_run_details_add_value(sb_run_details *d, long long run_id, const char *metric,
                             double value, const char *unit, sb_error *err)
{
    detail_series *s = series_find(d, run_id, metric);
    if (!s) {
        char *name = strdup(metric);
        if (!name || !grow(&d->series, d->nseries, &d->cap_series, sizeof *d->series)) {
            free(name);
            return oom(err);
        }
        s = &d->series[d->nseries++];
        *s = (detail_series){.run_id = run_id, .metric = name};
    }
    if (!grow(&s->v, s->n, &s->cap, sizeof *s->v))
        return oom(err);
    s->v[s->n++] = value;
    snprintf(s->unit, sizeof s->unit, "%s", unit ? unit : "");
    return SB_OK;
}

int sb_run_details_set_column(sb_run_details *d, long long run_id, const char *column, double value,
                              sb_error *err)
{
    char *name = strdup(column);
    if (!name || !grow(&d->cols, d->ncols, &d->cap_cols, sizeof *d->cols)) {
        free(name);
        return oom(err);
    }
    d->cols[d->ncols++] = (detail_column){run_id, name, value};
    return SB_OK;
}

static void clocks_free(sb_run_clocks *c)
{
    free(c->clocks);
    free(c->reasons);
}

int sb_run_details_set_clocks(sb_run_details *d, long long run_id, sb_run_clocks c, sb_error *err)
{
    for (size_t i = 0; i < d->nclocks; i++)
        if (d->clocks[i].run_id == run_id) {
            clocks_free(&d->clocks[i].c);
            d->clocks[i].c = c;
            return SB_OK;
        }
    if (!c.clocks || !c.reasons || !grow(&d->clocks, d->nclocks, &d->cap_clocks, sizeof *d->clocks)) {
        clocks_free(&c);
        return oom(err);
    }
    d->clocks[d->nclocks++] = (detail_clocks){run_id, c};
    return SB_OK;
}

int sb_run_details_set_arch_runs(sb_run_details *d, const char *arch, long long n, sb_error *err)
{
    for (size_t i = 0; i < d->narchs; i++)
        if (strcmp(d->archs[i].arch, arch) == 0) {
            d->archs[i].runs = n;
            return SB_OK;
        }
    char *copy = strdup(arch);
    if (!copy || !grow(&d->archs, d->narchs, &d->cap_archs, sizeof *d->archs)) {
        free(copy);
        return oom(err);
    }
    d->archs[d->narchs++] = (detail_arch){copy, n};
    return SB_OK;
}

void sb_run_details_free(sb_run_details *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nseries; i++) {
        free(d->series[i].metric);
        free(d->series[i].v);
    }
    for (size_t i = 0; i < d->ncols; i++)
        free(d->cols[i].column);
    for (size_t i = 0; i < d->nclocks; i++)
        clocks_free(&d->clocks[i].c);
    for (size_t i = 0; i < d->narchs; i++)
        free(d->archs[i].arch);
    free(d->series);
    free(d->cols);
    free(d->clocks);
    free(d->archs);
    free(d);
}

size_t sb_run_details_values(const sb_run_details *d, long long run_id, const char *metric,
                             const double **v, const char **unit)
{
    const detail_series *s = series_find(d, run_id, metric);
    *v = s ? s->v : NULL;
    *unit = s ? s->unit : "";
    return s ? s->n : 0;
}

double sb_run_details_column(const sb_run_details *d, long long run_id, const char *column)
{
    for (size_t i = d->ncols; i-- > 0;)
        if (d->cols[i].run_id == run_id && strcmp(d->cols[i].column, column) == 0)
            return d->cols[i].value;
    return NAN;
}

const sb_run_clocks *sb_run_details_clocks(const sb_run_details *d, long long run_id)
{
    for (size_t i = 0; i < d->nclocks; i++)
        if (d->clocks[i].run_id == run_id)
            return &d->clocks[i].c;
    return NULL;
}

long long sb_run_details_arch_runs(const sb_run_details *d, const char *arch)
{
    for (size_t i = 0; i < d->narchs; i++)
        if (strcmp(d->archs[i].arch, arch) == 0)
            return d->archs[i].runs;
    return -1;
}
