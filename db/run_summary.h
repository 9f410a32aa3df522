/* run_summary.h - what the site's overview, ledger and weekly index ask
 * of the runs as a whole: how many runs there are of each kind and status,
 * the days runs finished on, and the runs whose content hash starts with a
 * prefix (the ledger cites runs that way). */
#ifndef SOLBOOK_DB_RUN_SUMMARY_H
#define SOLBOOK_DB_RUN_SUMMARY_H


#include "error.h"
#include "store.h"
#include "strbuf.h"

/* Calls fn for each (schema, status) with its run count, in schema then
 * status order. */
typedef void (*sb_run_kind_count_fn)(void *ctx, const char *schema, const char *status,
                                     long long runs);
int sb_run_kind_counts(sb_db *db, sb_run_kind_count_fn fn, void *ctx, sb_error *err);

/* Calls fn for each distinct day (YYYY-MM-DD, the first ten characters of
 * provenance.finished_at) a run finished on, in order. */
typedef void (*sb_run_day_fn)(void *ctx, const char *day);
int sb_run_finish_days(sb_db *db, sb_run_day_fn fn, void *ctx, sb_error *err);

/* What a result run's id does not pin down, as text lines into out: the
 * runs other than results (calibrations, training) by schema, with their
 * count and largest id; the Nsight Compute values of the runs of suite
 * and op (an ncu import adds them to runs already stored), counted; and
 * the rows of the tables that belong to no one run (commits,
 * run_sessions), counted. The site's weekly writeups hash it into what
 * they were built from. */
int sb_run_other_stamp(sb_db *db, const char *suite, const char *op, sb_buf *out, sb_error *err);

/* Runs by content_sha256 prefix: one statement for many look-ups. */
typedef struct sb_run_hash_lookup sb_run_hash_lookup;
int sb_run_hash_lookup_open(sb_db *db, sb_run_hash_lookup **out, sb_error *err);
/* Calls fn with the id of each run whose content_sha256 starts with
 * prefix, in id order. */
typedef void (*sb_run_id_fn)(void *ctx, long long id);
int sb_run_hash_lookup_ids(sb_run_hash_lookup *q, const char *prefix, sb_run_id_fn fn, void *ctx,
                           sb_error *err);
void sb_run_hash_lookup_close(sb_run_hash_lookup *q); /* accepts NULL */

#endif
