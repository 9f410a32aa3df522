/* rg_ask.h - what the update of the stored regression steps
 * (sb_rg_update_open, report/regress.h) asks its caller to read as it
 * decides what to walk and walks it, and the answer it takes: the update
 * names a read in an sb_rg_ask, db/rg_ask_read.h reads it into an
 * sb_rg_answer, and the update goes on from that instead of querying.
 * Each ask depends on the answers before it (the runs of a group are
 * asked only once its last stored step says it cannot go on from there).
 * Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_RG_ASK_H
#define SOLBOOK_MODEL_RG_ASK_H

#include <stddef.h>

#include "commit_ordinals.h"
#include "error.h"
#include "rg_stored.h"
#include "run_cards.h"
#include "run_samples.h"
#include "stored_result.h"

typedef enum sb_rg_ask_kind {
    SB_RG_ASK_NONE = 0,
    SB_RG_ASK_RUNS,       /* the result runs: every one (all), those with an id above
                           * after (after >= 0), else those of ids[0..nids) */
    SB_RG_ASK_RUN_IDS,    /* the ids of the result runs of the commits shas[0..nshas)
                           * (full SHAs) and of the groups of the runs
                           * group_of[0..ngroups) (their case, provider and SKU) */
    SB_RG_ASK_GIT,        /* the git ordinals of shas[0..nshas) */
    SB_RG_ASK_LAST_STEPS, /* the last stored step of each stored group ids[0..nids) */
    SB_RG_ASK_CARDS,      /* the GPU UUIDs of the runs ids[0..nids) */
    SB_RG_ASK_SAMPLES,    /* the samples of the runs ids[0..nids) (ascending, each once) */
} sb_rg_ask_kind;

/* One read; its arrays belong to the update and hold until its next call. */
typedef struct sb_rg_ask {
    sb_rg_ask_kind kind;
    int all;
    long long after;
    const long long *ids;
    size_t nids;
    const char *const *shas;
    size_t nshas;
    const sb_result *const *group_of;
    size_t ngroups;
} sb_rg_ask;

/* The answer to one ask: the member of its kind. Zero-initialise; the
 * update takes over what it keeps (leaving it empty), and the caller
 * frees the rest with sb_rg_answer_free. */
typedef struct sb_rg_answer {
    sb_result_set runs;       /* RUNS */
    long long *ids;           /* RUN_IDS: in any order, repeats possible */
    size_t nids, cap_ids;
    sb_commit_ordinals git;   /* GIT */
    sb_rg_step_rec *last;     /* LAST_STEPS: last[i] is group ids[i]'s where found[i] */
    int *found;               /* (last[i].changed is "") */
    sb_run_devices cards;     /* CARDS */
    sb_run_samples samples;   /* SAMPLES */
} sb_rg_answer;

void sb_rg_answer_free(sb_rg_answer *a); /* leaves it empty */

#endif
