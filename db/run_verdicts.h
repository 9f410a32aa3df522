/* run_verdicts.h - each result run's stored plausibility verdict
 * (migration 014: run_verdicts, run_verdicts_basis), and what the stored
 * verdicts were judged with. report/plausible.h judges the runs and
 * decides when a stored verdict still holds; this module only reads and
 * writes them.
 */
#ifndef SOLBOOK_DB_RUN_VERDICTS_H
#define SOLBOOK_DB_RUN_VERDICTS_H

#include <stddef.h>

#include "error.h"
#include "plaus_snap.h" /* sb_verdict_basis, sb_verdict_states */
#include "plausibility.h"
#include "store.h"

/* The stored basis; *found 0 when verdicts were never stored. */
int sb_verdicts_basis_read(sb_db *db, sb_verdict_basis *b, int *found, sb_error *err);
/* Replaces it (inside the caller's transaction, with the verdicts). */
int sb_verdicts_basis_write(sb_db *db, const sb_verdict_basis *b, sb_error *err);

/* The SHA-256 (hex) of the calibration runs stored now whose id is at
 * most upto (each run's id, SKU, finish time and every ceiling it
 * stored), and the greatest of their ids (*last, 0 when none): a
 * calibration stored, forgotten or changed changes it. */
int sb_verdicts_calibrations_digest(sb_db *db, long long upto, char hex[65], long long *last, sb_error *err);

/* The distinct SKUs of the calibration runs whose id is above after, in
 * name order, into *skus (malloc'd strings, *n of them; free with
 * sb_verdicts_skus_free). */
int sb_verdicts_calibration_skus(sb_db *db, long long after, char ***skus, size_t *n, sb_error *err);
void sb_verdicts_skus_free(char **skus, size_t n);

/* The lowest id of a result run without a stored verdict; 0 when every
 * one has one. Each judging pass (report/plausible.h) stores a verdict
 * for every result run from the first without one to the last, in one
 * transaction, and forgetting a run removes its verdict with it: the runs
 * up to the greatest id with a verdict all have one, so only the runs
 * above it are read, not every run. */
int sb_verdicts_first_missing(sb_db *db, long long *first, sb_error *err);

/* The highest id of a result run; 0 when there is none. */
int sb_verdicts_last_run(sb_db *db, long long *last, sb_error *err);

/* The stored verdicts' states of the runs whose id is above after, by
 * run id ascending (free with sb_verdict_states_free,
 * model/plaus_snap.h): a pass that judges only those reads no other. */
int sb_verdict_states_load_after(sb_db *db, long long after, sb_verdict_states *out, sb_error *err);
/* The states of the runs ids[0..n) (ascending) that have a stored verdict. */
int sb_verdict_states_load_ids(sb_db *db, const long long *ids, size_t n, sb_verdict_states *out, sb_error *err);

/* For reading the whole verdicts of many runs, one at a time: the
 * statement is prepared once by sb_verdict_reader_open. sb_verdict_read
 * puts run_id's stored verdict in *v; *found 0 when there is none. */
typedef struct sb_verdict_reader sb_verdict_reader;
int sb_verdict_reader_open(sb_db *db, sb_verdict_reader **out, sb_error *err);
int sb_verdict_read(sb_verdict_reader *rd, long long run_id, sb_plaus_verdict *v, int *found, sb_error *err);
void sb_verdict_reader_close(sb_verdict_reader *rd); /* accepts NULL */

/* Stores (or replaces) the verdicts vs[i] of the runs ids[i], n of them,
 * inside the caller's transaction. */
int sb_verdicts_put(sb_db *db, const long long *ids, const sb_plaus_verdict *vs, size_t n, sb_error *err);

#endif
