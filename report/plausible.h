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
 * The verdict is computed when a report runs, not stored at ingest: it
 * depends on the stored calibrations and on the two tables, which change
 * after the results are stored, and a stored flag would go stale.
 */
#ifndef SOLBOOK_REPORT_PLAUSIBLE_H
#define SOLBOOK_REPORT_PLAUSIBLE_H

#include <stddef.h>

#include "error.h"
#include "results_query.h"
#include "results.h"
#include "run_devices.h" /* the context reads each checked run's GPU UUID */
#include "session_query.h"
#include "sku.h"
#include "store.h"
#include "strbuf.h"

/* The margin above a ceiling that is still plausible (2%). */
#define SB_PLAUS_MARGIN 0.02

/* Whose card a calibration measured, against the run's. */
typedef enum {
    SB_PLAUS_CARD_UNKNOWN = 0, /* the run or the calibration records no GPU UUID */
    SB_PLAUS_CARD_OWN,         /* the GPU the run ran on */
    SB_PLAUS_CARD_OTHER,       /* another card of the SKU */
} sb_plaus_card;

/* The calibration one measured ceiling comes from, and what the stored
 * calibrations say about its uncertainty. */
typedef struct sb_plaus_source {
    long long calib_run;      /* 0: the ceilings' calib_run, nothing more known */
    char gpu_uuid[96];        /* the calibration's GPU; "" when not recorded */
    long long buffer_bytes;   /* its protocol.buffer_bytes; 0 when not recorded */
    sb_plaus_card card;
    /* The same ceiling over the SKU's calibrated cards (each card's
     * newest calibration that measured it): how many, lowest, highest. */
    int cards;
    double lo, hi;
} sb_plaus_source;

/* Ceilings of one card, NAN where unknown. Each measured bandwidth
 * ceiling comes from the run's own GPU's newest calibration that measured
 * it, else from the SKU's newest that did (copy_src, pair_src, read_src). */
typedef struct sb_plaus_ceilings {
    int measured;          /* 1: from calibration run calib_run; 0: datasheet */
    long long calib_run;   /* copy's calibration */
    double copy_gbps, pair_gbps, read_gbps;
    double l2_bytes;       /* NAN when data/cache_sizes.csv has no row */
    sb_plaus_source copy_src, pair_src, read_src;
} sb_plaus_ceilings;

/* Buffers under this size stream a little slower than larger ones on the
 * same card (examples/h100/read-buffer, examples/h200/read-buffer): an
 * implausible row's reason says when its calibration used smaller ones. */
#define SB_PLAUS_FULL_BUFFER (8LL << 30)

typedef enum {
    SB_PLAUS_OK = 0,
    SB_PLAUS_CACHE_RESIDENT, /* fits L2: not held against HBM */
    SB_PLAUS_IMPLAUSIBLE,
    SB_PLAUS_UNKNOWN,        /* no model, no time or no ceiling */
} sb_plaus_state;

const char *sb_plaus_state_name(sb_plaus_state s); /* ok | cache-resident | implausible | unknown */

/* What one run achieved. The bandwidth ceiling follows the op's mix of
 * reads and writes (read_bytes, write_bytes; NAN when the model has none:
 * copy):
 *   reads only, or at least 4 bytes read a byte written: bw.read; copy
 *     where no calibration of the SKU measured it, and the reason says so;
 *   2 to 4 bytes read a byte written: bw.add/triad (two reads a write);
 *   1 to 2: between copy and add/triad, from a cost a byte read and a cost
 *     a byte written that fit both measurements (bw.copy+add mix; copy
 *     itself at 1:1);
 *   more written than read: copy. */
typedef struct sb_plaus_input {
    double bytes, flops, seconds;   /* NAN when unknown */
    double read_bytes, write_bytes; /* bytes = their sum when both known */
    int l2_cold;                     /* the run flushed L2 before each launch */
    double flop_ceiling_tflops;      /* NAN when unknown */
    const char *flop_ceiling_name;   /* "measured gemm.bf16", "datasheet fp32 (CUDA cores)" */
    int tensor;                      /* 1: the op model's compute is a matmul on tensor cores */
} sb_plaus_input;

