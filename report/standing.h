/* standing.h - the generated tables of KERNELS.md (`solbook report
 * standing`, docs/REPORTS.md; the main job fills them into out/KERNELS.md,
 * a copy of the hand-written docs/KERNELS.md): the project's kernels against Liger-Kernel,
 * the Hugging Face code and torch.compile, against the project's eager
 * reference, and against the copy ceiling and torch.compile in the
 * memory-bound presets. A speedup of one provider over another is paired
 * within one measuring session where a session measured the case
 * (report/sessions.h); the newest runs of the cases no session pairs
 * follow under SB_UNPAIRED_LABEL (sessions.h). Shares of the copy ceiling and the
 * blocks against `reference` (solbench's own baseline) read the newest
 * run of every case.
 *
 * A document carries each table between a start line and an end line,
 *     <!-- solbook report standing: NAME -->
 *     ...
 *     <!-- end solbook report standing -->
 * and the rewrite replaces only what lies between them: every other byte of
 * the document stays as it is.
 */
#ifndef SOLBOOK_REPORT_STANDING_H
#define SOLBOOK_REPORT_STANDING_H

#include <stddef.h>

#include "error.h"
#include "paired.h"
#include "results.h"
#include "sessions.h"
#include "sku.h"
#include "snapshot.h"
#include "stored_result.h"
#include "strbuf.h"

#define SB_STANDING_BEGIN "<!-- solbook report standing: "
#define SB_STANDING_BEGIN_TAIL " -->"
#define SB_STANDING_END "<!-- end solbook report standing -->"

/* The blocks, in the order `report standing` prints them. Ended by NULL. */
extern const char *const sb_standing_blocks[];

/* The figures of the blocks: thresholds of the copy ceiling. */
#define SB_STANDING_RMSNORM_COPY 0.90
#define SB_STANDING_MEMORY_COPY 0.85
#define SB_STANDING_MEMORY_ROW 4096

/* What the blocks of a document read, gathered once: report/render/
 * standing_render.h reads it, and the figures below compute from it. */
#define SB_STANDING_MAX_CARDS 16
typedef struct sb_standing sb_standing;

/* The presets the Liger and the memory-bound blocks read: a case's key
 * names no suite, so the quick preset's runs of a case and the full
 * preset's are one case, and the newest run of it decides. Ended by NULL. */
extern const char *const sb_standing_liger_suites[];
extern const char *const sb_standing_memory_suites[];

/* Which cases of one card a figure reads; NULL: any. */
typedef struct sb_standing_filter {
    const char *sku, *op, *mode, *dtype;
    long long min_row; /* the row (N, or V for cross entropy) at least this; 0: any */
} sb_standing_filter;

/* provider against baseline over the cases both passed. */
typedef struct sb_standing_pairs {
    size_t n;                 /* cases compared */
    size_t slower;            /* of them, where the provider took longer */
    double geomean, worst;    /* baseline time / provider time; NAN when n == 0 */
    const sb_result *worst_case;
} sb_standing_pairs;

typedef struct sb_standing_copies {
    size_t n, at;             /* cases with bytes and a time; of them at or above the threshold */
    double lowest;            /* NAN when n == 0 */
    const sb_result *lowest_case;
} sb_standing_copies;

/* provider against baseline from the measuring sessions: one session's
 * pairs (the session that pairs the most of the filter's cases, the newest
 * of those on a tie), as the headlines give them. */
typedef struct sb_standing_paired {
    size_t n;
    sb_paired geo;
    size_t worst; /* index into the headlines' pairs */
    size_t wins, losses;
    const char *session;
} sb_standing_paired;

/* The newest run of each case among the runs of some suites. */
typedef struct sb_standing_family {
    sb_result_set runs; /* shallow copies of the whole set's runs: free runs.v only */
    sb_pick *picks;
    size_t np;
} sb_standing_family;

struct sb_standing {
    const sb_sku_table *skus;
    const sb_result_set *set; /* every result run, with its plausibility marks */
    sb_pick *picks; /* every suite */
    size_t np;
    sb_standing_family liger, memory;
    const char *card[SB_STANDING_MAX_CARDS], *card_arch[SB_STANDING_MAX_CARDS];
    double copy[SB_STANDING_MAX_CARDS];     /* bw.copy of the newest calibration, GB/s; NAN: none */
    size_t ncards;
    double *ratios; /* scratch, one a run */
    const sb_session_headlines *paired; /* every session's checked headlines (docs/CLAIMS.md, rule 8) */
    size_t *idx;    /* scratch, one a session pair */
};

/* set: every result run (sb_results_load with no filter, db/results_query.h)
 * with its plausibility marks (report/plausible.h, sb_plaus_mark); paired:
 * the checked headlines of every session (report/claims.h); snap: the
 * cards' calibrations (db/snapshot_read.h). s borrows all three: they
 * outlive it. skus may be NULL (cards are then named by their SKU id). */
int sb_standing_open(const sb_result_set *set, const sb_session_headlines *paired,
                     const sb_snapshot *snap, const sb_sku_table *skus, sb_standing **out,
                     sb_error *err);
void sb_standing_close(sb_standing *s);

/* Renders the block called name into out. */
typedef int (*sb_standing_block_fn)(void *ctx, const char *name, sb_buf *out, sb_error *err);

/* text with every marked block's lines replaced by fn's rendering of its
 * name; path names the document in errors. A start line inside a block,
 * an end line outside one, a block left open, or a text with no block is
 * an error with the line it is on. *blocks receives the number rewritten. */
int sb_standing_rewrite_text(const char *text, size_t len, const char *path, sb_standing_block_fn fn,
                             void *ctx, sb_buf *out, size_t *blocks, sb_error *err);

/* ---- figures ---- */

/* A shape's integer dimension, -1 when absent. */
long long sb_standing_shape_dim(const sb_result *r, const char *name);
/* Whether r is a case cf reads. */
int sb_standing_matches(const sb_result *r, const sb_standing_filter *cf);
/* provider over baseline on the newest runs picks[0..np) that cf reads.
 * kernel_only: only cases where both sides recorded kernel time, compared
 * in it (a Python provider's call time holds its launch cost); otherwise
 * each case in kernel time where both recorded it, else in call time.
 * unpaired: only cases no measuring session pairs (their figure is the
 * paired one, sb_standing_paired_stats). */
void sb_standing_pair_stats(sb_standing *s, const sb_pick *picks, size_t np, const sb_standing_filter *cf,
                            const char *provider, const char *baseline, int kernel_only, int unpaired,
                            sb_standing_pairs *out);
/* The project's passing cases against the card's copy ceiling copy
 * (GB/s): model bytes over call time, as out/EVIDENCE.md's "% copy". */
void sb_standing_copy_stats(const sb_pick *picks, size_t np, const sb_standing_filter *cf, double copy,
                            double threshold, sb_standing_copies *out);
/* provider over baseline from the measuring sessions of suites. */
int sb_standing_paired_stats(sb_standing *s, const char *const *suites, const sb_standing_filter *cf,
                             const char *provider, const char *baseline, sb_standing_paired *out, sb_error *err);
/* The distinct ops of a card's passing runs of provider, sorted, into
 * ops (at most cap); their count. */
size_t sb_standing_ops(const sb_pick *picks, size_t np, const char *sku, const char *provider, const char **ops,
                       size_t cap);
/* The ops of a card's headlines of provider, from sessions of suites,
 * added to ops[0..*n) (sorted, at most cap). */
void sb_standing_paired_ops(const sb_standing *s, const char *sku, const char *const *suites, const char *provider,
                            const char **ops, size_t *n, size_t cap);

#endif
