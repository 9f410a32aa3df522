/* session_query.h - the runs of measuring sessions (run_sessions, migration
 * 008): what a paired comparison needs of each, read in one query. */
#ifndef SOLBOOK_DB_SESSION_QUERY_H
#define SOLBOOK_DB_SESSION_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

typedef struct sb_session_run {
    int64_t run_id;
    char *session_id;
    int copy, rounds;
    char *timing_method, *check_version, *gpu_uuid; /* gpu_uuid may be NULL */
    char *status;                                   /* passed | failed | skipped */
    char *op, *mode, *dtype, *shape_key, *params_json, *provider;
    char *case_key;                                 /* op|mode|dtype|shape_key|params_json */
    char *suite;                                    /* config.suite: the preset the case came from */
    char *sku, *arch, *git_sha, *started_at;
    char *finished_at; /* provenance.finished_at: the time a week or a window counts a run by; may be NULL */
    char *kernel_samples; /* timing.kernel.samples as JSON text (one array a round), or NULL */
    char *call_samples;   /* timing.samples as JSON text, or NULL */
    int64_t peak_absolute_bytes;                    /* -1: not recorded */
    int64_t peak_beyond_inputs_bytes;               /* memory.peak_device_bytes; -1: not recorded */
    int hold_timeouts; /* rounds whose hold was let go early (the call waited for the GPU); -1: not recorded */
    /* 1: a passing run above its card's ceilings (report/plausible.h,
     * sb_plaus_mark_sessions); 0 as loaded here. Its pairs are left out
     * of every paired figure (report/sessions.h) and counted. */
    int implausible;
} sb_session_run;

typedef struct sb_session_runs {
    sb_session_run *v;
    size_t n;
} sb_session_runs;

/* Every run of the sessions whose id starts with one of ids[0..nids)
 * (nids 0: every session), ordered by session start, session, case,
 * provider and copy. Appends to *out (zero-initialised by the caller). */
int sb_session_runs_load(sb_db *db, const char *const *ids, size_t nids, sb_session_runs *out, sb_error *err);
/* Drops (and frees) the runs of r outside suite; none where suite is NULL. */
void sb_session_runs_keep_suite(sb_session_runs *r, const char *suite);
void sb_session_runs_free(sb_session_runs *r);

/* sb_session_runs_load on the database at path, opened for reading and
 * closed again: what a command that only reads sessions needs. */
int sb_session_runs_read(const char *path, const char *const *ids, size_t nids, sb_session_runs *out,
                         sb_error *err);

#endif