typedef struct sb_plaus_verdict {
    sb_plaus_state state;
    double gbps, tflops;            /* achieved; NAN when unknown */
    double ceiling_gbps;            /* the bandwidth ceiling held against; NAN none */
    double pct_ceiling;             /* 100 * gbps / ceiling_gbps */
    char ceiling_name[64];          /* bw.copy, bw.add/triad, datasheet HBM */
    /* The calibration of that ceiling (for bw.copy+add mix, copy's);
     * calib_run -1 for the datasheet. */
    sb_plaus_source source;
    char reason[1024];
    /* The ceiling that fits the op, for a report's "% of ceiling": the
     * matmul's (flop_ceiling_*) where the op model's compute is tensor
     * (FLCE, GEMM), the bandwidth ceiling above otherwise. */
    int tensor;
    double flop_ceiling_tflops;     /* NAN when unknown */
    double pct_flop_ceiling;        /* 100 * tflops / flop_ceiling_tflops */
    char flop_ceiling_name[64];
} sb_plaus_verdict;

/* The check itself, on figures alone (no database, no files). */
void sb_plaus_judge(const sb_plaus_input *in, const sb_plaus_ceilings *c, double margin,
                    sb_plaus_verdict *out);

/* The tables and the ceilings of each card, loaded once for many runs. */
typedef struct sb_plaus_ctx sb_plaus_ctx;

/* Loads data/op_models.csv and data/cache_sizes.csv (NULL paths: under
 * SOLBOOK_HOME) and the SKU table skus (borrowed; NULL: loaded here). */
int sb_plaus_open(sb_db *db, const sb_sku_table *skus, const char *models_csv,
                  const char *caches_csv, sb_plaus_ctx **out, sb_error *err);
void sb_plaus_close(sb_plaus_ctx *c); /* accepts NULL */

/* The verdict of one run (passing or not; reports ask for passing ones). */
int sb_plaus_check(sb_plaus_ctx *c, const sb_result *r, sb_plaus_verdict *out, sb_error *err);

/* Sets r->implausible for every passing run of s: the one call each report
 * makes after loading its runs. */
int sb_plaus_mark(sb_db *db, sb_result_set *s, sb_error *err);

/* Sets implausible on every passing run of a measuring session among
 * runs (db/session_query.h), by the check above on the run as stored
 * (sb_results_load with only_sessions); 0 on the others. The one call
 * before sb_session_compare wherever session pairs make a figure: a pair
 * with an implausible side is then left out and counted
 * (report/sessions.h). */
int sb_plaus_mark_sessions(sb_db *db, sb_session_runs *runs, sb_error *err);
/* sb_session_runs_read (db/session_query.h) and sb_plaus_mark_sessions
 * on the database at path: the marked runs of a command that only reads
 * sessions. */
int sb_plaus_session_runs_read(const char *path, const char *const *ids, size_t nids, sb_session_runs *out,
                               sb_error *err);

/* What sb_plaus_render_md found. */
typedef struct sb_plaus_summary {
    size_t checked;        /* passing picks checked */
    size_t implausible, cache_resident, unknown;
    size_t big_speedups;   /* pairs above SB_SPEEDUP_LOOK (geomean.h) */
    /* the same of the passing runs of measuring sessions */
    size_t session_checked, session_implausible, session_cache_resident, session_unknown;
} sb_plaus_summary;

/* The plausibility section over the newest run of each case (picks of
 * set): every passing run that is implausible or cache-resident with its
 * figures and reason; then every passing run of sessions (the runs of
 * measuring sessions, loaded with only_sessions; NULL: none) that is, with
 * its session; then every speedup of a provider over a headline baseline
 * above SB_SPEEDUP_LOOK (geomean.h) with both times. heading: the
 * Markdown heading level of its titles ("##", "###"). */
int sb_plaus_render_md(sb_db *db, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                       const char *heading, sb_buf *out, sb_plaus_summary *sum, sb_error *err);

/* The same with the implausible runs alone listed (every count kept) and
 * no speedup section: the site's list of the runs headlines leave out. */
int sb_plaus_render_implausible_md(sb_db *db, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                                   const char *heading, sb_buf *out, sb_plaus_summary *sum, sb_error *err);

#endif
