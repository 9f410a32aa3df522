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

/* What the blocks of a document read, gathered once. */
typedef struct sb_standing sb_standing;

/* set: every result run (sb_results_load with no filter, db/results_query.h)
 * with its plausibility marks (report/plausible.h, sb_plaus_mark); paired:
 * the checked headlines of every session (report/claims.h); snap: the
 * cards' calibrations (db/snapshot_read.h). s borrows all three: they
 * outlive it. skus may be NULL (cards are then named by their SKU id). */
int sb_standing_open(const sb_result_set *set, const sb_session_headlines *paired,
                     const sb_snapshot *snap, const sb_sku_table *skus, sb_standing **out,
                     sb_error *err);
void sb_standing_close(sb_standing *s);

/* Appends block name's Markdown (without its marker lines). An unknown
 * name is an error naming the known ones. */
int sb_standing_render(sb_standing *s, const char *name, sb_buf *out, sb_error *err);

/* Renders the block called name into out. */
typedef int (*sb_standing_block_fn)(void *ctx, const char *name, sb_buf *out, sb_error *err);

/* text with every marked block's lines replaced by fn's rendering of its
 * name; path names the document in errors. A start line inside a block,
 * an end line outside one, a block left open, or a text with no block is
 * an error with the line it is on. *blocks receives the number rewritten. */
int sb_standing_rewrite_text(const char *text, size_t len, const char *path, sb_standing_block_fn fn,
                             void *ctx, sb_buf *out, size_t *blocks, sb_error *err);

/* The document at path with its blocks rewritten from s, into out (the
 * caller writes it back, through a temporary file and rename, so that a
 * refused document is left as it was). */
int sb_standing_rewrite_doc(sb_standing *s, const char *path, sb_buf *out, size_t *blocks, sb_error *err);

/* Every block between its marker lines, in sb_standing_blocks order. */
int sb_standing_render_all(sb_standing *s, sb_buf *out, sb_error *err);

#endif
