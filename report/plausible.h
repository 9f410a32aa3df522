/* plausible.h - is a passing result physically possible on its card?
 * (docs/REPORTS.md, "Plausibility").
 *
 * A passing run's achieved bytes/s and FLOP/s (the op's byte and FLOP
 * model, data/op_models.csv, over its kernel time where it recorded one,
 * else its median time; the run's own metrics where the table has no
 * expression) are held against the card's measured ceilings (the newest
 * calibration of the run's own GPU, by GPU UUID, else the SKU's newest)
 * or, without one, the datasheet figures of data/skus.csv, plus a margin. A run above it is implausible: it stays stored, every
 * headline leaves it out and counts it, and `solbook report plausibility`
 * lists it with the reason. A run whose bytes a launch moves fit the L2 of
 * its card (data/cache_sizes.csv) is cache-resident: it is not held against
 * HBM.
 *
 * `solbook ingest` judges each run it stores and stores the verdict
 * (cli/ingest_verdicts.h, db/run_verdicts.h); a verdict depends on the
 * stored calibrations and on the tables too, so a report reads the stored
 * ones only while they were judged with the calibrations and tables of
 * now, and judges a run itself where no stored verdict holds. The check
 * on figures alone, and the spread of a ceiling over a SKU's cards, are
 * model/plausibility.h's. What the check takes of the stored runs its
 * caller reads before, once, for the runs it checks: a snapshot
 * (model/plaus_snap.h) that db/plaus_snap_db.h fills, each call below
 * saying which read it takes (site/site_plaus.h reads and calls in one):
 * nothing here queries.
 */
#ifndef SOLBOOK_REPORT_PLAUSIBLE_H
#define SOLBOOK_REPORT_PLAUSIBLE_H

#include <stddef.h>

#include "error.h"
#include "geomean.h"
#include "plaus_snap.h"
#include "plausibility.h"
#include "results.h"
#include "session_run.h"
#include "sku.h"

/* The tables and the ceilings of each card, loaded once for many runs,
 * and whether the stored verdicts hold. */
typedef struct sb_plaus_ctx sb_plaus_ctx;

/* Loads data/op_models.csv and data/cache_sizes.csv (NULL paths: under
 * SOLBOOK_HOME) and the SKU table skus (borrowed; NULL: loaded here); the
 * check takes what it reads of the stored runs from snap (borrowed: read
 * by sb_plaus_snap_read_verdicts for the runs checked, or
 * sb_plaus_snap_read_basis and sb_plaus_snap_read_runs for runs judged,
 * db/plaus_snap_db.h). */
int sb_plaus_open(const sb_plaus_snap *snap, const sb_sku_table *skus, const char *models_csv,
                  const char *caches_csv, sb_plaus_ctx **out, sb_error *err);
void sb_plaus_close(sb_plaus_ctx *c); /* accepts NULL */

/* The verdict of one run (passing or not; reports ask for passing ones):
 * a passing run's stored verdict where the stored verdicts hold and it
 * has one, else judged now. */
int sb_plaus_check(sb_plaus_ctx *c, const sb_result *r, sb_plaus_verdict *out, sb_error *err);

/* The SHA-256 of what a verdict is judged with: the rule (SB_PLAUS_RULE,
 * this solbook's version) and the three tables (NULL paths: under
 * SOLBOOK_HOME; data/skus.csv always), in hex. A stored verdict holds
 * while its basis has the same (db/plaus_snap_db.h compares them). */
int sb_plaus_tables_sha256(const char *models_csv, const char *caches_csv, char hex[65], sb_error *err);

/* Sets r->implausible for every passing run of s: the one call each report
 * makes after loading its runs, with the snapshot its caller read of s
 * (sb_plaus_snap_read_marks, db/plaus_snap_db.h). It takes the stored
 * verdicts' states where they hold, and judges the runs without one. */
int sb_plaus_mark(const sb_plaus_snap *snap, sb_result_set *s, sb_error *err);

/* Sets implausible on every passing run of a measuring session among
 * runs (db/session_query.h), by the check above on the run as stored
 * (sb_results_load with only_sessions); 0 on the others; from the
 * snapshot sb_plaus_snap_read_sessions read of runs. The one call before
 * sb_session_compare wherever session pairs make a figure: a pair with an
 * implausible side is then left out and counted (report/sessions.h). */
int sb_plaus_mark_sessions(const sb_plaus_snap *snap, sb_session_runs *runs, sb_error *err);

/* For storing verdicts at ingest (cli/ingest_verdicts.h): the verdict of
 * r judged now from the tables and calibrations, whatever is stored (its
 * card and SKU read into the snapshot first), and what verdicts judged
 * now are judged with. */
int sb_plaus_judge_run(sb_plaus_ctx *c, const sb_result *r, sb_plaus_verdict *out, sb_error *err);
const sb_verdict_basis *sb_plaus_basis(const sb_plaus_ctx *c);

/* What the listing counts (sb_plaus_list). */
typedef struct sb_plaus_summary {
    size_t checked;        /* passing picks checked */
    size_t implausible, cache_resident, unknown;
    size_t big_speedups;   /* pairs above SB_SPEEDUP_LOOK (geomean.h) */
    /* the same of the passing runs of measuring sessions */
    size_t session_checked, session_implausible, session_cache_resident, session_unknown;
} sb_plaus_summary;

/* A run the listing names, with its verdict. */
typedef struct sb_plaus_listed {
    const sb_result *run;
    sb_plaus_verdict verdict;
} sb_plaus_listed;

/* A speedup of a provider's run over a headline baseline's above
 * SB_SPEEDUP_LOOK (geomean.h) on a case both passed, with both times. */
typedef struct sb_plaus_big {
    const sb_result *run, *base;
    const char *baseline;          /* the headline baseline base is a run of */
    sb_time_kind time;             /* kernel where both recorded it, else call */
    double run_ms, base_ms, speedup;
} sb_plaus_big;

/* What the plausibility section lists: the passing picks' runs that are
 * implausible or cache-resident, the same of the measuring sessions' runs,
 * the speedups above SB_SPEEDUP_LOOK, and the counts. */
typedef struct sb_plaus_listing {
    sb_plaus_listed *runs, *session_runs; /* in the order checked */
    size_t nruns, nsession_runs;
    sb_plaus_big *big;                    /* in the order of the picks */
    size_t nbig;
    sb_plaus_summary sum;
} sb_plaus_listing;

/* Checks every passing run of picks (the newest run of each case) and of
 * sessions (the runs of measuring sessions, loaded with only_sessions;
 * NULL: none) and lists the implausible ones and, unless
 * implausible_only, the cache-resident ones and the speedups above
 * SB_SPEEDUP_LOOK; every count is kept either way. snap: what
 * sb_plaus_snap_read_verdicts read of the picks' runs and the sessions'.
 * The writers are report/render/plausible_render.h's. */
int sb_plaus_list(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                  int implausible_only, sb_plaus_listing *out, sb_error *err);
void sb_plaus_listing_free(sb_plaus_listing *l);

#endif
