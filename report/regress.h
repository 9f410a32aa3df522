/* regress.h - regression detection between two commits (or two weeks) of
 * the same case, provider and SKU, on the stored latency samples.
 *
 * Two passing runs are compared with the two-sided Mann-Whitney U test
 * (stats.h) and a minimum relative effect on the medians:
 *   regression   p < alpha and (new - old) / old >=  min_effect
 *   improvement  p < alpha and (new - old) / old <= -min_effect
 *   no change    otherwise
 * Runs without samples (quantiles-only imports) are "no samples", not
 * tested. When even the most extreme data of these sample sizes could not
 * give p < alpha (2 / C(n1 + n2, n1) >= alpha, e.g. one sample each), the
 * verdict is "insufficient samples", not a regression. A case seen at one
 * commit only is "single commit". A case whose newest commit has only
 * failing runs while the previous commit passed is "now failing", which
 * counts as a regression.
 */
#ifndef SOLBOOK_REPORT_REGRESS_H
#define SOLBOOK_REPORT_REGRESS_H

#include <sqlite3.h>
#include <stddef.h>

#include "results.h"
#include "strbuf.h"

typedef enum sb_rg_verdict {
    SB_RG_REGRESSION = 0,
    SB_RG_NOW_FAILING,
    SB_RG_IMPROVEMENT,
    SB_RG_NO_CHANGE,
    SB_RG_INSUFFICIENT,
    SB_RG_NO_SAMPLES,
    SB_RG_SINGLE_COMMIT,
} sb_rg_verdict;

const char *sb_rg_verdict_name(sb_rg_verdict v); /* "regression", "insufficient samples", ... */

typedef struct sb_rg_opts {
    double alpha;       /* default 0.01 */
    double min_effect;  /* default 0.03 (3 %) */
} sb_rg_opts;

typedef struct sb_rg_row {
    const sb_result *old_run, *new_run; /* old_run NULL for single commit */
    sb_rg_verdict verdict;
    size_t n_old, n_new;                /* samples */
    double p;                           /* NAN when not tested */
    double p_adjusted;                  /* Benjamini-Hochberg over the step's cases; NAN when not tested */
    double rel_change;                  /* (new - old) / old of the medians; NAN when unknown */
    int latest;                         /* 1: the case's newest commit (or window) is new_run's */
} sb_rg_row;

/* A change point of one (case, provider, SKU)'s history: the level of
 * its per-commit medians moves between two neighbouring commits
 * (model/changepoint.h). */
typedef struct sb_rg_changepoint {
    const sb_result *last_before; /* newest passing run of the last commit before the change */
    const sb_result *first_after; /* newest passing run of the first commit after it */
    size_t commits_before, commits_after; /* commits in the segments either side */
    double before, after;         /* medians of those segments' per-commit medians, ms */
    double shift;                 /* (after - before) / before */
    double p;                     /* permutation p-value */
} sb_rg_changepoint;

typedef struct sb_rg_list {
    sb_rg_row *v;
    size_t n;
    size_t series_git;      /* series whose commits are in git order (table commits) */
    size_t series_measured; /* series in first-measured order: a commit not in the table */
    sb_rg_changepoint *cp;  /* sb_rg_history only; in the order of the rows */
    size_t ncp;
    int searched_cp;        /* 1: sb_rg_history searched for change points */
} sb_rg_list;

/* Compares two passing runs of one case into row (verdict and figures). */
int sb_rg_compare(sqlite3 *db, const sb_result *old_run, const sb_result *new_run,
                  const sb_rg_opts *o, sb_rg_row *row, sb_error *err);

/* Commit order: commits sorted by when they were first measured (the
 * earliest finished_at of their runs in a set; ties by SHA). Where the
 * commits table (db/commits.h) knows every commit of a series, the series
 * follows its git order instead (sb_rg_commits, sb_rg_history). */
typedef struct sb_rg_order {
    void *v;      /* opaque */
    size_t n;     /* commits */
} sb_rg_order;

int sb_rg_order_build(const sb_result_set *set, sb_rg_order *out, sb_error *err);
void sb_rg_order_free(sb_rg_order *o);
/* 0 for the first commit measured, 1 for the next...; -1 for "unknown" or
 * a commit not in the set. */
long sb_rg_order_rank(const sb_rg_order *o, const char *sha);

/* For each (case, provider, SKU) in set: the newest commit in commit order
 * against the commit before it with a passing run (the newest passing run
 * at each). Rows ordered like set. In this and sb_rg_history the p-values
 * of the cases of one commit step (the same old and new commit) are
 * adjusted by Benjamini-Hochberg and the verdict uses the adjusted p. */
int sb_rg_commits(sqlite3 *db, const sb_result_set *set, const sb_rg_opts *o, sb_rg_list *out,
                  sb_error *err);

/* The whole history: for each (case, provider, SKU), every commit with a
 * passing run against the commit before it with one (and "now failing"
 * where a commit has only failing runs after a passing one); a case seen at
 * one commit gives one "single commit" row. Rows ordered like set, then in
 * commit order. Each series' per-commit medians (newest passing run of
 * each commit) also go through the E-Divisive change point search at
 * alpha with 199 permutations, segments of at least 3 commits and a fixed
 * seed; change points that move the level by at least min_effect are
 * listed in out->cp. */
int sb_rg_history(sqlite3 *db, const sb_result_set *set, const sb_rg_opts *o, sb_rg_list *out,
                  sb_error *err);

/* For each (case, provider, SKU): the newest passing run in [from, to)
 * against the newest passing run in [prev_from, from). Cases present in
 * one window only are left out. */
int sb_rg_windows(sqlite3 *db, const sb_result_set *set, long long prev_from, long long from,
                  long long to, const sb_rg_opts *o, sb_rg_list *out, sb_error *err);

void sb_rg_free(sb_rg_list *l);

/* Number of rows that count as regressions (regression, now failing) at
 * the newest commit of their case: a regression the history later undid
 * does not count. */
size_t sb_rg_count_regressions(const sb_rg_list *l);

/* Markdown: regressions, improvements, then the other verdicts. */
void sb_rg_render_md(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out);
int sb_rg_render_json(const sb_rg_list *l, const sb_rg_opts *o, sb_buf *out, sb_error *err);

#endif
