/* regress.h - regressions over the commit history of each series: one
 * case, provider and SKU under one protocol (tool, timer, L2, warm-up,
 * iterations, repeats, input sets, graph, settle, held launch) and one
 * environment (driver, CUDA, cuBLAS, recorded packages), on the stored
 * latency samples.
 *
 * Two passing runs of a series are compared with the two-sided
 * Mann-Whitney U test (stats.h) and a minimum relative effect on the
 * medians, the step's threshold:
 *   regression   p < alpha and (new - old) / old >=  threshold
 *   improvement  p < alpha and (new - old) / old <= -threshold
 *   no change    otherwise
 * The threshold of a step comes from measured A/A noise (sb_rg_threshold_from):
 *   - where both runs time kernels by held launch, as the measuring
 *     sessions do, and the stored A/A sessions (report/sessions.h)
 *     compared the case, provider and SKU on the same relation of cards
 *     (one card, or two) and the same hold: the larger of min_effect and
 *     1.5 times their A/A change (sb_aa_change: the 95th percentile of
 *     |ratio - 1|). A step whose
 *     runs held every launch takes only the comparisons whose runs did; a
 *     step where either run's hold was let go (hold_timeouts > 0: the op
 *     waited on the host inside the held launch) takes only the
 *     comparisons where one was let go;
 *   - else on one physical card (the same GPU UUID): min_effect;
 *   - else (two cards, or cards not recorded) the larger of min_effect and
 *     the SKU's cross-card noise: 1.5 times the 95th percentile of
 *     |ratio - 1| of the A/A comparisons across two cards of the SKU (at
 *     least SB_RG_AA_MIN_COMPARISONS of them), else SB_RG_CROSS_CARD_DEFAULT.
 * A step of another provider under one environment (drift) is an A/A
 * comparison of its way of timing, since the project's commits do not
 * touch that code: where its noise class (provider, SKU, op, mode,
 * relation of cards, tool, timer, held launch) holds at least
 * SB_RG_DRIFT_MIN_CLASS other tested steps, its threshold is at least 1.5
 * times the 95th percentile of |change| among those others (never its
 * own; sb_aa_change_without), the rule A/A comparisons are judged by.
 * Runs without samples (quantiles-only imports) are "no samples", not
 * tested. When even the most extreme data of these sample sizes could not
 * give p < alpha (2 / C(n1 + n2, n1) >= alpha, e.g. one sample each), the
 * verdict is "insufficient samples", not a regression. A series seen at
 * one commit only is "single commit". A series whose commit has only
 * failing runs while the previous commit passed is "now failing".
 *
 * Whose change a step is (sb_rg_cause): a step of the project's kernels
 * (SB_PROJECT_PROVIDER and solbook-* providers) within a series is the
 * project's code; one of another provider within a series is
 * environment or noise drift, since the project does not change that
 * code; the first step of a series, from the commit before it under
 * another protocol or environment, is a protocol or environment change.
 * Only the first kind counts as a regression (sb_rg_count_regressions).
 */
#ifndef SOLBOOK_REPORT_REGRESS_H
#define SOLBOOK_REPORT_REGRESS_H

#include <stddef.h>

#include "commit_ordinals.h"
#include "result_filter.h"
#include "results.h"
#include "rg_ask.h"
#include "rg_settle.h"
#include "rg_stored.h"
#include "run_cards.h"
#include "run_samples.h"
#include "session_run.h"
#include "strbuf.h"

const char *sb_rg_verdict_name(sb_rg_verdict v); /* "regression", "insufficient samples", ... */

const char *sb_rg_cause_name(sb_rg_cause c); /* "code", "environment/noise drift", ... */

/* A regression measured again as a paired comparison: runs of both
 * commits on one card (suite SB_RG_CONFIRM_SUITE, as
 * bench/scripts/ab_compare.sh writes them), tested at min_effect. */
typedef enum sb_rg_confirm {
    SB_RG_UNCONFIRMED = 0, /* no such pair, or too few samples to tell */
    SB_RG_CONFIRMED,       /* the pair is a regression too */
    SB_RG_REFUTED,         /* the pair shows no regression */
} sb_rg_confirm;

const char *sb_rg_confirm_name(sb_rg_confirm c);

#define SB_RG_CONFIRM_SUITE "ab-compare"
/* 1.5 times 6.3 %, the 95th percentile of |ratio - 1| across two cards
 * of one SKU in the A/A sessions of examples/h100/sessions (`solbook
 * noise`, 84 comparisons on two H100 cards). */
