/* svg.h - hand-written SVG: a few small functions that append elements to
 * an sb_buf. Every string goes through XML escaping; every coordinate is
 * printed with two decimals, so the same data always gives the same bytes.
 * No plotting dependency: the plots (plots.h) are built from these.
 */
#ifndef SOLBOOK_REPORT_SVG_H
#define SOLBOOK_REPORT_SVG_H

#include "strbuf.h"

/* A map from data values to pixels along one axis. With log set, values
 * map by log10 (both domain ends must be > 0). */
typedef struct sb_scale {
    double d0, d1;  /* domain */
    double p0, p1;  /* pixels (p1 < p0 for a y axis that grows upwards) */
    int log;
} sb_scale;

/* The pixel of value v: p0 + (f(v) - f(d0)) / (f(d1) - f(d0)) * (p1 - p0),
 * f = log10 for log scales, identity otherwise. */
double sb_scale_map(const sb_scale *s, double v);

/* Widens [lo, hi] to whole decades: lo' = 10^floor(log10 lo), hi' =
 * 10^ceil(log10 hi), at least one decade apart. lo and hi must be > 0. */
void sb_scale_decades(double lo, double hi, double *lo_out, double *hi_out);

/* Tick label of a power of ten or 2/5 times one: 1, 10, 100, 1k, 10k, 1M,
 * 1G, 1T; 0.1, 0.01, 0.001, then 1e-4... unit (may be NULL or "") is
 * appended after a space: "0.1 ms". */
void sb_svg_tick_label(double v, const char *unit, char *buf, size_t size);

/* Fixed formatting of a figure for labels and tables: 3 significant digits
 * below 1000, otherwise no decimals ("1234"). */
void sb_fmt_sig3(double v, char *buf, size_t size);

void sb_svg_begin(sb_buf *b, int width, int height, const char *title);
void sb_svg_end(sb_buf *b);

/* anchor: "start" | "middle" | "end"; rotate: degrees about (x, y), 0 for none. */
void sb_svg_text(sb_buf *b, double x, double y, const char *anchor, int font_px,
                 double rotate, const char *fill, const char *text);
void sb_svg_line(sb_buf *b, double x1, double y1, double x2, double y2, const char *stroke,
                 double width, const char *dash /* NULL: solid */);
void sb_svg_rect(sb_buf *b, double x, double y, double w, double h, const char *fill,
                 const char *tooltip /* NULL: none */);
/* A data point: a circle with a <title> tooltip. cls is the class attribute
 * (e.g. "point"), used by tests and stylesheets. Its outline comes from
 * the group around the points (SB_SVG_POINTS_BEGIN): written once there,
 * not on each of hundreds of points. */
#define SB_SVG_POINTS_BEGIN "<g class=\"points\" stroke=\"#000000\" stroke-width=\"0.5\">\n"
#define SB_SVG_POINTS_END "</g>\n"
void sb_svg_point(sb_buf *b, double x, double y, double r, const char *fill, const char *cls,
                  const char *tooltip);

/* Log axes: ticks and labels at every decade of the scale's domain, grid
 * lines across the plot area, and the axis title. x axis sits at pixel
 * y = at_y and the grid runs up to grid_to; y axis sits at x = at_x and
 * the grid runs right to grid_to. */
void sb_svg_axis_log_x(sb_buf *b, const sb_scale *s, double at_y, double grid_to,
                       const char *unit, const char *title);
void sb_svg_axis_log_y(sb_buf *b, const sb_scale *s, double at_x, double grid_to,
                       const char *unit, const char *title);
/* Linear y axis with n+1 evenly spaced ticks labelled with sb_fmt_sig3. */
void sb_svg_axis_linear_y(sb_buf *b, const sb_scale *s, double at_x, double grid_to, int n,
                          const char *title);

/* A stable colour for the i-th series of a chart whose series are not
 * providers: the colours of report/render/provider_colours.csv's "*" rows. */
const char *sb_svg_color(size_t i);

/* The colour of a provider on every chart, from report/render/provider_colours.csv
 * (compiled in): named providers have their own; any other takes one of
 * the "*" colours by a hash of its name, never by its position among a
 * chart's series. Every colour is colour-blind safe (Okabe-Ito based) and
 * at least 3:1 against white (tests/report/provider_colours.sh checks). */
const char *sb_svg_provider_color(const char *provider);

/* The compiled-in table (provider_colours_embedded.c): named rows end
 * with {NULL, NULL}, the other colours with NULL. */
typedef struct sb_provider_colour {
    const char *provider, *colour;
} sb_provider_colour;
extern const sb_provider_colour sb_provider_colours[];
extern const char *const sb_other_provider_colours[];

#endif
