/* geomean_render.c - the speedup tables as the outputs show them
 * (geomean_render.h): Markdown, CSV and JSON of a geo table and of the
 * paired headlines, and the report that puts them together. */
#include "geomean_render.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "report_json.h"
#include "sessions.h"
#include "template.h"

static void fmt_x(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", v);
}

void sb_geo_diagnostic_note(sb_buf *out)
{
    sb_buf_puts(out, "Baseline `" SB_DIAGNOSTIC_PROVIDER "` is the project's own CUDA stand-in for "
                     "the Hugging Face code, a diagnostic provider: a speedup over it is not a "
                     "speedup over the Hugging Face code or any shipped kernel.\n\n");
}

static int uses_diagnostic(const sb_geo_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].baseline, SB_DIAGNOSTIC_PROVIDER) == 0)
            return 1;
    return 0;
}

void sb_geo_left_out_note(const sb_geo_table *t, sb_buf *out)
{
    if (t->left_out)
        sb_buf_printf(out, "%zu " SB_LEFT_OUT_TIME ".\n\n", t->left_out);
}

void sb_geo_render_md(const sb_geo_table *t, sb_buf *out)
{
    sb_buf_puts(out, "Evidence level: " SB_EVIDENCE_OP ". Speedup = baseline time / provider "
                     "time per shape; geomean over the shapes both passed. \"time\" says which "
                     "time a row compares: `kernel` (GPU kernel time, recorded by both sides "
                     "of every compared shape) or `call` (the time a caller of the API sees, "
                     "launch cost included). \"not re-checked\" counts "
                     "compared cases imported from a tool that checks no correctness; "
                     "\"implausible\" counts cases left out because a side ran faster than its "
                     "card's ceilings allow (`solbook report plausibility` lists them); \"paired\" "
                     "counts cases left out because a measuring session pairs them (their figure "
                     "is the paired one).\n\n");
    if (uses_diagnostic(t))
        sb_geo_diagnostic_note(out);
    sb_geo_left_out_note(t, out);
    if (t->n == 0) {
        sb_buf_puts(out, "No speedup to report: no op x mode x dtype in the selection has a "
                         "second provider next to its baseline.\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | SKU | provider | baseline | time | shapes | geomean | "
                     "min | max | failed | skipped | no baseline | not run | stale | not re-checked | "
                     "implausible | paired |\n");
    sb_buf_puts(out, "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | "
                     "---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t i = 0; i < t->n; i++) {
        const sb_geo_row *g = &t->rows[i];
        char a[32], b[32], c[32];
        fmt_x(g->geomean, a, sizeof a);
        fmt_x(g->min, b, sizeof b);
        fmt_x(g->max, c, sizeof c);
        const char *cells[] = {g->op, g->mode, g->dtype, g->sku, g->provider, g->baseline};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 6; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        sb_buf_printf(out, " %s | %zu | %s | %s | %s | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n",
                      sb_time_kind_name(g->time), g->shapes, a, b, c, g->failed, g->skipped,
                      g->no_baseline, g->not_run, g->stale, g->unchecked, g->implausible, g->paired);
    }
    sb_buf_puts(out, "\n");
    size_t big = 0;
    for (size_t i = 0; i < t->n; i++)
        big += t->rows[i].max > SB_SPEEDUP_LOOK;
    if (big)
        sb_buf_printf(out, "%zu rows have a case above %.0fx, for a second look: `solbook report "
                           "plausibility` lists each with both times.\n\n", big, SB_SPEEDUP_LOOK);
    sb_geo_render_md_cross(t, out);
}

void sb_geo_render_md_cross(const sb_geo_table *t, sb_buf *out)
{
    sb_buf_puts(out, "Cross-arch: geomean speedup over the baseline (shapes compared; failed; "
                     "time compared).\n\n");
    sb_buf_puts(out, "| op | mode | dtype | provider | baseline |");
    for (size_t k = 0; k < t->nskus; k++) {
        sb_buf_puts(out, " ");
        sb_enc_md_text(out, t->skus[k], SB_TEXT_NAME_MAX);
        sb_buf_puts(out, " |");
    }
    sb_buf_puts(out, "\n| --- | --- | --- | --- | --- |");
    for (size_t k = 0; k < t->nskus; k++)
        sb_buf_puts(out, " ---: |");
    sb_buf_puts(out, "\n");
    for (size_t i = 0; i < t->n; i++) {
        const sb_geo_row *g = &t->rows[i];
        int first = 1;
        for (size_t j = 0; j < i; j++) {
            const sb_geo_row *h = &t->rows[j];
            if (strcmp(h->op, g->op) == 0 && strcmp(h->mode, g->mode) == 0 &&
                strcmp(h->dtype, g->dtype) == 0 && strcmp(h->provider, g->provider) == 0 &&
                strcmp(h->baseline, g->baseline) == 0)
                first = 0;
        }
        if (!first)
            continue;
        const char *cells[] = {g->op, g->mode, g->dtype, g->provider, g->baseline};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 5; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        for (size_t k = 0; k < t->nskus; k++) {
            const sb_geo_row *cell = NULL;
            for (size_t j = i; j < t->n && !cell; j++) {
                const sb_geo_row *h = &t->rows[j];
                if (strcmp(h->op, g->op) == 0 && strcmp(h->mode, g->mode) == 0 &&
                    strcmp(h->dtype, g->dtype) == 0 && strcmp(h->provider, g->provider) == 0 &&
                    strcmp(h->baseline, g->baseline) == 0 && strcmp(h->sku, t->skus[k]) == 0)
                    cell = h;
            }
            if (!cell) {
                sb_buf_puts(out, " - |");
            } else {
                char a[32];
                fmt_x(cell->geomean, a, sizeof a);
                sb_buf_printf(out, " %s (%zu; %zu failed; %s", a, cell->shapes, cell->failed,
                              sb_time_kind_name(cell->time));
                if (cell->call_only)
                    sb_buf_printf(out, "; %zu call-time-only left out", cell->call_only);
                if (cell->implausible)
                    sb_buf_printf(out, "; %zu implausible left out", cell->implausible);
                if (cell->paired)
                    sb_buf_printf(out, "; %zu paired left out", cell->paired);
                sb_buf_puts(out, ") |");
            }
        }
        sb_buf_puts(out, "\n");
    }
    sb_buf_puts(out, "\n");
}

#define GEO_CSV_HEAD "evidence,op,mode,dtype,sku,arch,provider,baseline,time,shapes,geomean,min,max,"
#define GEO_CSV_COUNTS "failed,skipped,no_baseline,not_run,stale,not_rechecked,implausible"

/* A row's cells up to max, with the comma after max. */
static void csv_row_head(const sb_geo_row *g, sb_buf *out)
{
    const char *cells[] = {SB_EVIDENCE_OP, g->op,       g->mode,     g->dtype, g->sku,
                           g->arch,        g->provider, g->baseline, sb_time_kind_name(g->time)};
    for (size_t k = 0; k < 9; k++) {
        sb_buf_csv_field(out, cells[k]);
        sb_buf_putc(out, ',');
    }
    char a[32], b[32], c[32];
    if (g->shapes) {
        fmt_x(g->geomean, a, sizeof a);
        fmt_x(g->min, b, sizeof b);
        fmt_x(g->max, c, sizeof c);
    } else {
        a[0] = b[0] = c[0] = '\0';
    }
    sb_buf_printf(out, "%zu,%s,%s,%s,", g->shapes, a, b, c);
}

/* A row's counts, failed to implausible, and the end of the line. */
static void csv_row_counts(const sb_geo_row *g, sb_buf *out)
{
    sb_buf_printf(out, "%zu,%zu,%zu,%zu,%zu,%zu,%zu\n", g->failed, g->skipped, g->no_baseline, g->not_run,
                  g->stale, g->unchecked, g->implausible);
}

void sb_geo_render_csv(const sb_geo_table *t, sb_buf *out)
{
    sb_buf_puts(out, GEO_CSV_HEAD GEO_CSV_COUNTS "\n");
    for (size_t i = 0; i < t->n; i++) {
        csv_row_head(&t->rows[i], out);
        csv_row_counts(&t->rows[i], out);
    }
}

static json_t *num3(double v)
{
    if (isnan(v))
        return json_null();
    return json_real(round(v * 1000.0) / 1000.0);
}

void sb_evidence_labels_set(json_t *d)
{
    sb_tpl_set_str(d, "evidence_op", SB_EVIDENCE_OP);
    sb_tpl_set_str(d, "evidence_e2e", SB_EVIDENCE_E2E);
}

/* How a row of a geo table was compared (the method every report names). */
static const char *row_method(const sb_geo_row *g)
{
    return sb_geo_row_session_kind(g) ? "unpaired" : "harness-baseline";
}

static json_t *geo_json(const sb_geo_table *t, json_t **rows_out);

int sb_geo_render_json(const sb_geo_table *t, sb_buf *out, sb_error *err)
{
    json_t *rows = NULL;
    json_t *root = geo_json(t, &rows);
    if (!root)
        return sb_error_set(err, NULL, NULL, "out of memory");
    return sb_report_json_finish(root, out, err);
}

/* The JSON report of t: its root, with the rows array in *rows_out. */
static json_t *geo_json(const sb_geo_table *t, json_t **rows_out)
{
    json_t *rows = NULL, *skus = json_array();
    json_t *root = sb_report_json_new(SB_EVIDENCE_OP, "rows", &rows);
    if (!root || !skus) {
        json_decref(root);
        json_decref(skus);
        return NULL;
    }
    *rows_out = rows;
    json_object_set_new(root, "left_out_time", json_integer((json_int_t)t->left_out));
    for (size_t k = 0; k < t->nskus; k++) {
        json_t *s = json_object();
        json_object_set_new(s, "sku", json_string(t->skus[k]));
        json_object_set_new(s, "arch", json_string(t->sku_arch[k]));
        json_array_append_new(skus, s);
    }
    for (size_t i = 0; i < t->n; i++) {
        const sb_geo_row *g = &t->rows[i];
        json_t *r = json_object();
        json_object_set_new(r, "op", json_string(g->op));
        json_object_set_new(r, "mode", json_string(g->mode));
        json_object_set_new(r, "dtype", json_string(g->dtype));
        json_object_set_new(r, "sku", json_string(g->sku));
        json_object_set_new(r, "arch", json_string(g->arch));
        json_object_set_new(r, "provider", json_string(g->provider));
        json_object_set_new(r, "baseline", json_string(g->baseline));
        json_object_set_new(r, "time", json_string(sb_time_kind_name(g->time)));
        json_object_set_new(r, "shapes", json_integer((json_int_t)g->shapes));
        json_object_set_new(r, "geomean", num3(g->geomean));
        json_object_set_new(r, "min", num3(g->min));
        json_object_set_new(r, "max", num3(g->max));
        json_object_set_new(r, "failed", json_integer((json_int_t)g->failed));
        json_object_set_new(r, "skipped", json_integer((json_int_t)g->skipped));
        json_object_set_new(r, "no_baseline", json_integer((json_int_t)g->no_baseline));
        json_object_set_new(r, "not_run", json_integer((json_int_t)g->not_run));
        json_object_set_new(r, "stale", json_integer((json_int_t)g->stale));
        json_object_set_new(r, "not_rechecked", json_integer((json_int_t)g->unchecked));
        json_object_set_new(r, "implausible", json_integer((json_int_t)g->implausible));
        json_object_set_new(r, "paired", json_integer((json_int_t)g->paired));
        json_object_set_new(r, "method", json_string(row_method(g)));
        json_array_append_new(rows, r);
    }
    json_object_set_new(root, "skus", skus);
    return root;
}

/* ---- Paired headlines (report/sessions.h) ------------------------------- */

static void put_cell(sb_buf *out, const char *text)
{
    sb_buf_puts(out, " ");
    sb_enc_md_text(out, text, SB_TEXT_NAME_MAX);
    sb_buf_puts(out, " |");
}

void sb_geo_render_paired_md(const sb_session_headlines *h, sb_buf *out)
{
    sb_buf_printf(out, "Speedup = baseline time / provider time, taken round by round within one "
                       "measuring session (one process, one GPU, the same inputs, one timing method, "
                       "one correctness check; docs/SESSIONS.md); per case the geometric mean of the "
                       "rounds' ratios, per row the geometric mean over the cases with its %.0f%% "
                       "interval. A case is a win or a loss only past its A/A-derived threshold. "
                       "Kernel time by the session's timing method.\n\n",
                  SB_HEADLINE_LEVEL * 100.0);
    if (h->n == 0) {
        sb_buf_puts(out, "No measuring session pairs two of these providers.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | SKU | provider | baseline | session | GPU | time | shapes | "
                     "geomean | interval | worst shape | worst | wins | losses |\n");
    sb_buf_puts(out, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | ---: | ---: | --- | --- | "
                     "---: | ---: | ---: |\n");
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        const sb_session_pair *w = &h->report.pairs[x->worst];
        char sid[SB_SESSION_SHORT + 1], gpu[64];
        snprintf(sid, sizeof sid, "%s", x->session_id);
        sb_gpu_short(x->gpu_uuid, gpu, sizeof gpu);
        sb_buf_puts(out, "|");
        const char *cells[] = {x->op, x->mode, x->dtype, x->sku, x->provider, x->baseline, sid, gpu};
        for (size_t k = 0; k < 8; k++)
            put_cell(out, cells[k]);
        sb_buf_puts(out, " kernel (");
        sb_enc_md_text(out, x->timing_method, SB_TEXT_NAME_MAX);
        sb_buf_printf(out, ") | %zu | %.3f | %.3f-%.3f |", x->count, x->geomean.ratio, x->geomean.lo,
                      x->geomean.hi);
        put_cell(out, w->target->shape_key);
        sb_buf_printf(out, " %.3f | %zu | %zu |\n", w->kernel.ratio, x->wins, x->losses);
    }
    sb_buf_puts(out, "\n");
}

static int same_cross_key(const sb_session_headline *a, const sb_session_headline *b)
{
    return strcmp(a->op, b->op) == 0 && strcmp(a->mode, b->mode) == 0 && strcmp(a->dtype, b->dtype) == 0 &&
           strcmp(a->provider, b->provider) == 0 && strcmp(a->baseline, b->baseline) == 0;
}

void sb_geo_render_paired_md_cross(const sb_session_headlines *h, const char *provider, sb_buf *out)
{
    if (h->n == 0)
        return;
    const char **sku = calloc(h->n, sizeof *sku), **arch = calloc(h->n, sizeof *arch);
    size_t nsku = 0;
    if (!sku || !arch) {
        free(sku);
        free(arch);
        sb_buf_puts(out, "(cross-arch table: out of memory)\n\n");
        return;
    }
    for (size_t i = 0; i < h->n; i++) {
        size_t k = 0;
        if (provider && strcmp(h->v[i].provider, provider) != 0)
            continue;
        while (k < nsku && strcmp(sku[k], h->v[i].sku) != 0)
            k++;
        if (k == nsku) {
            sku[nsku] = h->v[i].sku;
            arch[nsku++] = h->v[i].arch;
        }
    }
    sb_sort_skus(sku, arch, nsku);
    sb_buf_puts(out, "Cross-arch, paired: geomean speedup over the baseline [interval] (shapes; "
                     "session) of each session on each SKU.\n\n| op | mode | dtype | provider | baseline |");
    for (size_t k = 0; k < nsku; k++)
        put_cell(out, sku[k]);
    sb_buf_puts(out, "\n| --- | --- | --- | --- | --- |");
    for (size_t k = 0; k < nsku; k++)
        sb_buf_puts(out, " ---: |");
    sb_buf_puts(out, "\n");
    for (size_t i = 0; i < h->n; i++) {
        int first = !provider || strcmp(h->v[i].provider, provider) == 0;
        for (size_t j = 0; j < i && first; j++)
            first = !same_cross_key(&h->v[j], &h->v[i]);
        if (!first)
            continue;
        const sb_session_headline *g = &h->v[i];
        const char *cells[] = {g->op, g->mode, g->dtype, g->provider, g->baseline};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < 5; k++)
            put_cell(out, cells[k]);
        for (size_t k = 0; k < nsku; k++) {
            int any = 0;
            for (size_t j = i; j < h->n; j++) {
                const sb_session_headline *x = &h->v[j];
                if (!same_cross_key(x, g) || strcmp(x->sku, sku[k]) != 0)
                    continue;
                sb_buf_printf(out, "%s%.3f [%.3f-%.3f] (%zu; %.*s)", any ? " / " : " ", x->geomean.ratio,
                              x->geomean.lo, x->geomean.hi, x->count, SB_SESSION_SHORT, x->session_id);
                any = 1;
            }
            sb_buf_puts(out, any ? " |" : " - |");
        }
        sb_buf_puts(out, "\n");
    }
    sb_buf_puts(out, "\n");
    free(sku);
    free(arch);
}

