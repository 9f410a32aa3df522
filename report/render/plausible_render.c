/* plausible_render.c - the plausibility listing in Markdown
 * (plausible_render.h). */
#include "plausible_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "encode.h"
#include "geomean.h"
#include "sessions.h"

/* A number cell; "-" for one that is not finite (a rate left unknown, or
 * a ceiling the card lacks), never "nan" or "inf". */
static void num_cell(sb_buf *out, int decimals, const char *unit, double x)
{
    if (isfinite(x))
        sb_buf_printf(out, " %.*f%s |", decimals, x, unit);
    else
        sb_buf_puts(out, " - |");
}

static void md_cell(sb_buf *out, const char *s)
{
    sb_buf_puts(out, " ");
    sb_enc_md_text(out, s ? s : "-", sizeof ((sb_plaus_verdict *)0)->reason);
    sb_buf_puts(out, " |");
}

static void case_cells(sb_buf *out, const sb_result *r)
{
    const char *cells[] = {r->op, r->mode, r->dtype, r->shape_key, r->provider, r->sku};
    sb_buf_puts(out, "|");
    for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++)
        md_cell(out, cells[k]);
}

/* "run 812, GPU-8d45c405, 8 GiB, own card"; "data/skus.csv" for the datasheet */
static void calibration_cell(const sb_plaus_source *s, char *out, size_t size)
{
    if (s->calib_run < 0) {
        snprintf(out, size, "data/skus.csv");
        return;
    }
    char gpu[32], buf[32];
    sb_plaus_short_gpu(s->gpu_uuid[0] ? s->gpu_uuid : "GPU unknown", gpu, sizeof gpu);
    if (s->buffer_bytes > 0)
        sb_plaus_buffer_text(s->buffer_bytes, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "buffer unknown");
    snprintf(out, size, "run %lld, %s, %s, %s", s->calib_run, gpu, buf,
             s->card == SB_PLAUS_CARD_OWN     ? "own card"
             : s->card == SB_PLAUS_CARD_OTHER ? "another card"
                                              : "card unknown");
}

/* A row for each listed run (n of them); with session, the row names the
 * run's session. */
static void listed_rows(const sb_plaus_listed *l, size_t n, int session, sb_buf *rows)
{
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = l[i].run;
        const sb_plaus_verdict *v = &l[i].verdict;
        sb_buf_printf(rows, "| %s ", sb_plaus_state_name(v->state));
        case_cells(rows, r);
        if (session) {
            char id[SB_SESSION_SHORT + 1];
            snprintf(id, sizeof id, "%s", r->session_id ? r->session_id : "-");
            md_cell(rows, id);
            sb_buf_printf(rows, " %d |", r->session_copy);
        }
        sb_buf_printf(rows, " %lld |", r->run_id);
        num_cell(rows, 0, "", v->gbps);
        num_cell(rows, 0, "", v->ceiling_gbps);
        num_cell(rows, 1, "%", v->pct_ceiling);
        md_cell(rows, v->ceiling_name);
        char cal[160];
        calibration_cell(&v->source, cal, sizeof cal);
        md_cell(rows, cal);
        md_cell(rows, v->reason);
        sb_buf_puts(rows, "\n");
    }
}

/* head and the rows of the n listed runs, when there are any. */
static void table(sb_buf *out, const char *head, const sb_plaus_listed *l, size_t n, int session)
{
    if (!n)
        return;
    sb_buf_puts(out, head);
    listed_rows(l, n, session, out);
    sb_buf_puts(out, "\n");
}

/* The speedups above SB_SPEEDUP_LOOK under their heading. */
static void big_section(const sb_plaus_listing *l, const char *heading, sb_buf *out)
{
    sb_buf_printf(out, "%s Speedups above %.0fx\n\n", heading, SB_SPEEDUP_LOOK);
    if (!l->nbig) {
        sb_buf_printf(out, "None: no provider is more than %.0fx faster than a headline baseline on "
                           "a case both passed.\n\n", SB_SPEEDUP_LOOK);
        return;
    }
    sb_buf_printf(out,
                  "%zu pairs, flagged for a second look (an eager baseline of many kernels can be "
                  "this slow; a wrong time or a provider that skips work can too). Both times "
                  "in ms.\n\n"
                  "| op | mode | dtype | shape | provider | SKU | baseline | time | provider ms | "
                  "baseline ms | speedup | runs |\n"
                  "| --- | --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |\n",
                  l->sum.big_speedups);
    for (size_t i = 0; i < l->nbig; i++) {
        const sb_plaus_big *g = &l->big[i];
        case_cells(out, g->run);
        md_cell(out, g->baseline);
        sb_buf_printf(out, " %s | %.4g | %.4g | %.1fx | %lld, %lld |\n", sb_time_kind_name(g->time), g->run_ms,
                      g->base_ms, g->speedup, g->run->run_id, g->base->run_id);
    }
    sb_buf_puts(out, "\n");
}

