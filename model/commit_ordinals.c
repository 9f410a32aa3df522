/* commit_ordinals.c - naming, freeing and looking up the commits' git
 * ordinals (commit_ordinals.h). */
#include "commit_ordinals.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void sb_commit_ordinals_free(sb_commit_ordinals *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->sha[i]);
    free(c->sha);
    free(c->ordinal);
    memset(c, 0, sizeof *c);
}

static int cmp_sha(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const char *const *)a, y = (uintptr_t) * (const char *const *)b;
    return (x > y) - (x < y);
}

int sb_commit_ordinals_name(sb_commit_ordinals *c, const char *const *shas, size_t n, sb_error *err)
{
    const char **v = malloc((n ? n : 1) * sizeof *v);
    c->sha = calloc(n ? n : 1, sizeof *c->sha);
    c->ordinal = malloc((n ? n : 1) * sizeof *c->ordinal);
    if (!v || !c->sha || !c->ordinal) {
        free(v);
        sb_commit_ordinals_free(c);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    memcpy(v, shas, n * sizeof *v);
    /* the runs of a loaded set share one copy of each SHA's text: a sort
     * by address first leaves few to compare as text */
    qsort(v, n, sizeof *v, cmp_address);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || v[m - 1] != v[i])
            v[m++] = v[i];
    n = m;
    qsort(v, n, sizeof *v, cmp_sha);
    for (size_t i = 0; i < n; i++) {
        if (c->n && strcmp(c->sha[c->n - 1], v[i]) == 0)
            continue;
        if (!(c->sha[c->n] = strdup(v[i]))) {
            free(v);
            sb_commit_ordinals_free(c);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        c->ordinal[c->n++] = -1;
    }
    free(v);
    return SB_OK;
}

long long sb_commit_ordinal(const sb_commit_ordinals *c, const char *sha)
{
    const char **hit = c->n ? bsearch(&sha, c->sha, c->n, sizeof *c->sha, cmp_sha) : NULL;
    return hit ? c->ordinal[hit - (const char **)c->sha] : -1;
}
