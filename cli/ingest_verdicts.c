/* ingest_verdicts.c - the plausibility verdicts ingest stores
 * (ingest_verdicts.h). */
#include "ingest_verdicts.h"

#include <stdlib.h>
#include <string.h>

#include "plaus_snap_db.h"
#include "plausible.h"
#include "results_query.h"
#include "run_verdicts.h"

static int str_listed(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

/* Verdicts stored a statement at a time, this many. */
#define VERDICT_BATCH 256
/* Run ids read and judged at a time by sb_plaus_store_verdicts. */
#define PLAUS_WINDOW 4096

typedef struct new_flag {
    const sb_result *r;
    sb_plaus_verdict v;
} new_flag;

/* Adds the runs of v (n of them) that need a verdict judged to need:
 * every one with all, else those without a stored one or of a SKU listed
 * in skus. */
static void runs_to_judge(const sb_result *v, size_t n, int all, const sb_verdict_states *st, char *const *skus,
                          size_t nskus, const sb_result **need, size_t *nneed)
{
    for (size_t i = 0; i < n; i++) {
        sb_plaus_state state;
        if (all || !sb_verdict_state(st, v[i].run_id, &state) || str_listed(skus, nskus, v[i].sku))
            need[(*nneed)++] = &v[i];
    }
}

int sb_plaus_store_verdicts(sb_db *db, sb_plaus_flag_fn on_flag, void *ctx, sb_plaus_stored *out,
                            sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->why = "";
    if (sb_db_begin(db, err) != SB_OK)
        return SB_ERR;
    sb_plaus_ctx *c = NULL;
    sb_plaus_snap snap = {0};
    char tables[65];
    sb_verdict_states st = {0};
    sb_verdict_basis old;
    char **skus = NULL;
    size_t nskus = 0, nneed = 0, nbatch = 0;
    const sb_result **need = NULL;
    long long batch_ids[VERDICT_BATCH], first = 1;
    sb_plaus_verdict *batch = malloc(VERDICT_BATCH * sizeof *batch);
    sb_result_set set = {0};
    sb_result_filter f = {0};
    new_flag *flags = NULL;
    int found = 0, rc = SB_ERR;
    f.with_profiled = f.with_sessions = 1; /* every result run */
    if (!batch) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    if (sb_plaus_tables_sha256(NULL, NULL, tables, err) != SB_OK ||
        sb_plaus_snap_read_basis(db, tables, &snap, err) != SB_OK ||
        sb_plaus_open(&snap, NULL, NULL, NULL, &c, err) != SB_OK || sb_verdicts_basis_read(db, &old, &found, err) != SB_OK ||
        sb_verdicts_calibration_skus(db, found ? old.last_calibration : 0, &skus, &nskus, err) != SB_OK)
        goto done;
    /* every verdict below is judged anew (sb_plaus_judge_run) */
    const sb_verdict_basis *now = sb_plaus_basis(c);
    if (!found)
        out->why = "no basis stored for the verdicts";
    else if (strcmp(old.tables_sha256, now->tables_sha256))
        out->why = "data/op_models.csv, data/cache_sizes.csv, data/skus.csv or the rule changed";
    else {
        char then[65];
        long long last;
        if (sb_verdicts_calibrations_digest(db, old.last_calibration, then, &last, err) != SB_OK)
            goto done;
        if (strcmp(then, old.calibrations_sha256))
            out->why = "a calibration run stored before was forgotten or changed";
    }
    out->all = out->why[0] != '\0';
    if (!out->all && nskus)
        out->why = "new calibrations";
    /* Without a run to judge again, only the runs from the first without a
     * verdict on are read: an ingest's own, mostly. */
    if (!out->all && !nskus && sb_verdicts_first_missing(db, &first, err) != SB_OK)
        goto done;
    /* The runs are read and judged a window of ids at a time: an archive
     * of a few MB can hold hundreds of thousands of small results, and
     * every one read at once took memory in proportion (577 MB for
     * 200,000). Each window's implausible runs are named as it is done. */
    long long last = 0, from = out->all || nskus ? 0 : first - 1;
    if (first > 0 && sb_verdicts_last_run(db, &last, err) != SB_OK)
        goto done;
    /* the stored verdicts of the runs read below only: an ingest's own
     * runs have none, and reading every verdict grew with the file */
    if (first > 0 && sb_verdict_states_load_after(db, from, &st, err) != SB_OK)
        goto done;
    for (long long lo = from; first > 0 && lo < last; lo += PLAUS_WINDOW) {
        f.after_run = lo;
        f.up_to_run = lo + PLAUS_WINDOW;
        if (sb_results_load(db, &f, &set, err) != SB_OK)
            goto done;
        size_t total = set.n + set.n_left_out + 1, nflags = 0;
        nneed = 0;
        const sb_result **need2 = realloc(need, total * sizeof *need);
        if (need2)
            need = need2;
        new_flag *flags2 = need2 ? realloc(flags, total * sizeof *flags) : NULL;
        if (!flags2) {
            sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        flags = flags2;
        /* the runs whose time is not usable are judged too (unknown, mostly),
         * so that no stored run lacks a verdict */
        runs_to_judge(set.v, set.n, out->all, &st, skus, nskus, need, &nneed);
        runs_to_judge(set.left_out, set.n_left_out, out->all, &st, skus, nskus, need, &nneed);
        /* the cards of this window's runs and the calibrations of their SKUs */
        if (nneed && sb_plaus_snap_read_runs(db, need, nneed, &snap, err) != SB_OK)
            goto done;
        for (size_t j = 0; j < nneed; j++) {
            const sb_result *r = need[j];
            sb_plaus_verdict *v = &batch[nbatch];
            if (!r->passing)
                sb_plaus_not_judged(v);
            else if (sb_plaus_judge_run(c, r, v, err) != SB_OK)
                goto done;
            sb_plaus_state was;
            if (sb_verdict_state(&st, r->run_id, &was)) {
                out->rejudged++;
                out->changed += was != v->state;
            } else {
                out->new_runs++;
                if (v->state == SB_PLAUS_IMPLAUSIBLE) {
                    out->new_implausible++;
                    flags[nflags].r = r;
                    flags[nflags++].v = *v;
                }
            }
            batch_ids[nbatch++] = r->run_id;
            if (nbatch == VERDICT_BATCH || j + 1 == nneed) {
                if (sb_verdicts_put(db, batch_ids, batch, nbatch, err) != SB_OK)
                    goto done;
                nbatch = 0;
            }
        }
        for (size_t k = 0; on_flag && k < nflags; k++)
            on_flag(ctx, flags[k].r, &flags[k].v);
        sb_results_free(&set);
        memset(&set, 0, sizeof set);
    }
    if (sb_verdicts_basis_write(db, now, err) != SB_OK || sb_db_commit(db, err) != SB_OK)
        goto done;
    rc = SB_OK;
done:
    if (rc != SB_OK)
        sb_db_rollback(db);
    free(flags);
    free(batch);
    free(need);
    sb_results_free(&set);
    sb_verdicts_skus_free(skus, nskus);
    sb_verdict_states_free(&st);
    sb_plaus_close(c);
    sb_plaus_snap_free(&snap);
    return rc;
}
