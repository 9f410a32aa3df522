/* svg.c - SVG elements, scales and axes (svg.h). */
#include "svg.h"
#include "encode.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A coordinate or size for an attribute: a value that is not finite (a
 * figure no scale could place) is written 0, never "nan" or "inf". */
static double fin(double v)
{
    return isfinite(v) ? v : 0.0;
}

double sb_scale_map(const sb_scale *s, double v)
{
    double a = s->d0, b = s->d1, x = v;
    if (s->log) {
        a = log10(a);
        b = log10(b);
        x = log10(v);
    }
    if (b == a)
        return s->p0;
    return s->p0 + (x - a) / (b - a) * (s->p1 - s->p0);
}

void sb_scale_decades(double lo, double hi, double *lo_out, double *hi_out)
{
    double a = floor(log10(lo) + 1e-9);
    double b = ceil(log10(hi) - 1e-9);
    /* the decades a double holds, whatever lo and hi were (0, inf, nan
     * give the ends): 10^a and 10^b stay finite and positive */
    if (!(a >= -307))
        a = -307;
    if (!(b <= 308))
        b = 308;
    if (a > 307)
        a = 307;
    if (b <= a)
        b = a + 1;
    *lo_out = pow(10.0, a);
    *hi_out = pow(10.0, b);
}

void sb_svg_tick_label(double v, const char *unit, char *buf, size_t size)
{
    static const struct { double f; const char *s; } big[] = {
        {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
    };
    char num[32];
    num[0] = '\0';
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        if (v >= big[i].f * 0.9999) {
            snprintf(num, sizeof num, "%.0f%s", v / big[i].f, big[i].s);
            break;
        }
    }
    if (!num[0]) {
        if (v >= 0.9999)
            snprintf(num, sizeof num, "%.0f", v);
        else if (v >= 0.0009999) {
            int decimals = (int)ceil(-log10(v) - 1e-9);
            snprintf(num, sizeof num, "%.*f", decimals, v);
        } else
            snprintf(num, sizeof num, "%.0e", v);
    }
    if (unit && *unit)
        snprintf(buf, size, "%s %s", num, unit);
    else
        snprintf(buf, size, "%s", num);
}

void sb_fmt_sig3(double v, char *buf, size_t size)
{
    double a = fabs(v);
    if (v != v)
        snprintf(buf, size, "nan");
    else if (a >= 1000 || a == 0)
        snprintf(buf, size, "%.0f", v);
    else if (a >= 100)
        snprintf(buf, size, "%.0f", v);
    else if (a >= 10)
        snprintf(buf, size, "%.1f", v);
    else if (a >= 1)
        snprintf(buf, size, "%.2f", v);
    else
        snprintf(buf, size, "%.3g", v);
}

void sb_svg_begin(sb_buf *b, int width, int height, const char *title)
{
    sb_buf_printf(b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" role=\"img\">\n<title>",
                  width, height, width, height);
    sb_enc_xml_text(b, title);
    sb_buf_puts(b, "</title>\n");
    sb_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
                  width, height);
}

void sb_svg_end(sb_buf *b)
{
    sb_buf_puts(b, "</svg>\n");
}

void sb_svg_text(sb_buf *b, double x, double y, const char *anchor, int font_px, double rotate,
                 const char *fill, const char *text)
{
    sb_buf_printf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" font-size=\"%d\"", fin(x), fin(y),
                  anchor, font_px);
    if (rotate != 0)
        sb_buf_printf(b, " transform=\"rotate(%.0f %.2f %.2f)\"", fin(rotate), fin(x), fin(y));
    if (fill)
        sb_buf_printf(b, " fill=\"%s\"", fill);
    sb_buf_puts(b, ">");
    sb_enc_xml_text(b, text);
    sb_buf_puts(b, "</text>\n");
}

void sb_svg_line(sb_buf *b, double x1, double y1, double x2, double y2, const char *stroke,
                 double width, const char *dash)
{
    sb_buf_printf(b,
                  "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                  "stroke-width=\"%.1f\"",
                  fin(x1), fin(y1), fin(x2), fin(y2), stroke, fin(width));
    if (dash)
        sb_buf_printf(b, " stroke-dasharray=\"%s\"", dash);
    sb_buf_puts(b, "/>\n");
}

void sb_svg_rect(sb_buf *b, double x, double y, double w, double h, const char *fill,
                 const char *tooltip)
{
    sb_buf_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"",
                  fin(x), fin(y), fin(w), fin(h), fill);
    if (tooltip) {
        sb_buf_puts(b, "><title>");
        sb_enc_xml_text(b, tooltip);
        sb_buf_puts(b, "</title></rect>\n");
    } else {
        sb_buf_puts(b, "/>\n");
    }
}

