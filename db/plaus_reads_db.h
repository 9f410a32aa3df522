/* plaus_reads_db.h - the plausibility check's reads (model/plaus_reads.h)
 * on a database connection: report/plausible.h reads through it instead
 * of querying.
 */
#ifndef SOLBOOK_DB_PLAUS_READS_DB_H
#define SOLBOOK_DB_PLAUS_READS_DB_H

#include "plaus_reads.h"
#include "store.h"

/* Fills rd with the reads of db: sb_calibrations_load, sb_run_devices_load
 * and sb_run_devices_load_ids, sb_verdicts_calibrations_digest,
 * sb_verdicts_basis_read, sb_verdict_states_load_ids, the verdict reader
 * (sb_verdict_reader_open, sb_verdict_read), sb_results_load and
 * sb_session_runs_load. db must outlive it. Returns rd, so that a call
 * takes the reads of db in place: sb_plaus_render_md(sb_plaus_reads_db(db,
 * &rd), ...). */
const sb_plaus_reads *sb_plaus_reads_db(sb_db *db, sb_plaus_reads *rd);

#endif
