/* compare.h - two sets of runs side by side (`solbook compare A B`), the
 * way asv compare, benchstat and nvbench_compare put two revisions side by
 * side.
 *
 * Each side is chosen by a selector: a commit SHA prefix, or filters
 * KEY=VALUE[,KEY=VALUE...] with keys sha (prefix), branch, suite, sku, arch,
 * provider, op, session (a measuring session's id prefix) and copy (its
 * A/A copy, 0 or 1). In each side the newest passing run of every (case,
 * provider, SKU) stands for it; runs timed under a profiler never do
 * (results.h), and runs of measuring sessions only for a side that names
 * its session. Cases pair on (case, provider, SKU), or on (case, provider)
 * when each side holds a single SKU and the two differ (one card against
 * another).
 *
 * Per pair: both medians (of the stored samples), ratio = B / A, and the
 * two-sided Mann-Whitney U test (stats.h):
 *   slower        p < alpha and ratio >= 1 + threshold
 *   faster        p < alpha and ratio <= 1 - threshold
 * where the threshold of a pair of one SKU is the regression rule's
 * (sb_rg_threshold, report/regress.h: the case's A/A noise on one card
 * or across two, the SKU's cross-card noise, the floor), from the A/A
 * runs the caller hands in (sb_rg_aa: the A/A sessions of the compared
 * database or of another); across two SKUs it is the floor.
 *   same          otherwise
 *   inconclusive  no samples on a side (quantiles-only imports), or so few
 *                 that even the most extreme data could not give p < alpha
 * The geomean of the ratios is over every pair with both medians.
 *
 * Nothing here reads the database: the caller loads the runs the two
 * sides' filters name (sb_cmp_filters), the A/A noise and the cards of
 * the runs; sb_cmp_pairs pairs them; the caller then walks the pairs,
 * reading one pair's samples at a time (sb_cmp_wants_kernel,
 * sb_cmp_wants_samples) and handing them to sb_cmp_judge, so that one
 * pair's samples are in memory at a time; sb_cmp_finish counts.
 * report/render/compare_render.h renders the result.
 */
#ifndef SOLBOOK_REPORT_COMPARE_H
#define SOLBOOK_REPORT_COMPARE_H

#include <stddef.h>

#include "error.h"
#include "regress.h"
#include "result_filter.h"
#include "results.h"
#include "run_cards.h"

typedef enum sb_cmp_verdict {
    SB_CMP_SLOWER = 0,
    SB_CMP_FASTER,
    SB_CMP_SAME,
    SB_CMP_INCONCLUSIVE,
} sb_cmp_verdict;

const char *sb_cmp_verdict_name(sb_cmp_verdict v); /* "slower", "faster", "same", "inconclusive" */

/* One side: the filters a selector string names (pointers into it). */
typedef struct sb_cmp_side {
    const char *text;   /* the selector as given */
    char *buf;          /* owned copy the fields point into */
    const char *sha, *branch, *suite, *sku, *arch, *provider, *op, *session;
    int copy;           /* -1: any */
} sb_cmp_side;

/* Parses a selector; err names the selector and the bad key. */
int sb_cmp_side_parse(const char *text, sb_cmp_side *side, sb_error *err);
void sb_cmp_side_free(sb_cmp_side *side);

typedef struct sb_cmp_opts {
    double alpha;      /* default 0.01 */
    double threshold;  /* default 0.03: the floor of the smallest change of the median that counts */
} sb_cmp_opts;

typedef struct sb_cmp_row {
    const sb_result *a, *b;
    sb_cmp_verdict verdict;
    double median_a, median_b;  /* of the samples (the stored medians without samples) */
    double ratio;               /* median_b / median_a; NAN when unknown */
    double p;                   /* NAN when not tested */
    size_t n_a, n_b;            /* samples */
    double threshold;           /* the smallest change this pair's verdict counts */
    sb_rg_threshold_from threshold_from;
    int same_card;              /* 1: one GPU UUID, 0: two, -1: not recorded */
} sb_cmp_row;

typedef struct sb_cmp_result {
    sb_cmp_row *v;
    size_t n;
    size_t only_a, only_b;      /* cases on one side only */
    size_t runs_a, runs_b;      /* runs each selector matched */
    int across_skus;            /* paired on (case, provider): one SKU against another */
    double geomean;             /* of the ratios; NAN with none */
    size_t counts[4];           /* by verdict */
    char **commits_a, **commits_b; /* distinct commits of the runs that stand for each side */
    size_t ncommits_a, ncommits_b;
} sb_cmp_result;

/* The filters of the runs side a or side b selects under the common
 * filters f (passing or not), into fs[0..2); returns how many there are
 * (a side whose filters contradict f's selects none). The runs matching
 * any of them (sb_results_load_any, db/results_query.h, reads each
 * through the indexes of its commit, SKU, op or suite) are the set
 * sb_cmp_pairs takes. fs's strings point into f, a and b. */
size_t sb_cmp_filters(const sb_result_filter *f, const sb_cmp_side *a, const sb_cmp_side *b,
                      sb_result_filter fs[2]);

/* Pairs the runs of set (loaded with sb_cmp_filters) that side a and
 * side b select, each row with its threshold; the verdicts wait for
 * sb_cmp_judge. aa: the A/A noise of the thresholds (NULL: none stored);
 * dev: the GPU UUIDs of the runs of set (db/run_devices.h). Rows ordered
 * by case, provider, SKU. */
int sb_cmp_pairs(const sb_result_set *set, const sb_cmp_side *a, const sb_cmp_side *b, const sb_cmp_opts *o,
                 const sb_rg_aa *aa, const sb_run_devices *dev, sb_cmp_result *out, sb_error *err);

/* What the caller read of one pair, borrowed for sb_cmp_judge. */
typedef struct sb_cmp_samples {
    /* timing.kernel.samples of both runs as stored (JSON, one array a
     * round), read when sb_cmp_wants_kernel; NULL: not read or none */
    const char *kernel_a, *kernel_b;
    /* every sample of each run in (rep, idx) order, read when
     * sb_cmp_wants_samples */
    const double *x, *y;
    size_t nx, ny;
} sb_cmp_samples;

/* Whether the pair is judged on the kernel times of its runs: both are
 * runs of measuring sessions. */
int sb_cmp_wants_kernel(const sb_cmp_row *row);
/* Whether the pair needs its stored samples, given the kernel times read
 * into s: not both kernel times, and neither run quantiles-only. */
int sb_cmp_wants_samples(const sb_cmp_row *row, const sb_cmp_samples *s);
/* Judges row i of r on what s holds: medians, ratio, Mann-Whitney p and
 * verdict. */
int sb_cmp_judge(sb_cmp_result *r, size_t i, const sb_cmp_samples *s, const sb_cmp_opts *o, sb_error *err);
/* The counts by verdict and the geomean, once every row is judged. */
void sb_cmp_finish(sb_cmp_result *r);

void sb_cmp_free(sb_cmp_result *r);

#endif
