/* claims.h - checks on a writeup's or packet's claims before it is
 * written (docs/CLAIMS.md): each figure a renderer writes is recorded
 * with the provider (and baseline), card and session it is of and the runs
 * behind it, and the records are verified against the runs the document
 * cites; no free text is matched against stored names. And: no staging
 * folder of the build appears; headline pairs are like with like.
 */
#ifndef SOLBOOK_REPORT_CLAIMS_H
#define SOLBOOK_REPORT_CLAIMS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "regress.h"
#include "results.h"
#include "session_run.h"

struct sb_session_headlines;

/* A step of one series a claim states (a regression or an improvement
 * of the project's kernels, regress.h): what the claims check computes
 * again from the stored runs. */
typedef struct sb_claim_step {
    char *case_key;                /* the series: this case, the claim's provider and SKU */
    char *old_commit, *new_commit; /* the commits of runs[0] (old) and runs[1] (new) */
    double ratio;                  /* new median / old median (of the stored samples) */
    double threshold;              /* the smallest relative change the rule counts */
    char *rule;                    /* the verdict: "regression" or "improvement" */
} sb_claim_step;

/* One figure as a renderer wrote it, and what it rests on. */
typedef struct sb_claim {
    char *figure;              /* as written ("1.234x"), for the error */
    char *provider, *baseline; /* baseline NULL: a figure of provider alone */
    char *sku;                 /* NULL: of no one card */
    char *session;             /* NULL: not of one session */
    int64_t *runs;
    size_t nruns;
    sb_claim_step *step;       /* NULL: not a step of a series */
} sb_claim;

/* The claims of one document, in the order written. A failed allocation
 * is kept (failed) and reported by sb_claims_verify, so a renderer records
 * without checking each call. */
typedef struct sb_claims {
    sb_claim *v;
    size_t n;
    int failed;
} sb_claims;

void sb_claims_add(sb_claims *c, const char *figure, const char *provider, const char *baseline, const char *sku,
                   const char *session, const int64_t *runs, size_t nruns);
/* The claim of row r, a step of the project's kernels with an old run:
 * its change as written ("+10.0%"), the series' provider and SKU, its
 * two runs and the step (case, commits, ratio, threshold, verdict). */
void sb_claims_add_step(sb_claims *c, const sb_rg_row *r);
/* Moves every claim of from to the end of to (from is left empty). */
void sb_claims_move(sb_claims *to, sb_claims *from);
void sb_claims_free(sb_claims *c);

/* A cited run as the verification reads it. */
typedef struct sb_claim_run {
    int64_t id;
    const char *provider, *sku, *session; /* session NULL: a result run outside the sessions */
} sb_claim_run;

/* The cited result runs as the verification reads them (malloc'd, n
 * entries; NULL when out of memory). */
sb_claim_run *sb_claim_runs_of(const sb_result *const *cited, size_t n);

/* SB_ERR naming the first claim (what: "the packet body", ...) that rests
 * on no run, on a run the document does not cite, on a run of another
 * provider than its provider or baseline, of another card than its SKU or
 * of another session than its session, or that states a ratio without a
 * run of each side. */
int sb_claims_verify(const sb_claims *c, const sb_claim_run *cited, size_t ncited, const char *what,
                     sb_error *err);

/* The runs the step claims of c rest on that are among cited (n of
 * them): run ids ascending, each once (*ids malloc'd, free it; none
 * where no claim states a step). Their caller reads their cards and
 * samples (db/run_devices.h, db/results_query.h) for
 * sb_claims_verify_steps. */
int sb_claims_step_runs(const sb_claims *c, const sb_result *const *cited, size_t n, long long **ids, size_t *nids,
                        sb_error *err);

/* SB_ERR naming the first claim of c with a step whose runs (among
 * cited, n of them) are not of its series (case, provider, SKU, one
 * protocol and environment) or not at its commits, or whose ratio,
 * threshold or rule the stored runs do not give again
 * (sb_rg_step_again with the A/A noise aa, NULL where no A/A runs are
 * stored, and o, from dev and samples: the cards and stored samples of
 * the runs sb_claims_step_runs names). Claims without a step are
 * sb_claims_verify's. */
int sb_claims_verify_steps(const sb_rg_aa *aa, const sb_run_devices *dev, const sb_run_samples *samples,
                           const sb_claims *c, const sb_result *const *cited, size_t n, const sb_rg_opts *o,
                           const char *what, sb_error *err);

/* Like with like (docs/CLAIMS.md, rule 8): SB_ERR naming the pair when
 * the two runs of a headline pair differ in GPU UUID, session id, timing
 * method or correctness check version, or one of them has none recorded. */
int sb_claims_pair_check(const sb_session_run *provider, const sb_session_run *baseline, sb_error *err);
/* sb_claims_pair_check on every pair of every headline. */
int sb_claims_headlines_check(const struct sb_session_headlines *h, sb_error *err);
/* The checked headlines a report shows: the headlines of runs (every
 * session run of the suites asked for, with its plausibility marks:
 * sb_plaus_mark_sessions, report/plausible.h) through
 * sb_session_headlines_take (report/sessions.h; of op, or every op where
 * op is NULL; of the runs finished in [from, to) where to > from) over the
 * headline baselines (report/geomean.h), or over baseline alone where it
 * is not NULL; then sb_claims_headlines_check. Takes the runs over, as
 * sb_session_headlines_take does. Free with sb_session_headlines_free. */
int sb_claims_headlines_take(sb_session_runs *runs, const char *op, const char *baseline, long long from,
                             long long to, struct sb_session_headlines *out, sb_error *err);

/* SB_ERR when the text holds one of paths (NULL-ended; each made
 * absolute): the folders the built files are published into. A renderer
 * builds its files in memory and is never told that folder, so a text
 * that holds it names where the build writes, however the data reads.
 * The working directory and the folders above it, $HOME and the data
 * home are not looked for: a run's params or notes may name any path,
 * and data is shown escaped, not refused. */
int sb_paths_check(const char *const *paths, const char *text, const char *what, sb_error *err);

#endif
