/* plaus_snap_db.c - the plausibility snapshot of a set of runs
 * (plaus_snap_db.h). */
#include "plaus_snap_db.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "results_query.h"
#include "run_devices.h"
#include "run_verdicts.h"

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The calibrations of sku, once per SKU. */
static int read_cals(sb_db *db, sb_plaus_snap *s, const char *sku, sb_error *err)
{
    if (sb_plaus_snap_cals(s, sku))
        return SB_OK;
    sb_plaus_sku_cals *nv = realloc(s->cals, (s->ncals + 1) * sizeof *nv);
    if (!nv)
        return sb_error_set(err, NULL, NULL, "out of memory");
    s->cals = nv;
    sb_plaus_sku_cals *k = &nv[s->ncals];
    memset(k, 0, sizeof *k);
    size_t len = strlen(sku) + 1;
    if (!(k->sku = malloc(len)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    memcpy(k->sku, sku, len);
    s->ncals++;
    return sb_calibrations_load(db, sku, &k->cals, &k->n, err);
}

int sb_plaus_snap_read_marks(sb_db *db, const char *tables_sha256, const sb_result_set *set, sb_plaus_snap *out,
                             sb_error *err)
{
    memset(out, 0, sizeof *out);
    sb_verdict_basis stored;
    int found = 0;
    if (sb_verdicts_calibrations_digest(db, LLONG_MAX, out->calibrations_sha256, &out->last_calibration, err) !=
            SB_OK ||
        sb_verdicts_basis_read(db, &stored, &found, err) != SB_OK)
        return SB_ERR;
    out->stored = found && !strcmp(stored.tables_sha256, tables_sha256) &&
                  !strcmp(stored.calibrations_sha256, out->calibrations_sha256);
    long long *ids = malloc((set->n ? set->n : 1) * sizeof *ids);
    size_t *idx = malloc((set->n ? set->n : 1) * sizeof *idx), nj = 0;
    int rc = ids && idx ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
    if (rc == SB_OK && out->stored) {
        /* the states of these runs only, not of every stored run */
        size_t np = 0;
        for (size_t i = 0; i < set->n; i++)
            if (set->v[i].passing)
                ids[np++] = set->v[i].run_id;
        if (np)
            qsort(ids, np, sizeof *ids, cmp_id);
        rc = sb_verdict_states_load_ids(db, ids, np, &out->states, err);
    }
    for (size_t i = 0; rc == SB_OK && i < set->n; i++) {
        sb_plaus_state state;
        if (set->v[i].passing && !(out->stored && sb_verdict_state(&out->states, set->v[i].run_id, &state))) {
            ids[nj] = set->v[i].run_id;
            idx[nj++] = i;
        }
    }
    if (rc == SB_OK && nj)
        rc = sb_run_devices_load_ids(db, ids, nj, &out->devices, err);
    for (size_t j = 0; rc == SB_OK && j < nj; j++)
        rc = read_cals(db, out, set->v[idx[j]].sku, err);
    free(ids);
    free(idx);
    if (rc != SB_OK)
        sb_plaus_snap_free(out);
    return rc;
}
