/* rg_stored.h - the records of the regression walk's stored history
 * (migration 015, db/rg_steps.h): a step, a group (case, provider,
 * SKU), a commit, a cross-card threshold, the figures of a drift class,
 * the basis the steps were computed from; and what the reports read of
 * that history at once (sb_rg_stored, db/rg_stored_db.h reads it): the
 * basis and the database's state now, and each group's latest steps with
 * what settles them. Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_RG_STORED_H
#define SOLBOOK_MODEL_RG_STORED_H

#include <stddef.h>

#include "error.h"

/* A step's verdict, cause and the source of its threshold, as stored
 * (report/regress.h says what each means). */
typedef enum sb_rg_verdict {
    SB_RG_REGRESSION = 0,
    SB_RG_NOW_FAILING,
    SB_RG_IMPROVEMENT,
    SB_RG_NO_CHANGE,
    SB_RG_INSUFFICIENT,
    SB_RG_NO_SAMPLES,
    SB_RG_SINGLE_COMMIT,
} sb_rg_verdict;

typedef enum sb_rg_cause {
    SB_RG_CODE = 0,    /* the project's kernels, within one series */
    SB_RG_DRIFT,       /* another provider, within one series */
    SB_RG_ENVIRONMENT, /* across an environment change (same protocol) */
    SB_RG_PROTOCOL,    /* across a protocol change */
} sb_rg_cause;

/* Where a step's threshold comes from. */
typedef enum sb_rg_threshold_from {
    SB_RG_FROM_MIN_EFFECT = 0, /* min_effect: one card, no A/A runs of the case */
    SB_RG_FROM_CASE_AA,        /* the case's own A/A runs on that relation of cards */
    SB_RG_FROM_SKU_AA,         /* the SKU's cross-card A/A runs, or the default */
    SB_RG_FROM_HISTORY_AA,     /* the other drift steps of its noise class */
} sb_rg_threshold_from;

/* One stored step (a row of rg_steps); verdict, cause and threshold_from
 * hold the enumerations above. */
typedef struct sb_rg_step_rec {
    long long old_run;  /* -1: none */
    long long new_run;
    long long old_commit, new_commit, drift_class, noise;
    int verdict, cause, latest, same_card, threshold_from;
    long long samples_old, samples_new, range_commits;
    double p, rel_change, threshold; /* NAN: NULL */
    const char *changed;             /* "" when none; valid during the callback only */
    /* filled by reads only (writes ignore them): */
    long long grp, seq;
    double p_adjusted;               /* NAN: outside every family (migration 016) */
} sb_rg_step_rec;

/* A step as the passes over many series read it: a member of a family
 * (one old and one new commit) or a tested drift step of a class. */
typedef struct sb_rg_member {
    long long grp, seq;
    double p, p_adjusted, rel_change, threshold; /* NAN: NULL */
    int verdict, cause;
    long long drift_class;
    long long old_commit, new_commit;
} sb_rg_member;

/* What the thresholds of one drift class's steps come from, and how many
 * of its steps are flagged (rg_class_figs). */
typedef struct sb_rg_class_figs {
    long long cls;
    long long tested;        /* tested steps, counted up to SB_RG_DRIFT_MIN_CLASS + 1 */
    long long top_grp, top_seq; /* the step of the largest |change|; -1 none */
    double top_change, second_change;
    long long flagged;
} sb_rg_class_figs;

/* What the stored steps were computed from (rg_basis), or the database's
 * state now (state_now fills runs, last_run, changes and schema). */
typedef struct sb_rg_state {
    char rule_sha256[65];
    long long runs, last_run, changes, schema;
    long long newest_epoch; /* the newest finished time of a result run */
    long long undated;      /* result runs without a finished time reports read */
} sb_rg_state;

/* One stored (case, provider, SKU). */
typedef struct sb_rg_group_rec {
    long long grp;
    char *case_key, *provider, *sku;
    long long series_git, series_measured;
    long long drift_tested; /* drift steps whose verdict is a regression, an improvement or no change */
} sb_rg_group_rec;
void sb_rg_groups_free(sb_rg_group_rec *v, size_t n);

