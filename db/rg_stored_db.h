/* rg_stored_db.h - the regression walk's stored history (migration 015,
 * db/rg_steps.h) read at once into model/rg_stored.h's record, which
 * sb_rg_fresh and sb_rg_latest (report/regress.h) take.
 */
#ifndef SOLBOOK_DB_RG_STORED_DB_H
#define SOLBOOK_DB_RG_STORED_DB_H

#include "error.h"
#include "rg_stored.h"
#include "store.h"

/* Reads the database's state now and the stored basis into *out, and
 * where steps is 1 and steps were stored, every group, each group's
 * latest steps, the drift classes' figures, the cross-card thresholds
 * and for each the first group in key order whose steps took it, with
 * where (out->steps_read 1).
 * Free with sb_rg_stored_free; empty on error. */
int sb_rg_stored_read(sb_db *db, int steps, sb_rg_stored *out, sb_error *err);

#endif
