/* plaus_snap_db.h - the plausibility snapshot (model/plaus_snap.h) of a
 * set of runs, read once on a connection for report/plausible.h.
 */
#ifndef SOLBOOK_DB_PLAUS_SNAP_DB_H
#define SOLBOOK_DB_PLAUS_SNAP_DB_H

#include "error.h"
#include "plaus_snap.h"
#include "stored_result.h"
#include "store.h"

/* Fills out with what sb_plaus_mark takes to mark the passing runs of set:
 * whether the stored verdicts hold (their basis against tables_sha256,
 * the SHA-256 of the tables the check judges with, sb_plaus_tables_sha256,
 * and against the calibration runs stored now), the stored states of the
 * passing runs where they hold, and for the passing runs without one
 * their GPU UUIDs and the calibrations of their SKUs. Reads only the runs
 * of set, by primary key. out is empty on error. */
int sb_plaus_snap_read_marks(sb_db *db, const char *tables_sha256, const sb_result_set *set, sb_plaus_snap *out,
                             sb_error *err);

#endif
