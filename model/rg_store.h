/* rg_store.h - what the update of the stored regression steps
 * (sb_rg_update_open, report/regress.h) reads as it decides what to walk:
 * the stored runs, their cards, the commits table's order, and the stored
 * steps with the figures that tell whether they still hold (its records
 * are model/rg_stored.h's). It reads as it goes (a series' last stored
 * step where its new runs may go on from there, then the runs of the
 * commit that step ends at), so it takes a store, a struct of functions
 * db/rg_store_db.h fills from a connection, instead of the database.
 * Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_RG_STORE_H
#define SOLBOOK_MODEL_RG_STORE_H

#include <stddef.h>

#include "error.h"
#include "result_filter.h"
#include "rg_stored.h"
#include "run_cards.h"
#include "stored_result.h"

/* The store; each function takes ctx first. db/rg_store_db.h says which
 * function of db/ gives each. */
typedef struct sb_rg_store {
    void *ctx;
    const char *name; /* the database's path, for errors about its contents */

    /* ---- the stored runs ---- */
    /* The ordinal of shas[i] in the commits table, -1 where it holds none. */
    int (*ordinals)(void *ctx, const char *const *shas, size_t n, long long *ordinal, sb_error *err);
    /* The GPU UUIDs of the runs ids[0..n). */
    int (*devices_ids)(void *ctx, const long long *ids, size_t n, sb_run_devices *out, sb_error *err);
    /* The result runs matching f; those of ids[0..n), in the same order. */
    int (*results)(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err);
    int (*results_ids)(void *ctx, const sb_result_filter *f, const long long *ids, size_t n,
                       sb_result_set *out, sb_error *err);

    /* ---- the stored history ---- */
    /* The state now; the stored basis (*found 0 when steps were never stored). */
    int (*state_now)(void *ctx, sb_rg_state *now, sb_error *err);
    int (*state_read)(void *ctx, sb_rg_state *st, int *found, sb_error *err);
    /* The runs whose id is above after: *n of them, *sessions of runs of measuring sessions. */
    int (*runs_after)(void *ctx, long long after, long long *n, long long *sessions, sb_error *err);
    int (*groups_read)(void *ctx, sb_rg_group_rec **out, size_t *n, sb_error *err);
    /* A group's last step alone (each not called when it has none):
     * opened once (*rd), read, closed (accepts NULL). */
    int (*steps_open)(void *ctx, void **rd, sb_error *err);
    int (*steps_read_last)(void *rd, long long grp, sb_rg_step_fn each, void *each_ctx, sb_error *err);
    void (*steps_close)(void *rd);
    /* The ids of the result runs of one case, provider and SKU, or of one
     * commit (full SHA), added to *ids (malloc'd, *n of them, *cap allocated). */
    int (*group_run_ids)(void *ctx, const char *case_key, const char *provider, const char *sku,
                         long long **ids, size_t *n, size_t *cap, sb_error *err);
    int (*commit_run_ids)(void *ctx, const char *sha, long long **ids, size_t *n, size_t *cap,
                          sb_error *err);
    int (*commits_read)(void *ctx, sb_rg_commit_rec **out, size_t *n, sb_error *err);

} sb_rg_store;

#endif