#define SB_RG_CROSS_CARD_DEFAULT 0.095
#define SB_RG_AA_MIN_COMPARISONS 20

const char *sb_rg_threshold_from_name(sb_rg_threshold_from f);

/* 1: provider is one of the project's own kernels. */
int sb_rg_own_provider(const char *provider);

/* What walks over one state of one database by one rule (alpha and
 * min_effect) share: each tested step's figures (sample counts, change
 * of the medians, p) by its two run ids. Several walks over parts of
 * one result set, as the weekly writeups' histories up to each week's
 * end, then test each pair of runs once, and name no run whose samples
 * a step of the memo needs. The first walk given the memo fills it;
 * sb_rg_memo_freeze ends the filling, after which walks on several
 * threads may read it at once. A walk by another rule than the memo's
 * ignores it. */
typedef struct sb_rg_memo sb_rg_memo;
int sb_rg_memo_new(sb_rg_memo **out, sb_error *err);
void sb_rg_memo_freeze(sb_rg_memo *m);
void sb_rg_memo_free(sb_rg_memo *m); /* accepts NULL */

typedef struct sb_rg_opts {
    double alpha;         /* default 0.01 */
    double min_effect;    /* default 0.03 (3 %) */
    const char *repo_url; /* links of commit ranges (URL/compare/OLD...NEW); NULL: none */
    int change_points;    /* 1: the history walk searches each series for change points (only the
                           * --history list shows them); 0: it leaves them out */
    sb_rg_memo *memo;     /* what walks over one database share (sb_rg_memo_new); NULL: none */
} sb_rg_opts;

/* The most bytes of a step's list of what changed. */
#define SB_RG_CHANGED_MAX 191

