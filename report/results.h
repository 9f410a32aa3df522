/* results.h - what reports build on the stored results: the latest run of
 * each case, card and package lists. The runs themselves are
 * model/stored_result.h, read by db/results_query.h.
 */
#ifndef SOLBOOK_REPORT_RESULTS_H
#define SOLBOOK_REPORT_RESULTS_H

#include <stddef.h>

#include "error.h"
#include "stored_result.h"
#include "strbuf.h"

/* The newest run (by finished_at, then run id) of each (case_key,
 * provider, SKU): its state decides the case (passing, failed, skipped).
 * stale is 1 when that run's commit is not the newest commit the provider
 * has on that SKU (the case was not re-run at the newest commit). Picks
 * point into s and keep its order. */
typedef struct sb_pick {
    const sb_result *r;
    int stale;
} sb_pick;

int sb_picks_latest(const sb_result_set *s, sb_pick **out, size_t *n, sb_error *err);

/* The pick of (case_key, provider, sku) in picks made by sb_picks_latest
 * (binary search: they keep the set's order); NULL when none. */
const sb_pick *sb_pick_find(const sb_pick *picks, size_t n, const char *case_key,
                            const char *provider, const char *sku);

/* Sorts n (SKU, arch) pairs, kept together, by arch order then SKU id. */
void sb_sort_skus(const char **sku, const char **arch, size_t n);

/* Appends the "name version" items of a packages_json object to the
 * ", "-list in out, each once. */
void sb_packages_list(const char *packages_json, sb_buf *out);

/* Arch order for columns: a100 < h100 < h200 < anything else (by name). */
int sb_arch_rank(const char *arch);

#endif
