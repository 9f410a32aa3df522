/* site_rg.h - what the regression walk (report/regress.h) takes, read on
 * a connection for the CLI and the site, and what it gives to store,
 * written there: the walk computes from what it is handed, and these
 * calls read and write through db/.
 */
#ifndef SOLBOOK_SITE_RG_H
#define SOLBOOK_SITE_RG_H

#include "error.h"
#include "regress.h"
#include "store.h"

/* The cards and git ordinals a walk takes (sb_rg_inputs) of the runs of
 * set, read from db: sb_site_rg_inputs fills, sb_site_rg_inputs_free
 * empties. */
typedef struct sb_rg_read {
    sb_run_devices dev;
    sb_commit_ordinals git;
} sb_rg_read;
int sb_site_rg_inputs(sb_db *db, const sb_result_set *set, sb_rg_read *out, sb_error *err);
void sb_site_rg_inputs_free(sb_rg_read *r);

/* The whole history over the runs of set (report/regress.h's walk):
 * the cards and git ordinals from in (NULL: read from db for set), the
 * samples of the runs the walk names read from db as it names them. out
 * is empty after an error. */
int sb_site_rg_history(sb_db *db, const sb_result_set *set, const sb_rg_inputs *in, const sb_rg_opts *o,
                       const sb_rg_aa *aa, sb_rg_list *out, sb_error *err);

/* sb_rg_latest on db's stored steps (stored, read by the caller), with
 * the confirmations of the regressions by the paired runs of db
 * (sb_rg_confirm_open), read with their cards and samples. */
int sb_site_rg_latest(sb_db *db, const sb_rg_stored *stored, const sb_rg_opts *o, long long upto, sb_rg_list *out,
                      int *found, sb_error *err);

/* The A/A noise of db's measuring sessions by o's rule: every session
 * run of db (sb_session_runs_load) measured by sb_rg_aa_new. */
int sb_site_rg_aa(sb_db *db, const sb_rg_opts *o, sb_rg_aa **out, sb_error *err);

/* Brings the stored regression steps of db (opened for writing) up to
 * date in one transaction: the update (sb_rg_update_open) takes the
 * basis read here, asks for what it reads (db/rg_ask_read.h answers) and
 * gives what to store a batch at a time, each written through
 * db/rg_steps.h before the next is walked; the families and drift
 * classes whose steps changed are then read and settled
 * (model/rg_settle.h: every one after a full walk, read in one pass) and
 * the basis stored. Nothing is stored when any part fails. aa: as
 * sb_rg_update_open's. */
int sb_site_rg_update(sb_db *db, const sb_rg_opts *o, const sb_rg_aa *aa, sb_rg_update_info *info, sb_error *err);

#endif