/* The rows of t of one method (harness: against a harness baseline), sharing
 * t's SKU list. */
static int geo_subtable(const sb_geo_table *t, int harness, sb_geo_table *sub)
{
    *sub = *t;
    sub->rows = malloc((t->n + 1) * sizeof *sub->rows);
    if (!sub->rows)
        return -1;
    sub->n = 0;
    for (size_t i = 0; i < t->n; i++)
        if ((sb_geo_row_session_kind(&t->rows[i]) ? 0 : 1) == harness)
            sub->rows[sub->n++] = t->rows[i];
    return 0;
}

#define SB_NOT_PAIRED_HEADING "## Not paired: runs from different sessions or cards"
#define SB_HARNESS_HEADING "## Against the harness's own baseline (not a session pair)"

void sb_geo_render_report_md(const sb_session_headlines *h, const sb_geo_table *t, sb_buf *out)
{
    sb_buf_puts(out, "## Paired: one session, one card (the headline)\n\nEvidence level: " SB_EVIDENCE_OP
                     ". Every headline speedup below comes from one measuring session.\n\n");
    sb_geo_render_paired_md(h, out);
    sb_geo_render_paired_md_cross(h, NULL, out);
    sb_geo_table harness, rest;
    if (geo_subtable(t, 1, &harness) != 0 || geo_subtable(t, 0, &rest) != 0) {
        free(harness.rows);
        sb_buf_puts(out, "(out of memory)\n");
        return;
    }
    if (harness.n) {
        sb_buf_puts(out, SB_HARNESS_HEADING "\n\nMethod: each provider's newest run per case, timed by "
                         "solbench, against a baseline that is no provider of a session (cuBLASLt and "
                         "cudaMemcpy beside the GEMM and copy kernels, or a baseline named with "
                         "`--baseline`). Its runs may come from different processes and cards.\n\n");
        sb_geo_render_md(&harness, out);
    }
    sb_buf_puts(out, SB_NOT_PAIRED_HEADING "\n\nEach provider's newest run per case against the "
                     "baseline's newest run, wherever each was measured: different processes, "
                     "commits, cards and timing methods. No headline is taken from this section; "
                     "cases a session pairs are left out of it (\"paired\").\n\n");
    sb_geo_render_md(&rest, out);
    free(harness.rows);
    free(rest.rows);
}

