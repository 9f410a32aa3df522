/* crossarch_render.c - a cross-arch table in Markdown
 * (crossarch_render.h). */
#include "crossarch_render.h"

#include <math.h>

#include "casetable.h"
#include "encode.h"

static void num(sb_buf *out, const char *fmt, double v)
{
    if (!isfinite(v))
        sb_buf_puts(out, " - |");
    else {
        sb_buf_puts(out, " ");
        sb_buf_printf(out, fmt, v);
        sb_buf_puts(out, " |");
    }
}

static void arch_name(sb_buf *out, const char *arch)
{
    sb_buf up = SB_BUF_INIT;
    for (const char *p = arch; *p; p++)
        sb_buf_putc(&up, (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : *p);
    sb_enc_md_text(out, sb_buf_str(&up), SB_TEXT_NAME_MAX);
    sb_buf_free(&up);
}

static void cells(const sb_xa_table *t, const sb_xa_cell *c, int is_geo, sb_buf *out)
{
    for (size_t k = 0; k < t->ncards; k++) {
        if (is_geo)
            sb_buf_puts(out, " |");
        else
            num(out, "%.4f", c[k].latency_ms);
        for (size_t b = 0; b < t->nbases; b++) {
            if (!is_geo && c[k].paired[b])
                sb_buf_puts(out, " paired |");
            else
                num(out, "%.2fx", c[k].vs[b]);
        }
        num(out, "%.0f%%", c[k].pct_copy);
        if (k > 0) {
            num(out, "%.3f", c[k].ratio);
            num(out, "%.3f", t->copy_gbps[0] / t->copy_gbps[k]);
        }
    }
}

size_t sb_xa_render_md(const sb_xa_table *t, size_t max_rows, sb_buf *out)
{
    size_t lines = 0;
    size_t from = t->nrows > max_rows ? t->nrows - max_rows : 0;
    sb_buf_puts(out, "**");
    sb_enc_md_text(out, t->op, SB_TEXT_NAME_MAX);
    sb_buf_puts(out, " ");
    sb_enc_md_text(out, t->mode, SB_TEXT_NAME_MAX);
    sb_buf_puts(out, " ");
    sb_enc_md_text(out, t->dtype, SB_TEXT_NAME_MAX);
    sb_buf_puts(out, "**, ");
    sb_enc_md_text(out, t->provider, SB_TEXT_NAME_MAX);
    sb_buf_printf(out, ", %zu case%s", t->nrows, t->nrows == 1 ? "" : "s");
    if (from)
        sb_buf_printf(out, " (%s%zu with the most bytes shown, all in the appendix)",
                      t->nrows - from ? "the " : "", t->nrows - from);
    sb_buf_printf(out, "; ms and ratios in %s time", sb_time_kind_name(t->time));
    for (size_t k = 0; k < t->ncards; k++) {
        sb_buf_puts(out, k ? ", " : "; copy ceiling ");
        arch_name(out, t->arch[k]);
        if (isnan(t->copy_gbps[k]))
            sb_buf_puts(out, " none");
        else
            sb_buf_printf(out, " %.0f GB/s", t->copy_gbps[k]);
    }
    sb_buf_puts(out, ".\n\n| case |");
    lines += 2;
    size_t ncol = 1;
    for (size_t k = 0; k < t->ncards; k++) {
        sb_buf_puts(out, " ");
        arch_name(out, t->arch[k]);
        sb_buf_puts(out, " ms |");
        for (size_t b = 0; b < t->nbases; b++) {
            sb_buf_puts(out, " ");
            arch_name(out, t->arch[k]);
            sb_buf_puts(out, " x ");
            sb_enc_md_text(out, t->base[b], SB_TEXT_NAME_MAX);
            if (t->base_time[k][b] != t->time)
                sb_buf_printf(out, " (%s)", sb_time_kind_name(t->base_time[k][b]));
            sb_buf_puts(out, " |");
        }
        sb_buf_puts(out, " ");
        arch_name(out, t->arch[k]);
        sb_buf_puts(out, " % copy |");
        ncol += 2 + t->nbases;
        if (k > 0) {
            sb_buf_puts(out, " ");
            arch_name(out, t->arch[k]);
            sb_buf_puts(out, "/");
            arch_name(out, t->arch[0]);
            sb_buf_puts(out, " time | copy-bound ratio |");
            ncol += 2;
        }
    }
    sb_buf_puts(out, "\n| --- |");
    for (size_t c = 1; c < ncol; c++)
        sb_buf_puts(out, " ---: |");
    sb_buf_puts(out, "\n");
    lines += 2;
    for (size_t i = from; i < t->nrows; i++) {
        const sb_xa_row *r = &t->rows[i];
        sb_buf label = SB_BUF_INIT;
        sb_case_label(r->any, &label);
        if (t->several_suites)
            sb_buf_printf(&label, " (%s)", r->any->suite);
        sb_buf_puts(out, "| ");
        sb_enc_md_text(out, sb_buf_str(&label), SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " |");
        sb_buf_free(&label);
        cells(t, r->cell, 0, out);
        sb_buf_puts(out, "\n");
        lines++;
    }
    sb_buf_printf(out, "| geomean of %zu |", t->nrows);
    cells(t, t->geomean, 1, out);
    sb_buf_puts(out, "\n\n");
    lines += 2;
    return lines;
}
