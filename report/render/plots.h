/* plots.h - the report plots, as standalone SVG documents built with svg.h.
 *
 * Every plot draws only passing runs as points and says how many cases it
 * could not draw (failed, skipped, no FLOP/byte model); every plot carries
 * its evidence level in the caption. The plot area is a
 * <rect class="plot-area"> with data-x-min/-x-max/-y-min/-y-max (domain)
 * and data-left/-right/-top/-bottom (pixels), so tools and tests can map
 * values to pixels with the scale formula of svg.h. Points are
 * <circle class="point"> with a <title> tooltip, in a <g class="points">
 * that gives them their outline.
 */
#ifndef SOLBOOK_REPORT_PLOTS_H
#define SOLBOOK_REPORT_PLOTS_H


#include "geomean.h"
#include "results.h"
#include "sku.h"
#include "snapshot.h"
#include "strbuf.h"

/* Roofline of one SKU: log-log arithmetic intensity (FLOP/byte) against
 * achieved TFLOP/s, one point per passing case (newest run), coloured by
 * provider. Datasheet ceilings (compute roof per dtype drawn, HBM slope)
 * come from skus (may be NULL or lack the SKU: then none are drawn and the
 * caption says so); measured ceilings (bw.copy slope, gemm.* roofs) from
 * the SKU's newest calibration in snap. *drawn receives the number of points. */
int sb_plot_roofline(const sb_snapshot *snap, const sb_sku_table *skus, const sb_pick *picks,
                     size_t n, const char *sku, sb_buf *out, size_t *drawn, sb_error *err);

/* Geomean speedup bars of one op x mode x dtype: one group per SKU (by
 * arch), one bar per provider, a dashed line at 1 (the baseline). */
void sb_plot_speedup(const sb_geo_table *t, const char *op, const char *mode, const char *dtype,
                     sb_buf *out);

/* Median latency per shape of one op x mode x dtype on one SKU, log y
 * axis, one series per provider; failed and skipped cases drawn as
 * labelled crosses under the axis. */
void sb_plot_latency(const sb_pick *picks, size_t n, const char *op, const char *mode,
                     const char *dtype, const char *sku, sb_buf *out);

/* One provider's time at one case: p50 with its p20-p80 range in ms
 * (p50 NAN: not timed, and state says why: "failed check", "skipped"; a
 * NULL state then means the provider has no run of the case). */
typedef struct sb_case_time {
    double p50, p20, p80;
    const char *state;
} sb_case_time;

/* Time per case of every provider: cases along x in the order given
 * (labels[i], tooltips name tips[i]), log ms on y, one point per timed
 * (case, provider) with a p20-p80 bar, coloured by provider (names[p];
 * the legend writes labels_p[p]); a case a provider was not timed at is a
 * cross under the axis with its state as tooltip. t holds ncases x
 * nproviders cells, case by case. caption: the plot's evidence line. */
void sb_plot_case_times(const char *title, const char *caption, const char *const *labels,
                        const char *const *tips, size_t ncases, const char *const *names,
                        const char *const *labels_p, size_t nproviders, const sb_case_time *t,
                        sb_buf *out);

#endif
