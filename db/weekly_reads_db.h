/* weekly_reads_db.h - the weekly writeup's reads (model/weekly_reads.h)
 * on a database connection: report/weekly.h reads through it instead of
 * querying.
 */
#ifndef SOLBOOK_DB_WEEKLY_READS_DB_H
#define SOLBOOK_DB_WEEKLY_READS_DB_H

#include "store.h"
#include "weekly_reads.h"

/* Fills rd with the reads of db: sb_results_load, sb_results_load_latest,
 * sb_results_select, sb_results_select_sessions, sb_training_load and
 * sb_run_details_read, with pr filled by sb_plaus_reads_db and st by
 * sb_rg_store_db; db, pr and st must outlive it. Returns rd, so that a
 * call takes the reads of db in place. */
const sb_weekly_reads *sb_weekly_reads_db(sb_db *db, sb_weekly_reads *rd, sb_plaus_reads *pr, sb_rg_store *st);

#endif
