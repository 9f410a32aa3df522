/* results_query.h - the queries every report reads the database with
 * (db/migrations/001_initial.sql and later): result runs with their config,
 * provenance, metrics and correctness; training runs; samples; measured
 * ceilings of the latest calibration; the clocks a run recorded.
 *
 * A result run "passes" when runs.status is 'passed' and correctness.passed
 * is 1, or when it was imported from a tool that checks no correctness
 * (correctness.reference 'imported', passed NULL): such runs count, and every
 * table says how many of its cases were not re-checked. Only passing runs
 * carry figures into tables, plots and packets; the others are counted and
 * shown as failed or skipped (docs/CLAIMS.md).
 */
#ifndef SOLBOOK_DB_RESULTS_QUERY_H
#define SOLBOOK_DB_RESULTS_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "calibration.h"
#include "error.h"
#include "result_filter.h"
#include "run_samples.h"
#include "store.h"
#include "stored_result.h"
#include "strbuf.h"
#include "training_run.h"

/* Loads the result runs matching f, ordered by case_key, provider, sku,
 * finished_at, run id (so output built from them is deterministic). Runs
 * timed under a profiler (configs.profiler) are left out unless
 * f->with_profiled: their samples are the profiler's, not timings. Runs of
 * measuring sessions are left out unless f->with_sessions: a session's
 * figures are paired ratios (report/sessions.h, docs/CLAIMS.md), and a
 * per-run table of the newest runs would set them beside runs of other
 * processes, cards and timing methods. Only the conditions f sets are in
 * the statement, so a commit, SKU, op or suite is read through its index. */
int sb_results_load(sb_db *db, const sb_result_filter *f, sb_result_set *out, sb_error *err);

/* The runs whose ids are ids[0..n) that sb_results_load(db, f) would give,
 * in its order: the runs a stored list of steps names (report/regress.h),
 * read by id instead of every run. */
int sb_results_load_ids(sb_db *db, const sb_result_filter *f, const long long *ids, size_t n,
                        sb_result_set *out, sb_error *err);

/* The runs matching any of fs[0..nf), each once, in sb_results_load's
 * order: the two sides of a comparison, read through their own indexes. */
int sb_results_load_any(sb_db *db, const sb_result_filter *fs, size_t nf, sb_result_set *out,
                        sb_error *err);

/* The newest run (greatest finished time, then run id) of each (case_key,
 * provider, sku) among the runs sb_results_load(db, f) would give in v,
 * in its order, with all of its left_out: the runs sb_picks_latest
 * (report/results.h) picks, read through the table series_latest
 * (migration 011) and the runs still pending for it instead of every
 * run. A series whose stored newest run
 * is profiled, a session's, left out or of an unsure time is read whole;
 * so is every series when f sets arch, sha, branch, a window,
 * with_profiled or with_sessions. */
int sb_results_load_latest(sb_db *db, const sb_result_filter *f, sb_result_set *out,
                           sb_error *err);

/* The runs matching f, in the order sb_results_load gives them. With all
 * (every result run, as sb_results_load(db, NULL, ...) loads them) they
 * are picked from it without reading the database, and share its text:
 * free *out before all. With all NULL, or f asking for profiled runs (all
 * has none), they are loaded from db. Free with sb_results_free. */
int sb_results_select(sb_db *db, const sb_result_set *all, const sb_result_filter *f,
                      sb_result_set *out, sb_error *err);

/* The runs of measuring sessions (not those timed under a profiler), in
 * sb_results_load's order: with every other result run (all), the whole
 * of what sb_results_load(db, f) gives for an f with with_sessions. */
int sb_results_load_sessions(sb_db *db, sb_result_set *out, sb_error *err);

/* sb_results_select for an f with with_sessions (and not with_profiled):
 * the runs of all and of sessions (sb_results_load_sessions) that match f,
 * in sb_results_load's order, picked without reading the database and
 * with their plausibility marks cleared, as sb_results_load gives them.
 * Free *out before all and sessions. Any other f, or all or sessions
 * NULL: sb_results_select(db, all, f, ...). */
int sb_results_select_sessions(sb_db *db, const sb_result_set *all, const sb_result_set *sessions,
                               const sb_result_filter *f, sb_result_set *out, sb_error *err);
/* The same, kept to the runs whose id is among ids[0..nids) (ascending;
 * none where nids is 0): a packet's cited runs, without a copy of every
 * run. */
int sb_results_select_sessions_ids(const sb_result_set *all, const sb_result_set *sessions,
                                   const sb_result_filter *f, const int64_t *ids, size_t nids,
                                   sb_result_set *out, sb_error *err);

/* Every sample of a run, in (rep, idx) order, malloc'd into *v. */
int sb_samples_load(sb_db *db, long long run_id, double **v, size_t *n, sb_error *err);
/* sb_samples_load of each of the runs ids[0..n) (ascending, each once)
 * into out (model/run_samples.h; zero-initialised here, empty on error). */
int sb_run_samples_load_ids(sb_db *db, const long long *ids, size_t n, sb_run_samples *out, sb_error *err);
/* For loading the samples of many runs: the statement is prepared once by
 * sb_samples_query_open and reused by each sb_samples_query_load. */
typedef struct sb_samples_query sb_samples_query;
int sb_samples_query_open(sb_db *db, sb_samples_query **out, sb_error *err);
int sb_samples_query_load(sb_samples_query *q, long long run_id, double **v, size_t *n,
                          sb_error *err);
void sb_samples_query_close(sb_samples_query *q);   /* accepts NULL */

/* timing.kernel.samples of run_id as stored, JSON text with one array a
 * round (model/paired.h, sb_round_medians, reads it), into *json
 * (malloc'd); NULL when the run recorded none. */
int sb_kernel_samples_text(sb_db *db, long long run_id, char **json, sb_error *err);

/* Every calibration run of a SKU with its ceilings, newest first (the
 * finish time, then id), into *out (*n of
 * them; free with sb_calibrations_free, model/calibration.h). A report that holds a run
 * against its own card's calibration, and states how far the SKU's cards
 * differ, reads them all. */
int sb_calibrations_load(sb_db *db, const char *sku, sb_calibration **out, size_t *n, sb_error *err);

/* Training runs (any status), in the window when has_range, ordered by
 * model, SKU, world size, sequence length, micro batch, patch, finish time
 * and run id. */
int sb_training_load(sb_db *db, int has_range, long long from, long long to,
                     sb_training_set *out, sb_error *err);

/* The SM clock NVML recorded after each repeat of a run ("1335/1335/..."),
 * the distinct throttle reasons (", "-separated), whether one of them is a
 * power reason, and the card's power limit (NAN when not recorded), from
 * the stored document (timing.repeat_clocks, provenance.device). */
int sb_repeat_clocks(sb_db *db, long long run_id, sb_buf *clocks, sb_buf *reasons,
                     int *power_capped, double *power_limit_w, sb_error *err);

#endif