/* The report's CSV: the columns of sb_geo_render_csv with the paired
 * ones between max and the counts, so that a reader by position finds
 * the earlier columns where they were. */
void sb_geo_render_report_csv(const struct sb_session_headlines *h, const sb_geo_table *t, sb_buf *out)
{
    sb_buf_puts(out, GEO_CSV_HEAD "paired,method,session,gpu_uuid,timing_method,check,ci_low,ci_high,worst_shape,"
                                  GEO_CSV_COUNTS "\n");
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        const sb_session_pair *w = &h->report.pairs[x->worst];
        double best = w->kernel.ratio;
        for (size_t c = 0; c < x->count; c++)
            best = fmax(best, h->report.pairs[x->pair[c]].kernel.ratio);
        const char *cells[] = {SB_EVIDENCE_OP, x->op,       x->mode,     x->dtype, x->sku,
                               x->arch,        x->provider, x->baseline, "kernel"};
        for (size_t k = 0; k < 9; k++) {
            sb_buf_csv_field(out, cells[k]);
            sb_buf_putc(out, ',');
        }
        /* paired counts unpaired cases: empty here, as are the counts */
        sb_buf_printf(out, "%zu,%.3f,%.3f,%.3f,,paired,", x->count, x->geomean.ratio, w->kernel.ratio, best);
        /* the card's uuid and the check's version are the producer's text */
        const char *ids[] = {x->session_id, x->gpu_uuid ? x->gpu_uuid : "", x->timing_method, x->check_version};
        for (size_t k = 0; k < 4; k++) {
            sb_enc_csv_field(out, ids[k]);
            sb_buf_putc(out, ',');
        }
        sb_buf_printf(out, "%.3f,%.3f,", x->geomean.lo, x->geomean.hi);
        sb_buf_csv_field(out, w->target->shape_key);
        sb_buf_puts(out, ",,,,,,,\n");
    }
    for (size_t i = 0; i < t->n; i++) {
        csv_row_head(&t->rows[i], out);
        sb_buf_printf(out, "%zu,%s,,,,,,,,", t->rows[i].paired, row_method(&t->rows[i]));
        csv_row_counts(&t->rows[i], out);
    }
}

