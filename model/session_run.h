/* session_run.h - a run of a measuring session as the paired comparisons
 * read it (report/sessions.h): one row of run_sessions with its result
 * run, made into a value (db/session_query.h loads them). Nothing here
 * reads the database.
 */
#ifndef SOLBOOK_MODEL_SESSION_RUN_H
#define SOLBOOK_MODEL_SESSION_RUN_H

#include <stddef.h>
#include <stdint.h>

typedef struct sb_session_run {
    int64_t run_id;
    char *session_id;
    int copy, rounds;
    /* protocol.input_sets: 1, or the rounds where every turn had buffers
     * of its own (session.py --fresh-inputs); -1: not recorded. Runs of
     * two protocols are never A/A comparisons of each other. */
    int input_sets;
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
    /* The round medians of kernel_samples and call_samples
     * (sb_round_medians), read once by sb_session_runs_medians for every
     * comparison after; medians_read 0: not read (a run built by hand, or
     * samples the comparisons refuse with their message). */
    int medians_read;
    double *kernel_medians, *call_medians; /* NULL where the samples are */
    size_t kernel_rounds, call_rounds;
} sb_session_run;

typedef struct sb_session_runs {
    sb_session_run *v;
    size_t n;
} sb_session_runs;

/* Reads the round medians of every passing run of r into it (the
 * comparisons of report/sessions.h otherwise read them from the samples
 * each time). A run whose samples sb_round_medians refuses, or that does
 * not fit in memory, is left unread: the comparisons read it again and
 * say what is wrong. */
void sb_session_runs_medians(sb_session_runs *r);
/* Frees the text and medians of one run and sets them to NULL. */
void sb_session_run_free(sb_session_run *r);
/* Drops (and frees) the runs of r outside suite; none where suite is NULL. */
void sb_session_runs_keep_suite(sb_session_runs *r, const char *suite);
/* A deep copy of from in to (zero-initialised here): for a report that
 * hands the same runs to several calls that take them over. 0, or -1 out
 * of memory (to left empty). */
int sb_session_runs_copy(const sb_session_runs *from, sb_session_runs *to);
void sb_session_runs_free(sb_session_runs *r);

#endif
