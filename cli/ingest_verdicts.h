/* ingest_verdicts.h - `solbook ingest` stores each run's plausibility
 * verdict: the runs to judge and what they were judged with are read
 * through db/run_verdicts.h, each verdict is judged by report/plausible.h
 * (with model/plausibility.h), and the verdicts are written back through
 * db/run_verdicts.h, here, where a command puts the layers together.
 */
#ifndef SOLBOOK_CLI_INGEST_VERDICTS_H
#define SOLBOOK_CLI_INGEST_VERDICTS_H

#include <stddef.h>

#include "error.h"
#include "plausibility.h"
#include "store.h"
#include "stored_result.h"

/* What sb_plaus_store_verdicts did. */
typedef struct sb_plaus_stored {
    size_t new_runs;        /* runs that had no stored verdict, judged and stored */
    size_t new_implausible; /* of them, passing runs found implausible */
    size_t rejudged;        /* runs whose stored verdict was judged again */
    size_t changed;         /* of them, runs whose verdict (ok, implausible...) changed */
    int all;                /* 1: every run was judged again */
    const char *why;        /* why runs were judged again; "" when none were */
} sb_plaus_stored;

/* Told of each passing run sb_plaus_store_verdicts stored implausible
 * that had no verdict before, after the verdicts are committed. */
typedef void (*sb_plaus_flag_fn)(void *ctx, const sb_result *r, const sb_plaus_verdict *v);

/* Brings the stored verdicts (db/run_verdicts.h) up to date, in one
 * transaction with what they were judged with: judges every result run
 * that has none (a run that did not pass is stored as not judged); the
 * runs of every SKU with a calibration stored since, again; and every
 * run again when none were stored before (a database from before
 * migration 014), when data/op_models.csv, data/cache_sizes.csv,
 * data/skus.csv or the rule (SB_PLAUS_RULE) changed, or when a calibration
 * stored before was forgotten or changed. `solbook ingest` calls it after
 * storing files. on_flag may be NULL. */
int sb_plaus_store_verdicts(sb_db *db, sb_plaus_flag_fn on_flag, void *ctx, sb_plaus_stored *out,
                            sb_error *err);

#endif