static json_t *run_side(const sb_session_run *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "run_id", json_integer((json_int_t)r->run_id));
    json_object_set_new(o, "provider", json_string(r->provider));
    json_object_set_new(o, "session", json_string(r->session_id));
    json_object_set_new(o, "gpu_uuid", r->gpu_uuid ? json_string(r->gpu_uuid) : json_null());
    json_object_set_new(o, "timing_method", json_string(r->timing_method));
    json_object_set_new(o, "check", json_string(r->check_version));
    return o;
}

static json_t *paired_json(const sb_session_headlines *h)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        const sb_session_pair *w = &h->report.pairs[x->worst];
        json_t *r = json_object(), *cases = json_array();
        char sid[SB_SESSION_SHORT + 1];
        snprintf(sid, sizeof sid, "%s", x->session_id);
        json_object_set_new(r, "op", json_string(x->op));
        json_object_set_new(r, "mode", json_string(x->mode));
        json_object_set_new(r, "dtype", json_string(x->dtype));
        json_object_set_new(r, "sku", json_string(x->sku));
        json_object_set_new(r, "arch", json_string(x->arch));
        json_object_set_new(r, "provider", json_string(x->provider));
        json_object_set_new(r, "baseline", json_string(x->baseline));
        json_object_set_new(r, "session", json_string(x->session_id));
        json_object_set_new(r, "session_short", json_string(sid));
        json_object_set_new(r, "gpu_uuid", x->gpu_uuid ? json_string(x->gpu_uuid) : json_null());
        json_object_set_new(r, "timing_method", json_string(x->timing_method));
        json_object_set_new(r, "check", json_string(x->check_version));
        json_object_set_new(r, "time", json_string("kernel"));
        json_object_set_new(r, "shapes", json_integer((json_int_t)x->count));
        json_object_set_new(r, "geomean", num3(x->geomean.ratio));
        json_object_set_new(r, "ci_low", num3(x->geomean.lo));
        json_object_set_new(r, "ci_high", num3(x->geomean.hi));
        json_object_set_new(r, "level", json_real(SB_HEADLINE_LEVEL));
        json_object_set_new(r, "worst_shape", json_string(w->target->shape_key));
        json_object_set_new(r, "worst", num3(w->kernel.ratio));
        json_object_set_new(r, "wins", json_integer((json_int_t)x->wins));
        json_object_set_new(r, "losses", json_integer((json_int_t)x->losses));
        for (size_t c = 0; c < x->count; c++) {
            const sb_session_pair *p = &h->report.pairs[x->pair[c]];
            json_t *k = json_object();
            json_object_set_new(k, "shape", json_string(p->target->shape_key));
            json_object_set_new(k, "case_key", json_string(p->target->case_key));
            json_object_set_new(k, "rounds", json_integer((json_int_t)p->kernel.n));
            json_object_set_new(k, "speedup", json_real(p->kernel.ratio));
            json_object_set_new(k, "ci_low", json_real(p->kernel.lo));
            json_object_set_new(k, "ci_high", json_real(p->kernel.hi));
            json_object_set_new(k, "verdict", json_string(sb_verdict_one[p->verdict]));
            json_object_set_new(k, "provider_side", run_side(p->target));
            json_object_set_new(k, "baseline_side", run_side(p->base));
            json_array_append_new(cases, k);
        }
        json_object_set_new(r, "cases", cases);
        json_array_append_new(list, r);
    }
    return list;
}

int sb_geo_render_report_json(const sb_session_headlines *h, const sb_geo_table *t, sb_buf *out, sb_error *err)
{
    json_t *rows = NULL;
    json_t *root = geo_json(t, &rows);
    json_t *paired = root ? paired_json(h) : NULL;
    if (!root || !paired) {
        json_decref(root);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    json_object_set_new(root, "paired", paired);
    return sb_report_json_finish(root, out, err);
}
