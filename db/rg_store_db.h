/* rg_store_db.h - the regression walk's store (model/rg_store.h) on a
 * database connection: report/regress.h reads through it instead of
 * querying.
 */
#ifndef SOLBOOK_DB_RG_STORE_DB_H
#define SOLBOOK_DB_RG_STORE_DB_H

#include "rg_store.h"
#include "store.h"

/* Fills st with the functions of db: sb_commits_ordinals,
 * sb_run_devices_load_ids, sb_results_load and sb_results_load_ids, the reads of the stored
 * history of db/rg_steps.h. db must outlive it. Returns st, so that a call takes the store of db in place:
 * sb_rg_update_open(sb_rg_store_db(db, &st), ...). */
const sb_rg_store *sb_rg_store_db(sb_db *db, sb_rg_store *st);

#endif
