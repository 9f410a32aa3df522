/* rg_steps.h - the stored regression history (migration 015: rg_steps,
 * rg_noise, rg_basis, rg_changes). report/regress.h computes the steps and
 * decides when the stored ones still hold; this module only reads and
 * writes them, with the figures that tell whether the database changed.
 */
#ifndef SOLBOOK_DB_RG_STEPS_H
#define SOLBOOK_DB_RG_STEPS_H

#include <stddef.h>

#include "error.h"
#include "store.h"

/* One stored step (a row of rg_steps); the enumerations are report/regress.h's. */
typedef struct sb_rg_step_rec {
    long long old_run;  /* -1: none */
    long long new_run;
    long long old_commit, new_commit, drift_class;
    int verdict, cause, latest, same_card, threshold_from;
    long long samples_old, samples_new, range_commits;
    double p, rel_change, threshold; /* NAN: NULL */
    const char *changed;             /* "" when none; valid during the callback only */
} sb_rg_step_rec;

/* One cross-card threshold of rg_noise. */
typedef struct sb_rg_noise_rec {
    char sku[64];
    int let_go;
    double threshold;
    long long comparisons;
} sb_rg_noise_rec;

/* rg_basis: what the steps were computed from, and the list's counts. */
typedef struct sb_rg_basis {
    char sha256[65];
    long long series_git, series_measured;
    long long newest_epoch; /* the newest finished time of a result run */
    long long undated;      /* result runs without a finished time reports read */
} sb_rg_basis;

/* The SHA-256 (hex) of rule (the caller's settings, as text) and of the
 * state of the stored runs: their number, the greatest id, rg_changes and
 * the schema version. Any run stored or forgotten, or any change to the
 * commits table, changes it. */
int sb_rg_state_digest(sb_db *db, const char *rule, char hex[65], sb_error *err);

/* The stored basis; *found 0 when no steps were ever stored. */
int sb_rg_basis_read(sb_db *db, sb_rg_basis *b, int *found, sb_error *err);

/* Replaces the stored steps, cross-card thresholds and basis (inside the
 * caller's transaction). */
int sb_rg_steps_write(sb_db *db, const sb_rg_basis *b, const sb_rg_step_rec *steps, size_t n,
                      const sb_rg_noise_rec *noise, size_t nnoise, sb_error *err);

/* Calls each for every stored step in seq order; each returns SB_OK or
 * SB_ERR (with err set), which stops the walk. */
typedef int (*sb_rg_step_fn)(void *ctx, const sb_rg_step_rec *s, sb_error *err);
int sb_rg_steps_each(sb_db *db, sb_rg_step_fn each, void *ctx, sb_error *err);

/* The stored cross-card thresholds in seq order (malloc'd, *n of them). */
int sb_rg_noise_read(sb_db *db, sb_rg_noise_rec **out, size_t *n, sb_error *err);

#endif
