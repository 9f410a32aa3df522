/* weekly.h - what the weekly writeup reports on: its settings and
 * summary, the steps of the regression history it names, its claims and
 * the standing of the project's kernels against the upstream providers.
 * The writeup's files are report/render/weekly_render.h's.
 */
#ifndef SOLBOOK_REPORT_WEEKLY_H
#define SOLBOOK_REPORT_WEEKLY_H


#include "claims.h"
#include "crossarch.h"
#include "error.h"
#include "file_set.h"
#include "geomean.h"
#include "regress.h"
#include "results.h"
#include "run_cards.h"
#include "run_samples.h"
#include "sessions.h"
#include "sku.h"
#include "snapshot.h"
#include "weekly_snapshot.h"

/* The provider of the cross-arch tables: the project's own kernels. */
#define SB_WEEKLY_SUBJECT SB_PROJECT_PROVIDER
/* Limits of the writeup (the appendix has none): a week whose whole
 * writeup would pass them gets its lists cut to fit, each saying how
 * many entries the appendix holds besides (docs/REPORTS.md). */
#define SB_WEEKLY_MAX_BYTES 65536
#define SB_WEEKLY_MAX_LINES 300
/* Speedup plots shown in the writeup besides the rooflines. */
#define SB_WEEKLY_PLOTS 3
#define SB_WEEKLY_GATE_ARCHES "a100,h100,h200"
/* Where the site's pages are from the writeup (it sits in SITE/weekly/). */
#define SB_WEEKLY_SITE_ROOT "../"

typedef struct sb_weekly_opts {
    int year, week;          /* ISO week */
    const char *out_dir;     /* where the caller publishes the files: the summary's
                              * paths are there, and no text of the week may name it */
    const char *db_label;    /* how commands name the database (--db value) */
    const char *baseline;    /* NULL: the headline baselines (geomean.h) */
    sb_rg_opts rg;           /* week-over-week test settings */
    const sb_rg_aa *aa;      /* the A/A noise of the database's sessions (sb_rg_aa_new by rg's
                              * rule) where the caller holds it; NULL: its reader measures it */
    const sb_result_set *all; /* every result run already loaded (sb_results_select),
                               * or NULL: the snapshot's week and note runs are read
                               * for the week alone */
    const sb_result_set *sessions_all; /* with all: every run of measuring sessions
                                        * (sb_results_load_sessions), or NULL */
    const sb_snapshot *snap;  /* the calibrations of the cards (db/snapshot_read.h) */
    const sb_rg_list *regressions; /* the one definition of `report regressions`
                                    * (regress.h) over every run up to the week's end */
    const char *note;              /* the note as sb_weekly_note renders it, the same for
                                    * every week: a caller building many weeks renders it
                                    * once (and skips reading its runs); NULL: rendered here */
} sb_weekly_opts;

typedef struct sb_weekly_summary {
    size_t runs, passing, failed, skipped, training, plots, regressions, improvements;
    size_t md_bytes, md_lines;
    size_t left_out; /* list entries past the writeup's limits, in the appendix only */
    char md_path[4096], html_path[4096], appendix_path[4096], reproduce_path[4096];
} sb_weekly_summary;

/* What the check of the steps the writeup names (claims.h,
 * sb_claims_verify_steps) takes, read by its caller: the A/A noise (NULL:
 * no A/A runs stored, or no step named), and the cards and stored samples
 * of the runs sb_weekly_step_runs names. */
typedef struct sb_weekly_steps {
    const sb_rg_aa *aa;
    sb_run_devices devices;
    sb_run_samples samples;
} sb_weekly_steps;

/* The runs of the steps of rg the writeup names (the regressions and
 * improvements of the project's kernels it lists), run ids ascending,
 * each once (*ids malloc'd, free it). */
int sb_weekly_step_runs(const sb_rg_list *rg, long long **ids, size_t *n, sb_error *err);

/* The steps of the project's kernels the writeup may name: its
 * regressions and improvements, each with the run before it. */
int sb_weekly_names_step(const sb_rg_row *r);

/* The writeup's claims (report/claims.h) into c: the subject's paired
 * headlines h with the runs of their pairs, the cross-arch tables' times
 * and speedups with the runs they are of (picks[0..np) the newest runs),
 * and each regression and improvement of rg as a step of its series. */
void sb_weekly_claims(const sb_session_headlines *h, const sb_xa_set *xa, const sb_pick *picks, size_t np,
                      const sb_rg_list *rg, sb_claims *c);

/* The upstream providers fused is set against on the first screen:
 * Liger-Kernel at its defaults, QuACK, torch.compile of the Hugging Face
 * code and that code itself (a labelled variant is no provider's
 * default). Ended by NULL. */
extern const char *const sb_weekly_upstream[];

/* Where fused stands against the fastest upstream provider of an op group. */
enum { SB_WEEKLY_NONE = -2, SB_WEEKLY_TRAILS = -1, SB_WEEKLY_LEVEL = 0, SB_WEEKLY_LEADS = 1, SB_WEEKLY_UNCLEAR = 2 };

/* fused against the fastest upstream provider of one op group on one
 * SKU: the headline of the newest session with the smallest speedup. */
typedef struct sb_weekly_standing {
    const sb_session_headline *best;
    int state; /* SB_WEEKLY_* */
} sb_weekly_standing;

sb_weekly_standing sb_weekly_standing_of(const sb_session_headlines *h, const char *op, const char *mode,
                                         const char *dtype, const char *sku);

#endif
