/* plaus_snap_db.h - the plausibility snapshot (model/plaus_snap.h) of
 * some runs, read once on a connection for report/plausible.h. Each read
 * takes tables_sha256, the SHA-256 of the tables the check judges with
 * (sb_plaus_tables_sha256, report/plausible.h): the stored verdicts hold
 * while their basis has it and the digest of the calibration runs stored
 * now. Each reads only the runs it is given, by primary key, and leaves
 * out empty on error.
 */
#ifndef SOLBOOK_DB_PLAUS_SNAP_DB_H
#define SOLBOOK_DB_PLAUS_SNAP_DB_H

#include "error.h"
#include "plaus_snap.h"
#include "session_run.h"
#include "stored_result.h"
#include "store.h"

/* The basis alone: the digest of the calibration runs stored now and
 * whether the stored verdicts hold. */
int sb_plaus_snap_read_basis(sb_db *db, const char *tables_sha256, sb_plaus_snap *out, sb_error *err);
/* Into s: the GPU UUIDs of the runs rs[0..n) (in place of those s held)
 * and the calibrations of their SKUs that s lacks; for a caller that
 * judges every run it reads, a window at a time (cli/ingest_verdicts.h). */
int sb_plaus_snap_read_runs(sb_db *db, const sb_result *const *rs, size_t n, sb_plaus_snap *s, sb_error *err);

/* What sb_plaus_mark takes to mark the passing runs of set: the stored
 * states of those runs where the verdicts hold, and for the passing runs
 * without one their GPU UUIDs and the calibrations of their SKUs. */
int sb_plaus_snap_read_marks(sb_db *db, const char *tables_sha256, const sb_result_set *set, sb_plaus_snap *out,
                             sb_error *err);
/* What sb_plaus_check and the listings take of the runs rs[0..n): the
 * whole stored verdicts of the passing ones where they hold, and for the
 * runs without one their GPU UUIDs and the calibrations of their SKUs. */
int sb_plaus_snap_read_verdicts(sb_db *db, const char *tables_sha256, const sb_result *const *rs, size_t n,
                                sb_plaus_snap *out, sb_error *err);
/* What sb_plaus_mark_sessions takes to mark runs: nothing where there are
 * none; the stored states of the runs where the verdicts hold; where a
 * run has none, every result run of the measuring sessions
 * (session_results) with what sb_plaus_snap_read_verdicts reads of its
 * passing ones. */
int sb_plaus_snap_read_sessions(sb_db *db, const char *tables_sha256, const sb_session_runs *runs, sb_plaus_snap *out,
                                sb_error *err);

#endif
