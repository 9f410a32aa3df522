/* rg_steps.h - the stored regression history (migration 015: rg_groups,
 * rg_steps, rg_commits, rg_classes, rg_noise, rg_basis, rg_changes).
 * report/regress.h computes the steps and decides when the stored ones
 * still hold and which series to walk again; this module only reads and
 * writes them, with the figures that tell whether the database changed.
 * The writes belong inside the caller's transaction (site/site_rg.h's
 * sb_site_rg_update). The records are model/rg_stored.h's; the reads
 * answer what the update asks (db/rg_ask_read.h). Writing a
 * group's steps notes the families and classes of the steps it removes
 * and adds (migration 016), which settling takes.
 */
#ifndef SOLBOOK_DB_RG_STEPS_H
#define SOLBOOK_DB_RG_STEPS_H

#include <stddef.h>

#include "error.h"
#include "rg_stored.h"
#include "store.h"

int sb_rg_state_now(sb_db *db, sb_rg_state *now, sb_error *err);
/* *found 0 when no steps were ever stored. */
int sb_rg_state_read(sb_db *db, sb_rg_state *st, int *found, sb_error *err);
int sb_rg_state_write(sb_db *db, const sb_rg_state *st, sb_error *err);

/* The runs whose id is above after: *n of them, *sessions of those runs
 * of measuring sessions. */
int sb_rg_runs_after(sb_db *db, long long after, long long *n, long long *sessions, sb_error *err);

/* Deletes every stored step, group, commit, class and threshold. */
int sb_rg_clear(sb_db *db, sb_error *err);

int sb_rg_groups_read(sb_db *db, sb_rg_group_rec **out, size_t *n, sb_error *err);

/* Replaces the group's stored steps with steps[0..n) and its counts
 * (adding the group when it is new). */
int sb_rg_group_put(sb_db *db, const char *case_key, const char *provider, const char *sku,
                    long long series_git, long long series_measured, const sb_rg_step_rec *steps,
                    size_t n, sb_error *err);

/* Adds steps[0..n) after the stored steps of group grp, whose steps all
 * stop being latest: the series' new commits come after every stored one. */
int sb_rg_group_append(sb_db *db, long long grp, const sb_rg_step_rec *steps, size_t n, sb_error *err);

/* Reads the steps of one group after another in seq order: each is
 * called for every step; it returns SB_OK or SB_ERR (with err set),
 * which stops the read. */
typedef struct sb_rg_steps_reader sb_rg_steps_reader;
int sb_rg_steps_reader_open(sb_db *db, sb_rg_steps_reader **out, sb_error *err);
int sb_rg_steps_read(sb_rg_steps_reader *rd, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err);
/* The group's last step alone (each is not called when it has none). */
int sb_rg_steps_read_last(sb_rg_steps_reader *rd, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err);
/* The group's latest steps alone, in seq order. */
int sb_rg_steps_read_latest(sb_rg_steps_reader *rd, long long grp, sb_rg_step_fn each, void *ctx, sb_error *err);
void sb_rg_steps_reader_close(sb_rg_steps_reader *rd); /* accepts NULL */

/* The ids of the result runs of one case, provider and SKU, added to
 * *ids (malloc'd, *n of them, *cap allocated). */
int sb_rg_group_run_ids(sb_db *db, const char *case_key, const char *provider, const char *sku,
                        long long **ids, size_t *n, size_t *cap, sb_error *err);

/* The ids of the runs of one commit (its full SHA), added to *ids as
 * sb_rg_group_run_ids adds them. */
int sb_rg_commit_run_ids(sb_db *db, const char *sha, long long **ids, size_t *n, size_t *cap, sb_error *err);

int sb_rg_commits_read(sb_db *db, sb_rg_commit_rec **out, size_t *n, sb_error *err);
/* Stores sha's earliest finished time, adding the commit when it is new;
 * *id its id. */
