/* crossarch.h - cross-arch tables: per op x mode x dtype, one row per case
 * of a provider (the project's kernels by default), the cards side by side
 * (docs/REPORTS.md, weekly writeup).
 *
 * A row is one case (case_key): every card's cell holds that case's newest
 * passing run of the provider on that card, so a row never mixes cases.
 * Per card: latency, speedup over each baseline (the same case on the same
 * card), % of the card's measured copy ceiling (bw.copy of its newest
 * calibration); per card after the first: its time over the first card's
 * beside the copy-bound ratio (the first card's copy GB/s over its own).
 * Times are kernel time where every run on that side recorded it, call time
 * otherwise; each column says which. The runs are newest runs of different
 * processes: a speedup of a case that a measuring session pairs is left
 * out and the cell says "paired" (its figure is the session's headline,
 * docs/CLAIMS.md rule 8).
 */
#ifndef SOLBOOK_REPORT_CROSSARCH_H
#define SOLBOOK_REPORT_CROSSARCH_H

#include <stddef.h>

#include "geomean.h"
#include "results.h"
#include "sessions.h"
#include "snapshot.h"

#define SB_XA_MAX_CARDS 8
#define SB_XA_MAX_BASES 3

typedef struct sb_xa_cell {
    const sb_result *run;          /* NULL: the case has no passing run on the card */
    double latency_ms;             /* in the table's time */
    double vs[SB_XA_MAX_BASES];    /* speedup over each baseline, NAN when none */
    int paired[SB_XA_MAX_BASES];   /* 1: a session pairs the case with that baseline; vs is NAN */
    double pct_copy;               /* NAN without bytes or a copy ceiling */
    double ratio;                  /* latency / first card's latency; NAN for the first */
} sb_xa_cell;

typedef struct sb_xa_row {
    const sb_result *any;          /* a run of the case (shape, params, suite) */
    double bytes;                  /* its model bytes, NAN when none */
    sb_xa_cell cell[SB_XA_MAX_CARDS];
} sb_xa_row;

typedef struct sb_xa_table {
    const char *op, *mode, *dtype, *provider;
    size_t ncards;
    const char *sku[SB_XA_MAX_CARDS], *arch[SB_XA_MAX_CARDS];
    double copy_gbps[SB_XA_MAX_CARDS];             /* NAN when no calibration */
    size_t nbases;
    const char *base[SB_XA_MAX_BASES];
    sb_time_kind base_time[SB_XA_MAX_CARDS][SB_XA_MAX_BASES];
    sb_time_kind time;                             /* of latency and ratio */
    int several_suites;
    sb_xa_row *rows;                               /* by model bytes, then case */
    size_t nrows;
    sb_xa_cell geomean[SB_XA_MAX_CARDS];           /* geomeans of each column */
} sb_xa_table;

typedef struct sb_xa_set {
    sb_xa_table *v;
    size_t n;
} sb_xa_set;

/* Tables of provider for every op group where it has a passing run.
 * baseline NULL: the headline baselines with passing runs in the group
 * (at most SB_XA_MAX_BASES); else baseline alone. paired: the checked
 * session headlines whose cases get no unpaired speedup (NULL: none).
 * Each card's copy bandwidth is its newest calibration's in snap. */
int sb_xa_build(const sb_snapshot *snap, const sb_pick *picks, size_t n, const char *provider,
                const char *baseline, const sb_session_headlines *paired, sb_xa_set *out, sb_error *err);
void sb_xa_free(sb_xa_set *s);

/* The table as the outputs show it (Markdown):
 * report/render/crossarch_render.h. */

#endif