void sb_svg_point(sb_buf *b, double x, double y, double r, const char *fill, const char *cls,
                  const char *tooltip)
{
    sb_buf_printf(b, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"%s\">",
                  cls, fin(x), fin(y), fin(r), fill);
    sb_buf_puts(b, "<title>");
    sb_enc_xml_text(b, tooltip ? tooltip : "");
    sb_buf_puts(b, "</title></circle>\n");
}

static void decade_range(const sb_scale *s, int *a, int *z)
{
    double lo = s->d0 < s->d1 ? s->d0 : s->d1;
    double hi = s->d0 < s->d1 ? s->d1 : s->d0;
    *a = (int)ceil(log10(lo) - 1e-9);
    *z = (int)floor(log10(hi) + 1e-9);
}

void sb_svg_axis_log_x(sb_buf *b, const sb_scale *s, double at_y, double grid_to,
                       const char *unit, const char *title)
{
    int a, z;
    decade_range(s, &a, &z);
    sb_svg_line(b, s->p0, at_y, s->p1, at_y, "#000000", 1, NULL);
    char label[48];
    for (int k = a; k <= z; k++) {
        double v = pow(10.0, k);
        double x = sb_scale_map(s, v);
        sb_svg_line(b, x, at_y, x, grid_to, "#dddddd", 0.5, NULL);
        sb_svg_line(b, x, at_y, x, at_y + 5, "#000000", 1, NULL);
        sb_svg_tick_label(v, unit, label, sizeof label);
        sb_svg_text(b, x, at_y + 18, "middle", 11, 0, "#000000", label);
    }
    sb_svg_text(b, (s->p0 + s->p1) / 2, at_y + 36, "middle", 12, 0, "#000000", title);
}

void sb_svg_axis_log_y(sb_buf *b, const sb_scale *s, double at_x, double grid_to,
                       const char *unit, const char *title)
{
    int a, z;
    decade_range(s, &a, &z);
    sb_svg_line(b, at_x, s->p0, at_x, s->p1, "#000000", 1, NULL);
    char label[48];
    for (int k = a; k <= z; k++) {
        double v = pow(10.0, k);
        double y = sb_scale_map(s, v);
        sb_svg_line(b, at_x, y, grid_to, y, "#dddddd", 0.5, NULL);
        sb_svg_line(b, at_x - 5, y, at_x, y, "#000000", 1, NULL);
        sb_svg_tick_label(v, unit, label, sizeof label);
        sb_svg_text(b, at_x - 8, y + 4, "end", 11, 0, "#000000", label);
    }
    double my = (s->p0 + s->p1) / 2;
    sb_svg_text(b, at_x - 52, my, "middle", 12, -90, "#000000", title);
}

void sb_svg_axis_linear_y(sb_buf *b, const sb_scale *s, double at_x, double grid_to, int n,
                          const char *title)
{
    sb_svg_line(b, at_x, s->p0, at_x, s->p1, "#000000", 1, NULL);
    char label[48];
    for (int i = 0; i <= n; i++) {
        double v = s->d0 + (s->d1 - s->d0) * i / n;
        double y = sb_scale_map(s, v);
        sb_svg_line(b, at_x, y, grid_to, y, "#dddddd", 0.5, NULL);
        sb_svg_line(b, at_x - 5, y, at_x, y, "#000000", 1, NULL);
        sb_fmt_sig3(v, label, sizeof label);
        sb_svg_text(b, at_x - 8, y + 4, "end", 11, 0, "#000000", label);
    }
    sb_svg_text(b, at_x - 45, (s->p0 + s->p1) / 2, "middle", 12, -90, "#000000", title);
}

static size_t other_colours(void)
{
    size_t n = 0;
    while (sb_other_provider_colours[n])
        n++;
    return n;
}

const char *sb_svg_color(size_t i)
{
    return sb_other_provider_colours[i % other_colours()];
}

const char *sb_svg_provider_color(const char *provider)
{
    for (size_t i = 0; sb_provider_colours[i].provider; i++)
        if (strcmp(sb_provider_colours[i].provider, provider) == 0)
            return sb_provider_colours[i].colour;
    /* FNV-1a: the same name gets the same colour on every chart */
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)provider; *p; p++)
        h = (h ^ *p) * 16777619u;
    return sb_other_provider_colours[h % other_colours()];
}