typedef struct sb_rg_row {
    const sb_result *old_run, *new_run; /* old_run NULL for single commit */
    sb_rg_verdict verdict;
    size_t n_old, n_new;                /* samples */
    double p;                           /* NAN when not tested */
    double p_adjusted;                  /* Benjamini-Hochberg over the step's cases; NAN when not tested */
    double rel_change;                  /* (new - old) / old of the medians; NAN when unknown */
    int latest;                         /* 1: new_run's commit is the newest of its case, provider, SKU */
    sb_rg_cause cause;
    int same_card;       /* 1: both runs on one GPU UUID; 0: two cards; -1: not recorded */
    double threshold;    /* the smallest change the verdict counts */
    sb_rg_threshold_from threshold_from;
    long range_commits;  /* commits from old to new in git order; -1 unknown */
    const char *changed; /* protocol/environment steps: what differs, "timer a -> b; ...",
                          * at most SB_RG_CHANGED_MAX bytes, in the list's text; "" for others */
    sb_rg_confirm confirm;
    double confirm_change;                    /* the pair's (new - old) / old; NAN without one */
    long long confirm_old_run, confirm_new_run; /* the pair's runs; -1 without one */
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

/* The cross-card threshold of one SKU and where it comes from, apart by
 * hold as a case's own A/A threshold is: the steps whose runs held every
 * launch take the A/A comparisons whose runs held (let_go 0), the steps
 * where a run's hold was let go those where one was (1). */
typedef struct sb_rg_noise {
    char sku[64];
    int let_go;
    double threshold;
    size_t comparisons; /* A/A comparisons across cards; 0: SB_RG_CROSS_CARD_DEFAULT */
} sb_rg_noise;

typedef struct sb_rg_list {
    sb_rg_row *v;
    size_t n;
    sb_rg_noise *noise;     /* one per SKU with a cross-card step */
    size_t nnoise;
    size_t series_git;      /* series whose commits are in git order (table commits) */
    size_t series_measured; /* series in first-measured order: a commit not in the table */
    sb_rg_changepoint *cp;  /* the history walk only; in the order of the rows */
    size_t ncp;
    int searched_cp;        /* 1: the history walk searched for change points */
    sb_text_pool *text;     /* the rows' changed text (NULL: none), freed with the list */
    int latest_only;        /* 1: the latest rows only (sb_rg_latest); the drift counts below
                             * are those of the whole history */
    size_t drift_tested, drift_flagged;
    sb_result_set *runs;    /* sb_rg_latest: the runs the rows point into, freed with the list */
} sb_rg_list;

/* The A/A noise of a database's measuring sessions (report/sessions.h)
 * as thresholds take it: each SKU's cross-card noise and each case's
 * A/A change on one card and across two. sb_rg_aa_new measures it from
 * runs, every run of the database's measuring sessions, which the
 * caller reads (db/session_query.h); o gives the rule (alpha and
 * min_effect). Read-only once made: walks on several threads may share
 * one. */
typedef struct sb_rg_aa sb_rg_aa;
int sb_rg_aa_new(const sb_session_runs *runs, const sb_rg_opts *o, sb_rg_aa **out, sb_error *err);
void sb_rg_aa_free(sb_rg_aa *a); /* accepts NULL */

/* The threshold of a step from old_run to new_run (one case, provider
 * and SKU) by the rule above; same_card 1: one GPU UUID, 0: two, -1: not
 * recorded. aa NULL: no A/A runs stored. *from says which rule gave it. */
double sb_rg_threshold(const sb_rg_aa *aa, const sb_result *old_run, const sb_result *new_run, int same_card,
                       double min_effect, sb_rg_threshold_from *from);

/* 1 when a and b are runs of one series: one protocol and one
 * environment (the case, provider and SKU are the caller's to match). */
int sb_rg_same_series(const sb_result *a, const sb_result *b);

/* The step from old_run to new_run of one series of the project's
 * kernels computed again from the stored runs alone, as the history walk
 * computes a step: the card relation from the runs' GPU UUIDs (dev), the
 * threshold from aa (sb_rg_threshold), the change of the medians of the
 * stored samples (samples: both runs' must be there) and the verdict on
 * the unadjusted p (the adjusted one depends on the other cases of the
 * step, and is never smaller). For the claims check (claims.h). */
int sb_rg_step_again(const sb_rg_aa *aa, const sb_run_devices *dev, const sb_run_samples *samples,
                     const sb_result *old_run, const sb_result *new_run, const sb_rg_opts *o, sb_rg_row *row,
                     sb_error *err);

/* Commit order: commits sorted by when they were first measured (the
 * earliest finished_at of their runs in a set; ties by SHA). Where the
 * commits table (db/commits.h) knows every commit of a series, the series
 * follows its git order instead (the history walk). */
typedef struct sb_rg_order {
    void *v;      /* opaque */
    size_t n;     /* commits */
} sb_rg_order;

int sb_rg_order_build(const sb_result_set *set, sb_rg_order *out, sb_error *err);
void sb_rg_order_free(sb_rg_order *o);
/* 0 for the first commit measured, 1 for the next...; -1 for "unknown" or
 * a commit not in the set. */
long sb_rg_order_rank(const sb_rg_order *o, const char *sha);

/* The whole history, the one list every output counts regressions from:
 * for each series of each (case, provider, SKU), every commit with a
 * passing run against the commit before it in the series with one (and
 * "now failing" where a commit has only failing runs after a passing
 * one): the newest passing run at the new commit against the newest
 * passing run at the old one on the same card, else the newest there.
 * The first commit of a series after a commit of another series gives a
 * protocol or environment step from that commit. A series with neither
 * gives one "single commit" row. Runs of suite SB_RG_CONFIRM_SUITE take
 * no part in a series; they confirm or refute the regressions. Rows
 * ordered like set, then by series, then in commit order. The p-values
 * of the tested steps between the same two commits are adjusted by
 * Benjamini-Hochberg and the verdict uses the adjusted p. With
 * o->change_points, each series' per-commit medians also go through the
 * E-Divisive change point search
 * at alpha with 199 permutations, segments of at least 3 commits and a
 * fixed seed; change points that move the level by at least min_effect
 * are listed in out->cp. The thresholds take the A/A noise aa
 * (sb_rg_aa_new by o's rule; NULL: no A/A runs stored).
 *
 * The walk reads nothing: its caller hands it the runs, their cards and
 * their commits' git ordinals (in), and the samples of the runs it names
 * as it goes, as site/site_rg.h's sb_site_rg_history does:
 * sb_rg_walk_open, then sb_rg_walk_next until it names no runs, each
 * call after the first given the samples of the runs the call before
 * named (at most SB_RG_SAMPLES_BATCH of them), then sb_rg_walk_free.
 * out holds the history once sb_rg_walk_next names no runs; the caller
 * frees it (sb_rg_free), also after an error. */
typedef struct sb_rg_inputs {
    const sb_run_devices *dev;     /* the GPU UUIDs of (at least) the runs walked */
    const sb_commit_ordinals *git; /* the git ordinals of their commits; NULL: none known */
} sb_rg_inputs;

typedef struct sb_rg_walk sb_rg_walk;
/* set, in, o and aa must outlive the walk, and set the list out. */
int sb_rg_walk_open(const sb_result_set *set, const sb_rg_inputs *in, const sb_rg_opts *o, const sb_rg_aa *aa,
                    sb_rg_list *out, sb_rg_walk **w, sb_error *err);
/* samples: of the runs the last call named (NULL on the first call);
 * *ids, *n: the runs whose samples the walk takes next, ascending, each
 * once (valid until the next call; *n 0: the walk is done). */
int sb_rg_walk_next(sb_rg_walk *w, const sb_run_samples *samples, const long long **ids, size_t *n,
                    sb_error *err);
void sb_rg_walk_free(sb_rg_walk *w); /* accepts NULL */
/* A walk that only confirms or refutes the regressions of the project's
 * code among the rows of l (as the history's walk does last) with the
 * newest pair of SB_RG_CONFIRM_SUITE runs of paired on one card (dev:
 * their cards), for the rows sb_rg_latest gives; then as above. */
int sb_rg_confirm_open(sb_rg_list *l, const sb_result_set *paired, const sb_run_devices *dev, const sb_rg_opts *o,
                       sb_rg_walk **w, sb_error *err);

/* The run ids whose samples a walk holds at once at most. The walk asks
 * for them sorted by id, and a 32 KiB page of run_samples holds the runs
 * of one night's batch of many series: the more ids a batch has, the
 * more of them each page read serves (docs/SITE.md gives the figures).
 * At 250 samples a run a batch holds 16 MB. */
#define SB_RG_SAMPLES_BATCH 8192

void sb_rg_free(sb_rg_list *l);

/* The histories the history walk would give over the runs of one set up to
 * each of several ends (the weekly writeups' weeks: the set's runs that
 * a filter with has_range, from LLONG_MIN and to the end keeps), taken
 * from the whole history (full: the history walk over set with o and aa,
 * which must outlive it) instead of a walk for each end: the rows up to an end
 * are the whole walk's rows of the commits up to it, whose thresholds of
 * drift noise and Benjamini-Hochberg families are settled again over the
 * steps up to it. */
typedef struct sb_rg_asof sb_rg_asof;
int sb_rg_asof_new(const sb_result_set *set, const sb_commit_ordinals *git, const sb_rg_opts *o, const sb_rg_aa *aa,
                   const sb_rg_list *full, sb_rg_asof **out, sb_error *err);
/* The latest rows (latest_only) of the history walk over the runs of the
 * set up to end, with the drift counts, the cross-card noise and the
 * series counts of that whole history. *found 0 (out empty) where the
 * history up to end is not a part of the whole walk's (a group's runs up
 * to end leave out a commit before the newest of them, a confirming run
 * is up to end, change points are searched): the caller walks the runs
 * itself. Several threads may ask one sb_rg_asof at once. */
int sb_rg_asof_latest(const sb_rg_asof *a, long long end, sb_rg_list *out, int *found, sb_error *err);
void sb_rg_asof_free(sb_rg_asof *a); /* accepts NULL */

/* The stored history (db/rg_steps.h, migration 015; an update
 * (sb_rg_update_open) asks its caller for what it reads of it and gives
 * what to store, sb_rg_fresh and sb_rg_latest take what the caller read
 * of it,
 * model/rg_stored.h): the rows of
 * the history walk over every result run, as its walk over the series leaves
 * them, so that a report reads them instead of loading every run and
 * testing every step's samples again. They hold while the stored runs, the
 * commits table and the settings (alpha, min_effect and the constants
 * above, with SB_RG_RULE_VERSION, which a change to the walk's rule
 * raises) are as they were when they were stored. */
#define SB_RG_RULE_VERSION 1

/* *fresh 1: the stored steps hold for the database as it is now, with
 * o: stored is what its caller read of the database (db/rg_stored_db.h;
 * its state and basis alone serve). */
int sb_rg_fresh(const sb_rg_stored *stored, const sb_rg_opts *o, int *fresh, sb_error *err);

/* What an update does (sb_rg_update_open): stored 1 when it stores
 * steps (0: they hold), full 1 when it walks every series (the first
 * time, or after runs were forgotten or turned profiled, the commits
 * table changed, runs of measuring sessions were stored, a stored commit's first measured time moved or o's rule
 * changed), else only the series of the runs stored since: a series of
 * one protocol and environment whose new runs all come at commits after
 * its stored ones goes on from its last stored step (the runs of the
 * commit that step ends at, or starts from where that commit only failed,
 * and the new runs are walked, the steps appended), any other is walked
 * whole; runs_walked the result runs it walked. */
typedef struct sb_rg_update_info {
    int stored, full;
    size_t runs_walked;
} sb_rg_update_info;

/* What an update starts from, read by its caller: the state and basis
 * as sb_rg_stored holds them (db/rg_stored_db.h), the result runs with
 * an id above then.last_run and those of measuring sessions among them
 * (sb_rg_runs_after), and the stored commits and groups
 * (sb_rg_commits_read, sb_rg_groups_read), which the update takes over. */
typedef struct sb_rg_update_basis {
    sb_rg_state then, now;
    int found;
    long long added, sessions;
    sb_rg_commit_rec *commits;
    size_t ncommits;
    sb_rg_group_rec *groups;
    size_t ngroups;
} sb_rg_update_basis;

/* An update of the stored steps, which reads nothing and stores nothing:
 * it asks its caller for each read it needs (model/rg_ask.h; each ask
 * depends on the answers before it) and gives what to store in batches;
 * the caller stores each batch in the transaction it reads in, then
 * settles the families (one old and one new commit) and drift noise
 * classes whose steps changed (model/rg_settle.h; migration 016) and
 * stores the basis, as sb_site_rg_update (site/site_rg.h) does. The
 * walk's thresholds take aa (as the history walk's), which must outlive
 * it. */
typedef struct sb_rg_update sb_rg_update;
int sb_rg_update_open(const sb_rg_opts *o, const sb_rg_aa *aa, sb_rg_update_basis *basis, sb_rg_update **out,
                      sb_error *err);
/* The update's next move: *ask, what to read next (valid until the next
 * call, which takes its answer in a: the first call takes none), or
 * *batch, the next batch (sb_rg_writes, model/rg_stored.h, valid until
 * the next call, which takes no answer): the steps of the next walked
 * groups, at least one group and then more until most_steps steps, with
 * every commit, drift class and cross-card threshold named so far (the
 * names of earlier batches keep their places: a writer stores only those
 * past the ones it stored), and clear and the basis, which every batch
 * holds alike. Neither: the update is done (no batch comes where the
 * stored steps hold). */
int sb_rg_update_next(sb_rg_update *u, size_t most_steps, sb_rg_answer *a, const sb_rg_ask **ask,
                      const sb_rg_writes **batch, sb_error *err);
/* What the update does, once it asks for no more than samples (before:
 * zeros). */
void sb_rg_update_info_get(const sb_rg_update *u, sb_rg_update_info *info);
void sb_rg_update_free(sb_rg_update *u); /* accepts NULL */

/* The list the whole history gives over every result run, built from
 * the stored steps (stored, read with its steps by the caller,
 * db/rg_stored_db.h) and the runs they name (runs: those of
 * sb_rg_stored_latest_runs, read by the caller; out->runs takes them
 * over), holding only its latest rows (latest_only; for the outputs
 * without --history): the adjusted p-values, the drift thresholds and
 * the drift counts are those of the whole history, read from what the
 * update settled; the confirmations are the caller's to add
 * (sb_rg_confirm_open). name: the database's, for errors about its
 * contents. upto: the end of the runs the caller would walk (the
 * weekly's week end), LLONG_MAX for every run; the stored steps serve
 * only when every run is dated before it. *found 0 (and out empty): the
 * stored steps do not hold (sb_rg_fresh) or do not serve upto; the
 * caller walks the runs itself. */
int sb_rg_latest(const sb_rg_stored *stored, sb_result_set *runs, const char *name, const sb_rg_opts *o,
                 long long upto, sb_rg_list *out, int *found, sb_error *err);

/* 1: row counts as a regression: the project's code (SB_RG_CODE), a
 * regression or now failing, at the newest commit of its case, provider
 * and SKU (a regression the history later undid does not count). */
int sb_rg_counts(const sb_rg_row *r);

/* The regressions: rows for which sb_rg_counts is 1. Every output that
 * gives a number of regressions gives this one. */
size_t sb_rg_count_regressions(const sb_rg_list *l);

/* Steps of other providers within a series (SB_RG_DRIFT) that were
 * tested, and those whose verdict is a regression or an improvement. */
void sb_rg_drift_share(const sb_rg_list *l, size_t *tested, size_t *flagged);

/* The list as the outputs show it (Markdown, JSON): report/render/regress_render.h. */

#endif