static int render_md(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                     const char *heading, int implausible_only, sb_buf *out, sb_plaus_summary *sum,
                     sb_error *err)
{
    sb_plaus_listing l;
    if (sb_plaus_list(snap, picks, np, sessions, implausible_only, &l, err) != SB_OK) {
        memset(sum, 0, sizeof *sum);
        return SB_ERR;
    }
    *sum = l.sum;
    sb_buf_printf(out, "%s Plausibility\n\n", heading);
    sb_buf_printf(out,
                  "Each passing newest run's achieved bandwidth (data/op_models.csv's bytes over its "
                  "kernel time, else its median time) against the newest calibration of its own GPU "
                  "that measured the ceiling, else the SKU's newest that did, or data/skus.csv's HBM "
                  "figure without one, plus %.0f%%; the calibration column names it. Implausible runs stay stored; "
                  "every headline leaves them out and counts them. Cache-resident runs move no more "
                  "bytes a launch than the card's L2 holds (data/cache_sizes.csv) and are not held "
                  "against HBM. %zu runs checked: %zu implausible, %zu cache-resident, %zu without "
                  "a model or time.%s\n\n",
                  100.0 * SB_PLAUS_MARGIN, sum->checked, sum->implausible, sum->cache_resident,
                  sum->unknown,
                  implausible_only ? " Listed: the implausible runs; `solbook report plausibility` "
                                     "lists the cache-resident ones too."
                                   : "");
    table(out, "| verdict | op | mode | dtype | shape | provider | SKU | run | GB/s | ceiling GB/s | "
               "% of ceiling | ceiling | calibration | reason |\n"
               "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |\n",
          l.runs, l.nruns, 0);
    if (sessions) {
        sb_buf_printf(out, "%s Plausibility of the measuring sessions' runs\n\n", heading);
        sb_buf_printf(out,
                      "Every passing run of a measuring session (docs/SESSIONS.md), checked the same "
                      "way: %zu runs checked, %zu implausible, %zu cache-resident, %zu without a model "
                      "or time. A session pair with an implausible side is left out of every paired "
                      "figure (report geomean, the standing and evidence tables, the weekly, packets, "
                      "the site, `solbook session`) and counted. Sessions keep L2 warm between calls, "
                      "so a case whose bytes fit L2 measures the cache for every provider alike.\n\n",
                      sum->session_checked, sum->session_implausible, sum->session_cache_resident,
                      sum->session_unknown);
        table(out, "| verdict | op | mode | dtype | shape | provider | SKU | session | copy | run | GB/s | "
                   "ceiling GB/s | % of ceiling | ceiling | calibration | reason |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- "
                   "| --- | --- |\n",
              l.session_runs, l.nsession_runs, 1);
    }
    if (!implausible_only)
        big_section(&l, heading, out);
    sb_plaus_listing_free(&l);
    if (sb_buf_failed(out))
        return sb_error_set(err, NULL, NULL, "out of memory");
    return SB_OK;
}

int sb_plaus_render_md(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                       const char *heading, sb_buf *out, sb_plaus_summary *sum, sb_error *err)
{
    return render_md(snap, picks, np, sessions, heading, 0, out, sum, err);
}

int sb_plaus_render_implausible_md(const sb_plaus_snap *snap, const sb_pick *picks, size_t np, const sb_result_set *sessions,
                                   const char *heading, sb_buf *out, sb_plaus_summary *sum, sb_error *err)
{
    return render_md(snap, picks, np, sessions, heading, 1, out, sum, err);
}

/* A figure with its unit (free text, so encoded); "-" when not finite. */
static void unit_cell(sb_buf *out, double x, const char *unit)
{
    if (!isfinite(x)) {
        sb_buf_puts(out, " - |");
        return;
    }
    sb_buf_printf(out, " %.4g ", x);
    sb_enc_md_text(out, unit, sizeof ((sb_ceiling *)0)->unit);
    sb_buf_puts(out, " |");
}

void sb_plaus_render_set_aside_md(const sb_snapshot *cards, const char *heading, sb_buf *out)
{
    size_t n = 0;
    const sb_ceiling_aside *a = cards ? sb_snapshot_set_aside(cards, &n) : NULL;
    sb_buf_printf(out, "%s# Calibrations set aside\n\n", heading);
    if (n == 0) {
        sb_buf_printf(out,
                      "None: every measured ceiling of the stored calibrations is within %.2g to %.3g "
                      "times its datasheet figure (data/skus.csv), or has no figure to be held "
                      "against.\n\n",
                      SB_CEILING_CREDIBLE_LOW, SB_CEILING_CREDIBLE_HIGH);
        return;
    }
    sb_buf_printf(out,
                  "A measured ceiling is used only within %.2g to %.3g times its datasheet figure "
                  "(data/skus.csv). Set aside: %zu measured ceiling%s, in no verdict, share or plot; "
                  "the card's next calibration that measured the ceiling credibly, else its "
                  "datasheet, takes the place of each.\n\n"
                  "| SKU | calibration run | ceiling | measured | datasheet | of datasheet |\n"
                  "| --- | ---: | --- | ---: | ---: | ---: |\n",
                  SB_CEILING_CREDIBLE_LOW, SB_CEILING_CREDIBLE_HIGH, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        const sb_ceiling *c = &a[i].ceiling;
        sb_buf_puts(out, "|");
        md_cell(out, a[i].sku);
        sb_buf_printf(out, " %lld |", c->run_id);
        md_cell(out, c->name);
        unit_cell(out, c->value, c->unit);
        unit_cell(out, a[i].datasheet > 0 ? a[i].datasheet : NAN, c->unit);
        /* %g: a ceiling of 1e308 is a ratio of 3e304, not 300 digits */
        double ratio = a[i].datasheet > 0 ? c->value / a[i].datasheet : NAN;
        if (isfinite(ratio))
            sb_buf_printf(out, " %.3g |", ratio);
        else
            sb_buf_puts(out, " - |");
        sb_buf_puts(out, "\n");
    }
    sb_buf_puts(out, "\n");
}
