/* training.h - end-to-end training rows (solbook.training.v1; evidence
 * level SB_EVIDENCE_E2E): every training run; the paired step-time ratio
 * of each training session (bench/train/run_training_session.sh: the
 * patched launch's median step over the baseline's, round by round, the
 * geometric mean with its interval, model/paired.h), naming the session;
 * apart from them, labelled not paired, the newest passing patched run
 * outside sessions of each experiment against the baseline (patch "none")
 * its loss gate was checked against, where that baseline is of the same
 * model, workload, sequence length, micro batch, world size, card and
 * commit, with a bar plot of tokens/s; and
 * beside them the op-level speedups of the kernels each patch swaps in
 * (Liger over Hugging Face on that SKU, from the newest result of every
 * case), which are never applied to the step. Wording:
 * data/templates/training.md.tmpl (docs/TRAINING.md says what is compared).
 */
#ifndef SOLBOOK_REPORT_TRAINING_H
#define SOLBOOK_REPORT_TRAINING_H

#include <jansson.h>
#include <stddef.h>

#include "claims.h"
#include "error.h"
#include "stored_result.h"
#include "strbuf.h"
#include "training_run.h"

typedef struct sb_training_opts {
    const sb_training_set *runs; /* the training runs to show (sb_training_load,
                                    db/results_query.h) */
    sb_buf *plot;            /* NULL: no plot; else the plot's SVG is appended when
                                there are pairs, for the caller to write as plot_name */
    const char *plot_name;   /* file name of the plot, linked as is (default "training-tokens.svg") */
    const sb_result_set *all; /* every result run (sb_results_load with no filter) with
                                 its plausibility marks (report/plausible.h, sb_plaus_mark) */
    sb_claims *claims;       /* NULL: none recorded; else each ratio and speedup written, with the
                                runs it rests on (report/claims.h): provider the patch, baseline
                                "none", the session where it is one session's */
} sb_training_opts;

typedef struct sb_training_summary {
    size_t runs;             /* training runs in the window */
    size_t pairs;            /* patched runs compared with a baseline run one after the other */
    size_t sessions;         /* training sessions with two or more paired rounds */
    int plot_drawn;          /* the plot is in o->plot and linked */
} sb_training_summary;

/* What the section shows, computed: data is the template data of
 * data/templates/training.md.tmpl (every run, the compared pairs, the
 * sessions' paired rows, the thin sessions and the op-level rows; "plot"
 * is left for the renderer to set), and base[k], patched[k] the k-th of
 * npairs compared pairs, in the order of the runs, for the plot. */
typedef struct sb_training_view {
    json_t *data;
    const sb_training **base, **patched;
    size_t npairs;
} sb_training_view;

/* Builds the view of o->runs, recording claims in o->claims; pairs_only:
 * only the sessions' paired rows and the not paired table (no op-level
 * rows: they are not paired within measuring sessions). Free with
 * sb_training_view_free, also after a failure. The Markdown is
 * report/render/training_render.h's. */
int sb_training_view_build(const sb_training_opts *o, int pairs_only, sb_training_view *v,
                           sb_training_summary *sum, sb_error *err);
void sb_training_view_free(sb_training_view *v);

#endif
