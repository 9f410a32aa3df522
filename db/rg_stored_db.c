/* rg_stored_db.c - the stored regression history read at once (rg_stored_db.h). */
#include "rg_stored_db.h"

#include <stdlib.h>
#include <string.h>

#include "rg_steps.h"

/* Keeps a copy of one latest step (its changed text owned by out). */
static int keep_step(void *ctx, const sb_rg_step_rec *s, sb_error *err)
{
    sb_rg_stored *out = ctx;
    /* capacity: 64, then doubled each time the count reaches it */
    size_t n = out->nlatest;
    if (n == 0 || (n >= 64 && (n & (n - 1)) == 0)) {
        sb_rg_step_rec *nv = realloc(out->latest, (n ? 2 * n : 64) * sizeof *nv);
        if (!nv)
            return sb_error_set(err, NULL, NULL, "out of memory");
        out->latest = nv;
    }
    sb_rg_step_rec *d = &out->latest[out->nlatest];
    *d = *s;
    if (!(d->changed = strdup(s->changed ? s->changed : "")))
        return sb_error_set(err, NULL, NULL, "out of memory");
    out->nlatest++;
    return SB_OK;
}

static int cmp_group_key(const void *x, const void *y)
{
    const sb_rg_group_rec *a = *(const sb_rg_group_rec *const *)x, *b = *(const sb_rg_group_rec *const *)y;
    int c = strcmp(a->case_key, b->case_key);
    if (!c)
        c = strcmp(a->provider, b->provider);
    return c ? c : strcmp(a->sku, b->sku);
}

static int cmp_noise_seq(const void *x, const void *y)
{
    const sb_rg_noise_seq *a = x, *b = y;
    if (a->grp != b->grp)
        return (a->grp > b->grp) - (a->grp < b->grp);
    return (a->noise > b->noise) - (a->noise < b->noise);
}

/* For each cross-card threshold, the first group in key order whose
 * steps took it and the first seq there: groups are asked in that order,
 * each for the thresholds not yet found, until every one is. */
static int read_noise_firsts(sb_db *db, sb_rg_stored *out, sb_error *err)
{
    size_t ng = out->ngroups, nnz = out->nnoise;
    if (!nnz || !ng)
        return SB_OK;
    const sb_rg_group_rec **g = malloc(ng * sizeof *g);
    unsigned char *seen = calloc(nnz, 1);
    int rc = SB_OK;
    if (!g || !seen || !(out->noise_first = malloc(nnz * sizeof *out->noise_first)))
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; rc == SB_OK && i < ng; i++)
        g[i] = &out->groups[i];
    if (rc == SB_OK)
        qsort(g, ng, sizeof *g, cmp_group_key);
    for (size_t i = 0; rc == SB_OK && i < ng && out->nnoise_first < nnz; i++)
        for (size_t k = 0; rc == SB_OK && k < nnz; k++) {
            long long seq = 0;
            int found = 0;
            if (!seen[k])
                rc = sb_rg_noise_first(db, g[i]->grp, out->noise[k].id, &seq, &found, err);
            if (rc == SB_OK && found) {
                seen[k] = 1;
                out->noise_first[out->nnoise_first++] = (sb_rg_noise_seq){g[i]->grp, out->noise[k].id, seq};
            }
        }
    if (rc == SB_OK && out->nnoise_first)
        qsort(out->noise_first, out->nnoise_first, sizeof *out->noise_first, cmp_noise_seq);
    free(seen);
    free(g);
    return rc;
}

static int read_steps(sb_db *db, sb_rg_stored *out, sb_error *err)
{
    sb_rg_steps_reader *rd = NULL;
    int rc = sb_rg_groups_read(db, &out->groups, &out->ngroups, err);
    if (rc == SB_OK)
        rc = sb_rg_class_figs_read(db, &out->figs, &out->nfigs, err);
    if (rc == SB_OK)
        rc = sb_rg_noise_read(db, &out->noise, &out->nnoise, err);
    if (rc == SB_OK)
        rc = read_noise_firsts(db, out, err);
    if (rc == SB_OK && !(out->latest_from = malloc((out->ngroups + 1) * sizeof *out->latest_from)))
        rc = sb_error_set(err, NULL, NULL, "out of memory");
    if (rc == SB_OK)
        rc = sb_rg_steps_reader_open(db, &rd, err);
    for (size_t i = 0; rc == SB_OK && i < out->ngroups; i++) {
        out->latest_from[i] = out->nlatest;
        rc = sb_rg_steps_read_latest(rd, out->groups[i].grp, keep_step, out, err);
    }
    sb_rg_steps_reader_close(rd);
    if (rc == SB_OK)
        out->latest_from[out->ngroups] = out->nlatest;
    return rc;
}

int sb_rg_stored_read(sb_db *db, int steps, sb_rg_stored *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = sb_rg_state_now(db, &out->now, err);
    if (rc == SB_OK)
        rc = sb_rg_state_read(db, &out->then, &out->found, err);
    if (rc == SB_OK && steps && out->found && (rc = read_steps(db, out, err)) == SB_OK)
        out->steps_read = 1;
    if (rc != SB_OK)
        sb_rg_stored_free(out);
    return rc;
}
