/* run_samples.c - the stored samples of a few runs (run_samples.h). */
#include "run_samples.h"

#include <stdlib.h>
#include <string.h>

void sb_run_samples_free(sb_run_samples *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->v[i]);
    free(s->run_id);
    free(s->v);
    free(s->n);
    memset(s, 0, sizeof *s);
}

int sb_run_samples_add(sb_run_samples *s, long long run_id, double *v, size_t n, sb_error *err)
{
    long long *ids = realloc(s->run_id, (s->count + 1) * sizeof *ids);
    if (ids)
        s->run_id = ids;
    double **vs = ids ? realloc(s->v, (s->count + 1) * sizeof *vs) : NULL;
    if (vs)
        s->v = vs;
    size_t *ns = vs ? realloc(s->n, (s->count + 1) * sizeof *ns) : NULL;
    if (!ns) {
        free(v);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    s->n = ns;
    s->run_id[s->count] = run_id;
    s->v[s->count] = v;
    s->n[s->count] = n;
    s->count++;
    return SB_OK;
}

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int sb_run_samples_of(const sb_run_samples *s, long long run_id, const double **v, size_t *n)
{
    const long long *at = s->count ? bsearch(&run_id, s->run_id, s->count, sizeof *s->run_id, cmp_id) : NULL;
    if (!at)
        return 0;
    *v = s->v[at - s->run_id];
    *n = s->n[at - s->run_id];
    return 1;
}
