/* rg_store.c - freeing the stored history's records. */
#include "rg_store.h"

#include <stdlib.h>

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
