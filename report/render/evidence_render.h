/* evidence_render.h - out/EVIDENCE.md: the page's figures
 * (report/evidence.h) as Markdown, filled into
 * data/templates/evidence.md.tmpl.
 */
#ifndef SOLBOOK_REPORT_RENDER_EVIDENCE_RENDER_H
#define SOLBOOK_REPORT_RENDER_EVIDENCE_RENDER_H

#include "error.h"
#include "evidence.h"
#include "strbuf.h"

/* The page from set (as for sb_evidence_ask), paired (the checked
 * headlines of every session, report/claims.h), snap (the cards'
 * calibrations) and det (what db/run_details_read.h read for the ask
 * sb_evidence_ask filled): sb_evidence_compute's figures as Markdown. */
int sb_evidence_render(const sb_result_set *set, const sb_session_headlines *paired,
                       const sb_snapshot *snap, const sb_run_details *det,
                       const sb_sku_table *skus, sb_buf *out, sb_error *err);

#endif