int sb_rg_commit_put(sb_db *db, const char *sha, long long first_epoch, long long *id, sb_error *err);

/* The id of a drift noise class's text, added when it is new. */
int sb_rg_class_id(sb_db *db, const char *class_key, long long *id, sb_error *err);

/* The id of (sku, let_go)'s threshold, stored with e's figures. */
int sb_rg_noise_put(sb_db *db, const sb_rg_noise_rec *e, long long *id, sb_error *err);
/* Every stored threshold, by id (malloc'd, *n of them). */
int sb_rg_noise_read(sb_db *db, sb_rg_noise_rec **out, size_t *n, sb_error *err);

/* The first seq of group grp's steps that took cross-card threshold
 * noise (*found 0: none did). */
int sb_rg_noise_first(sb_db *db, long long grp, long long noise, long long *seq, int *found, sb_error *err);

/* ---- a full walk's writes: after sb_rg_clear, every group's steps in
 * one pass with the statements prepared once; the indexes of rg_steps
 * (as sqlite_master holds them) are dropped by sb_rg_bulk_open and made
 * again by sb_rg_bulk_finish, since keeping four indexes through a
 * million inserts costs more than building them once. No family or class
 * is noted: the caller settles every one, storing the adjusted p-values
 * with sb_rg_family_put, before sb_rg_bulk_finish. sb_rg_bulk_group: the
 * steps of a group not yet stored, with its counts; sb_rg_bulk_steps:
 * every stored step that is a member of a family or has a drift class,
 * in (grp, seq) order (malloc'd). ---- */
typedef struct sb_rg_bulk sb_rg_bulk;
int sb_rg_bulk_open(sb_db *db, sb_rg_bulk **out, sb_error *err);
int sb_rg_bulk_group(sb_rg_bulk *b, const char *case_key, const char *provider, const char *sku,
                     long long series_git, long long series_measured, const sb_rg_step_rec *steps, size_t n,
                     sb_error *err);
int sb_rg_bulk_steps(sb_rg_bulk *b, sb_rg_member **out, size_t *n, sb_error *err);
int sb_rg_bulk_finish(sb_rg_bulk *b, sb_error *err);
void sb_rg_bulk_close(sb_rg_bulk *b); /* accepts NULL */

/* ---- settling (migration 016; model/rg_settle.h computes) ----
 * sb_rg_dirty_take: the families (pairs old, new commit in *fam, *nfam
 * pairs) and the classes whose steps were removed or added since the
 * last call, then forgotten (malloc'd); sb_rg_family_read: the members
 * of the family (old_commit, new_commit) (malloc'd); sb_rg_family_put
 * stores m[i].p_adjusted of each member; sb_rg_class_top: the tested
 * steps of class cls, *tested of them counted up to cap, and the two of
 * the largest |change| (top[0], top[1]; *ntop of them, at most 2);
 * sb_rg_class_steps: the tested steps of class cls whose |change| is at
 * least min_abs (malloc'd). */
int sb_rg_dirty_take(sb_db *db, long long **fam, size_t *nfam, long long **cls, size_t *ncls, sb_error *err);
int sb_rg_family_read(sb_db *db, long long old_commit, long long new_commit, sb_rg_member **out, size_t *n,
                      sb_error *err);
int sb_rg_family_put(sb_db *db, const sb_rg_member *m, size_t n, sb_error *err);
int sb_rg_class_top(sb_db *db, long long cls, long long cap, long long *tested, sb_rg_member top[2], size_t *ntop,
                    sb_error *err);
int sb_rg_class_steps(sb_db *db, long long cls, double min_abs, sb_rg_member **out, size_t *n, sb_error *err);
int sb_rg_class_figs_put(sb_db *db, const sb_rg_class_figs *f, sb_error *err);
int sb_rg_class_figs_read(sb_db *db, sb_rg_class_figs **out, size_t *n, sb_error *err);

#endif
