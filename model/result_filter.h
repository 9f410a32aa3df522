/* result_filter.h - which stored result runs a report asks for: suite,
 * op, provider, card, commit, branch, a time window, and whether runs
 * timed under a profiler or of measuring sessions count
 * (db/results_query.h reads the runs that match). Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_RESULT_FILTER_H
#define SOLBOOK_MODEL_RESULT_FILTER_H

#include "error.h"
#include "stored_result.h"

typedef struct sb_result_filter {
    const char *suite, *op, *provider, *arch, *sku; /* NULL: any */
    const char *sha;                                /* commit prefix; NULL: any */
    const char *branch;                             /* provenance.git_branch; NULL: any */
    int with_profiled;  /* 1: runs timed under a profiler too (they never count as
                         * timings; by default they are left out) */
    int with_sessions;  /* 1: runs of measuring sessions too (by default they are
                         * left out: their times are compared only as pairs within
                         * their session, report/sessions.h) */
    int only_sessions;  /* 1: the runs of measuring sessions alone (sb_results_load,
                         * sb_results_load_latest): what the plausibility check
                         * of their pairs reads (report/plausible.h) */
    int has_range;                                  /* keep finished_epoch in [from, to) */
    long long from, to;
    long long after_run; /* > 0: only the runs whose id is above it (the runs
                          * stored since, which ingest judges for plausibility) */
    long long up_to_run; /* > 0: only the runs whose id is at most it (with
                          * after_run, a window of ids: ingest judges the runs
                          * a window at a time, so that its memory stays
                          * bounded however many it stored) */
} sb_result_filter;

/* Whether f keeps r: the WHERE clause and the window of sb_results_load
 * (db/results_query.h) on a loaded run, text compared as SQLite's BINARY
 * collation does. f NULL keeps every run. */
int sb_result_matches(const sb_result *r, const sb_result_filter *f);

/* The runs of all (and of its left_out) that f keeps, in all's order,
 * sharing all's text (out->borrowed): free *out before all, with
 * sb_results_free. */
int sb_results_pick(const sb_result_set *all, const sb_result_filter *f, sb_result_set *out,
                    sb_error *err);

#endif
