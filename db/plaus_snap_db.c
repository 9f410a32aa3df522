/* plaus_snap_db.c - the plausibility snapshot of some runs
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

/* Sorts ids[0..*n) and drops repeats. */
static void ids_unique(long long *ids, size_t *n)
{
    if (*n)
        qsort(ids, *n, sizeof *ids, cmp_id);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (!k || ids[i] != ids[k - 1])
            ids[k++] = ids[i];
    *n = k;
}

int sb_plaus_snap_read_basis(sb_db *db, const char *tables_sha256, sb_plaus_snap *out, sb_error *err)
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
    return SB_OK;
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

int sb_plaus_snap_read_runs(sb_db *db, const sb_result *const *rs, size_t n, sb_plaus_snap *s, sb_error *err)
{
    sb_run_devices_free(&s->devices);
    if (n == 0)
        return SB_OK;
    long long *ids = malloc(n * sizeof *ids);
    if (!ids)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        ids[i] = rs[i]->run_id;
    int rc = sb_run_devices_load_ids(db, ids, n, &s->devices, err);
    free(ids);
    for (size_t i = 0; rc == SB_OK && i < n; i++)
        rc = read_cals(db, s, rs[i]->sku, err);
    return rc;
}

int sb_plaus_snap_read_marks(sb_db *db, const char *tables_sha256, const sb_result_set *set, sb_plaus_snap *out,
                             sb_error *err)
{
    if (sb_plaus_snap_read_basis(db, tables_sha256, out, err) != SB_OK)
        return SB_ERR;
    long long *ids = malloc((set->n ? set->n : 1) * sizeof *ids);
    const sb_result **judged = malloc((set->n ? set->n : 1) * sizeof *judged);
    size_t nj = 0;
    int rc = ids && judged ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
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
        if (set->v[i].passing && !(out->stored && sb_verdict_state(&out->states, set->v[i].run_id, &state)))
            judged[nj++] = &set->v[i];
    }
    if (rc == SB_OK)
        rc = sb_plaus_snap_read_runs(db, judged, nj, out, err);
    free(ids);
    free(judged);
    if (rc != SB_OK)
        sb_plaus_snap_free(out);
    return rc;
}

/* Into s (its basis read): the whole stored verdicts of the passing runs
 * of rs where they hold, then the cards and calibrations of the runs
 * without one. */
static int read_verdicts(sb_db *db, const sb_result *const *rs, size_t n, sb_plaus_snap *s, sb_error *err)
{
    long long *ids = malloc((n ? n : 1) * sizeof *ids);
    const sb_result **judged = malloc((n ? n : 1) * sizeof *judged);
    size_t nids = 0, nj = 0;
    int rc = ids && judged ? SB_OK : sb_error_set(err, NULL, NULL, "out of memory");
    if (rc == SB_OK && s->stored) {
        for (size_t i = 0; i < n; i++)
            if (rs[i]->passing)
                ids[nids++] = rs[i]->run_id;
        ids_unique(ids, &nids);
        s->verdict_run = malloc((nids ? nids : 1) * sizeof *s->verdict_run);
        s->verdict = malloc((nids ? nids : 1) * sizeof *s->verdict);
        sb_verdict_reader *vr = NULL;
        rc = s->verdict_run && s->verdict ? sb_verdict_reader_open(db, &vr, err)
                                          : sb_error_set(err, NULL, NULL, "out of memory");
        for (size_t i = 0; rc == SB_OK && i < nids; i++) {
            int found = 0;
            rc = sb_verdict_read(vr, ids[i], &s->verdict[s->nverdicts], &found, err);
            if (rc == SB_OK && found)
                s->verdict_run[s->nverdicts++] = ids[i];
        }
        sb_verdict_reader_close(vr);
    }
    for (size_t i = 0; rc == SB_OK && i < n; i++)
        if (!(s->stored && rs[i]->passing && sb_plaus_snap_verdict(s, rs[i]->run_id)))
            judged[nj++] = rs[i];
    if (rc == SB_OK)
        rc = sb_plaus_snap_read_runs(db, judged, nj, s, err);
    free(ids);
    free(judged);
    return rc;
}

int sb_plaus_snap_read_verdicts(sb_db *db, const char *tables_sha256, const sb_result *const *rs, size_t n,
                                sb_plaus_snap *out, sb_error *err)
{
    if (sb_plaus_snap_read_basis(db, tables_sha256, out, err) != SB_OK)
        return SB_ERR;
    int rc = read_verdicts(db, rs, n, out, err);
    if (rc != SB_OK)
        sb_plaus_snap_free(out);
    return rc;
}

int sb_plaus_snap_read_sessions(sb_db *db, const char *tables_sha256, const sb_session_runs *runs, sb_plaus_snap *out,
                                sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (runs->n == 0)
        return SB_OK;
    if (sb_plaus_snap_read_basis(db, tables_sha256, out, err) != SB_OK)
        return SB_ERR;
    int rc = SB_OK;
    if (out->stored) { /* every run has a stored verdict that holds: those of these runs */
        long long *ids = malloc(runs->n * sizeof *ids);
        if (!ids) {
            sb_plaus_snap_free(out);
            return sb_error_set(err, NULL, NULL, "out of memory");
        }
        size_t nids = runs->n;
        for (size_t i = 0; i < runs->n; i++)
            ids[i] = (long long)runs->v[i].run_id;
        ids_unique(ids, &nids);
        rc = sb_verdict_states_load_ids(db, ids, nids, &out->states, err);
        free(ids);
        size_t found = 0;
        sb_plaus_state state;
        for (size_t i = 0; rc == SB_OK && i < runs->n; i++)
            found += (size_t)sb_verdict_state(&out->states, (long long)runs->v[i].run_id, &state);
        if (rc == SB_OK && found == runs->n)
            return SB_OK;
    }
    /* some run lacks one: every result run of the sessions is checked */
    sb_result_filter f = {0};
    f.only_sessions = 1;
    const sb_result **rs = NULL;
    if (rc == SB_OK && (rc = sb_results_load(db, &f, &out->session_results, err)) == SB_OK) {
        out->session_results_read = 1;
        size_t n = 0;
        if (!(rs = malloc((out->session_results.n + 1) * sizeof *rs)))
            rc = sb_error_set(err, NULL, NULL, "out of memory");
        for (size_t i = 0; rc == SB_OK && i < out->session_results.n; i++)
            if (out->session_results.v[i].passing)
                rs[n++] = &out->session_results.v[i];
        if (rc == SB_OK)
            rc = read_verdicts(db, rs, n, out, err);
    }
    free(rs);
    if (rc != SB_OK)
        sb_plaus_snap_free(out);
    return rc;
}
