/* results.c - the latest run of each case, card and package lists (results.h). */
#include "results.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_arch_rank(const char *arch)
{
    if (strcmp(arch, "a100") == 0)
        return 0;
    if (strcmp(arch, "h100") == 0)
        return 1;
    if (strcmp(arch, "h200") == 0)
        return 2;
    return 3;
}

static int newer(const sb_result *a, const sb_result *b)
{
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch > b->finished_epoch;
    return a->run_id > b->run_id;
}

static int cmp_provider_sku(const void *a, const void *b)
{
    const sb_result *x = *(const sb_result *const *)a, *y = *(const sb_result *const *)b;
    int c = strcmp(x->provider, y->provider);
    return c ? c : strcmp(x->sku, y->sku);
}

int sb_picks_latest(const sb_result_set *s, sb_pick **out, size_t *n, sb_error *err)
{
    *out = NULL;
    *n = 0;
    if (s->n == 0)
        return SB_OK;
    sb_pick *p = calloc(s->n, sizeof *p);
    if (!p)
        return sb_error_set(err, NULL, NULL, "out of memory");
    size_t np = 0;
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        const sb_result *best = &s->v[i];
        while (j + 1 < s->n && strcmp(s->v[j + 1].case_key, s->v[i].case_key) == 0 &&
               strcmp(s->v[j + 1].provider, s->v[i].provider) == 0 &&
               strcmp(s->v[j + 1].sku, s->v[i].sku) == 0) {
            j++;
            if (newer(&s->v[j], best))
                best = &s->v[j];
        }
        p[np++].r = best;
        i = j + 1;
    }
    /* Newest commit of each (provider, SKU) over all runs in the set:
     * sort pointers by (provider, SKU), take the newest of each group,
     * then look each pick's group up by binary search. */
    const sb_result **by = malloc(s->n * sizeof *by);
    if (!by) {
        free(p);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    for (size_t i = 0; i < s->n; i++)
        by[i] = &s->v[i];
    if (s->n) /* qsort(NULL, 0, ...) is undefined */
        qsort(by, s->n, sizeof *by, cmp_provider_sku);
    size_t ng = 0;
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        const sb_result *newest = by[i];
        while (j + 1 < s->n && cmp_provider_sku(&by[j + 1], &by[i]) == 0) {
            j++;
            if (newer(by[j], newest))
                newest = by[j];
        }
        by[ng++] = newest; /* group heads, still in (provider, SKU) order */
        i = j + 1;
    }
    for (size_t k = 0; k < np; k++) {
        const sb_result *key = p[k].r;
        const sb_result **hit = bsearch(&key, by, ng, sizeof *by, cmp_provider_sku);
        p[k].stale = hit && strcmp((*hit)->git_sha, key->git_sha) != 0;
    }
    free(by);
    *out = p;
    *n = np;
    return SB_OK;
}

/* Picks keep the set's order: case_key, provider, SKU (SQLite's binary
 * collation, the same order as strcmp). */
static int pick_key_cmp(const char *case_key, const char *provider, const char *sku,
                        const sb_result *r)
{
    int c = strcmp(case_key, r->case_key);
    if (!c)
        c = strcmp(provider, r->provider);
    if (!c)
        c = strcmp(sku, r->sku);
    return c;
}

const sb_pick *sb_pick_find(const sb_pick *picks, size_t n, const char *case_key,
                            const char *provider, const char *sku)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = pick_key_cmp(case_key, provider, sku, picks[mid].r);
        if (c == 0)
            return &picks[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}


void sb_sort_skus(const char **sku, const char **arch, size_t n)
{
    /* insertion sort: a handful of cards */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            int c = sb_arch_rank(arch[j - 1]) - sb_arch_rank(arch[j]);
            if (!c)
                c = strcmp(arch[j - 1], arch[j]);
            if (!c)
                c = strcmp(sku[j - 1], sku[j]);
            if (c <= 0)
                break;
            const char *t = sku[j];
            sku[j] = sku[j - 1];
            sku[j - 1] = t;
            t = arch[j];
            arch[j] = arch[j - 1];
            arch[j - 1] = t;
        }
}

void sb_packages_list(const char *packages_json, sb_buf *out)
{
    json_t *po = packages_json ? json_loads(packages_json, 0, NULL) : NULL;
    const char *k;
    json_t *v;
    json_object_foreach(po, k, v) {
        char item[256];
        snprintf(item, sizeof item, "%s %s", k, json_string_value(v) ? json_string_value(v) : "?");
        size_t li = strlen(item);
        int seen = 0;
        const char *t = sb_buf_str(out);
        for (const char *p = t; !seen && (p = strstr(p, item)) != NULL; p++)
            seen = (p == t || p[-1] == ' ') && (p[li] == ',' || p[li] == '\0');
        if (!seen)
            sb_buf_printf(out, "%s%s", out->len ? ", " : "", item);
    }
    json_decref(po);
}