/* One stored commit. */
typedef struct sb_rg_commit_rec {
    long long id;
    char *sha;
    long long first_epoch;
} sb_rg_commit_rec;
void sb_rg_commits_free(sb_rg_commit_rec *v, size_t n);

/* One cross-card threshold. */
typedef struct sb_rg_noise_rec {
    long long id;
    char sku[64];
    int let_go;
    double threshold;
    long long comparisons;
} sb_rg_noise_rec;

/* Called for each step a read gives; returns SB_OK or SB_ERR (with err
 * set), which stops the read. */
typedef int (*sb_rg_step_fn)(void *ctx, const sb_rg_step_rec *s, sb_error *err);

/* Where the steps first took a cross-card threshold: group grp, the
 * first in (case_key, provider, sku) order whose steps took noise, and
 * the least seq of those steps. */
typedef struct sb_rg_noise_seq {
    long long grp, noise, seq;
} sb_rg_noise_seq;

/* The stored history as sb_rg_fresh and sb_rg_latest (report/regress.h)
 * take it. now holds the database's runs, last_run, changes and schema;
 * then the stored basis (found 0: steps were never stored). The rest is
 * read only where asked for and steps were stored (steps_read 1). */
typedef struct sb_rg_stored {
    sb_rg_state then, now;
    int found;
    int steps_read;
    sb_rg_group_rec *groups;   /* every stored group, in the order read */
    size_t ngroups;
    size_t *latest_from;       /* group i's latest steps: latest[latest_from[i] .. latest_from[i + 1]) */
    sb_rg_step_rec *latest;    /* in seq order within a group; changed owned here */
    size_t nlatest;
    sb_rg_class_figs *figs;    /* by class id */
    size_t nfigs;
    sb_rg_noise_rec *noise;    /* every cross-card threshold stored */
    size_t nnoise;
    sb_rg_noise_seq *noise_first; /* one for each threshold some step took, sorted by (grp, noise) */
    size_t nnoise_first;
} sb_rg_stored;
void sb_rg_stored_free(sb_rg_stored *s); /* accepts an emptied one */
/* The runs the latest steps of s name (old and new), in *ids (malloc'd,
 * *n of them; repeats possible). */
int sb_rg_stored_latest_runs(const sb_rg_stored *s, long long **ids, size_t *n, sb_error *err);

/* One group's steps in what an update stores (sb_rg_writes): in place of
 * the group's stored steps (grp 0; the group is added when new), or after
 * them (grp, the stored group's id). */
typedef struct sb_rg_write_group {
    char *case_key, *provider, *sku;
    long long grp;
    long long series_git, series_measured;
    size_t first, n; /* its steps: steps[first .. first + n) */
} sb_rg_write_group;

/* One batch of what an update of the stored history stores
 * (report/regress.h, sb_rg_update_next), in the order it is to be
 * stored: with clear, every stored step goes first and the groups are
 * written anew in bulk. The steps name commits, classes and thresholds by
 * their place in this record: their old_commit and new_commit are 1 + an
 * index into commits (0: none), drift_class 1 + an index into classes,
 * noise 1 + an index into noise. The names of earlier batches keep their
 * places, so the writer stores each name once, when it first comes, and
 * puts its stored id in its place. */
typedef struct sb_rg_writes {
    int clear;
    sb_rg_state state;         /* the basis the steps are computed from */
    sb_rg_commit_rec *commits; /* id unused */
    size_t ncommits;
    char **classes;            /* each drift class's key */
    size_t nclasses;
    sb_rg_noise_rec *noise;    /* id unused */
    size_t nnoise;
    sb_rg_write_group *groups;
    size_t ngroups;
    sb_rg_step_rec *steps;     /* changed owned here where not "" */
    size_t nsteps;
} sb_rg_writes;
void sb_rg_writes_free(sb_rg_writes *w); /* accepts an emptied one */

#endif
