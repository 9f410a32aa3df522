/* rg_stored.c - freeing the stored history's records. */
#include "rg_stored.h"

#include <stdlib.h>
#include <string.h>

void sb_rg_groups_free(sb_rg_group_rec *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].case_key);
        free(v[i].provider);
        free(v[i].sku);
    }
    free(v);
}

void sb_rg_commits_free(sb_rg_commit_rec *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].sha);
    free(v);
}

void sb_rg_stored_free(sb_rg_stored *s)
{
    sb_rg_groups_free(s->groups, s->ngroups);
    for (size_t i = 0; s->latest && i < s->nlatest; i++)
        free((char *)s->latest[i].changed);
    free(s->latest);
    free(s->latest_from);
    free(s->figs);
    free(s->noise);
    free(s->noise_first);
    memset(s, 0, sizeof *s);
}

void sb_rg_writes_free(sb_rg_writes *w)
{
    sb_rg_commits_free(w->commits, w->ncommits);
    for (size_t i = 0; w->classes && i < w->nclasses; i++)
        free(w->classes[i]);
    free(w->classes);
    free(w->noise);
    for (size_t i = 0; w->groups && i < w->ngroups; i++) {
        free(w->groups[i].case_key);
        free(w->groups[i].provider);
        free(w->groups[i].sku);
    }
    free(w->groups);
    for (size_t i = 0; w->steps && i < w->nsteps; i++)
        if (*w->steps[i].changed)
            free((char *)w->steps[i].changed);
    free(w->steps);
    memset(w, 0, sizeof *w);
}

int sb_rg_stored_latest_runs(const sb_rg_stored *s, long long **ids, size_t *n, sb_error *err)
{
    *n = 0;
    if (!(*ids = malloc((2 * s->nlatest + 1) * sizeof **ids)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < s->nlatest; i++) {
        if (s->latest[i].old_run >= 0)
            (*ids)[(*n)++] = s->latest[i].old_run;
        (*ids)[(*n)++] = s->latest[i].new_run;
    }
    return SB_OK;
}
