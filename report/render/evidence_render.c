/* evidence_render.c - out/EVIDENCE.md from the page's figures
 * (evidence_render.h, report/evidence.h). */
#include "evidence_render.h"

#include <jansson.h>
#include <math.h>

#include "casetable.h"
#include "encode.h"
#include "note.h"
#include "repro.h"
#include "template.h"

static void pct(sb_buf *b, double v)
{
    if (!isfinite(100.0 * v)) /* NaN, or a stored fraction near the largest double */
        sb_buf_puts(b, "-");
    else
        sb_buf_printf(b, "%.1f%%", 100.0 * v);
}

/* A figure in fixed digits, "-" where it is unknown (a run that states no
 * TFLOP/s) or overflowed. */
static void fixed(sb_buf *b, const char *fmt, double v)
{
    if (isfinite(v))
        sb_buf_printf(b, fmt, v);
    else
        sb_buf_puts(b, "-");
}

static void md(sb_buf *b, const char *s)
{
    sb_enc_md_text(b, s, SB_TEXT_NAME_MAX);
}

static const char *met(int ok)
{
    return ok ? "met" : "MISSED";
}

/* The table of the spec runs, one row each. */
static void spec_runs(const sb_evidence_card *k, sb_buf *b)
{
    const sb_gate_spec *spec = k->spec;
    if (!k->nspec_runs) {
        sb_buf_puts(b, "No passing GEMM spec result on this card.\n");
        return;
    }
    sb_buf_printf(b, "GEMM spec, %s %s %s, %lld warm-up + %lld x %lld (`%s`); the SM clock is "
                     "NVML's reading after each repeat, with the throttle reasons seen:\n\n",
                  spec->op, spec->dtype, spec->shape_key, spec->warmup_iters, spec->iters,
                  spec->repeats, spec->suite);
    sb_buf_puts(b, "| provider | median ms | TFLOP/s | % of datasheet | relative noise | spread "
                   "of the repeat medians | SM MHz per repeat | run |\n| --- | ---: | ---: | ---: "
                   "| ---: | ---: | --- | ---: |\n");
    for (size_t i = 0; i < k->nspec_runs; i++) {
        const sb_evidence_spec_run *x = &k->spec_runs[i];
        const sb_result *r = x->run;
        sb_buf_puts(b, "| ");
        md(b, r->provider);
        sb_buf_puts(b, " | ");
        fixed(b, "%.4f", r->median_ms);
        sb_buf_puts(b, " | ");
        fixed(b, "%.1f", r->tflops);
        sb_buf_puts(b, " | ");
        pct(b, x->of_peak);
        sb_buf_puts(b, " | ");
        pct(b, x->rel_noise);
        sb_buf_puts(b, " | ");
        pct(b, r->repeat_spread);
        sb_buf_puts(b, " | ");
        if (*x->clocks) {
            md(b, x->clocks);
            if (*x->why) {
                sb_buf_puts(b, " (");
                sb_enc_md_text(b, x->why, SB_TEXT_NOTE_MAX);
                sb_buf_puts(b, ")");
            }
        } else {
            sb_buf_puts(b, "-");
        }
        sb_buf_printf(b, " | %lld |\n", r->run_id);
    }
}

/* The targets of the spec and the card's measured ceilings. */
static void gemm_targets(const sb_evidence_card *k, sb_buf *b)
{
    if (k->library && k->torch) {
        double r = k->library->tflops / k->torch->tflops;
        sb_buf_puts(b, "- cuBLAS / torch.matmul TFLOP/s: **");
        pct(b, r);
        sb_buf_printf(b, "** (target >= %.0f%%: %s)\n", 100 * SB_EVIDENCE_CUBLAS_OVER_TORCH,
                      met(r >= SB_EVIDENCE_CUBLAS_OVER_TORCH));
    }
    if (k->library) {
        sb_buf_puts(b, "- spread of the cuBLAS repeat medians: **");
        pct(b, k->library->repeat_spread);
        sb_buf_printf(b, "** (target < %.0f%%: %s)\n", 100 * SB_NOTE_SPREAD_LIMIT,
                      met(k->library->repeat_spread < SB_NOTE_SPREAD_LIMIT));
    }
    double copy = k->copy_gbps, d2d = k->d2d_gbps;
    if (!isnan(copy) && !isnan(d2d)) {
        if (k->d2d_calibration == k->calibration)
            sb_buf_printf(b, "- measured copy %.0f GB/s against cudaMemcpy D2D %.0f GB/s (calibration run "
                             "%lld): **", copy, d2d, k->calibration);
        else
            sb_buf_printf(b, "- measured copy %.0f GB/s (calibration run %lld) against cudaMemcpy D2D %.0f "
                             "GB/s (calibration run %lld): **", copy, k->calibration, d2d, k->d2d_calibration);
        pct(b, copy / d2d);
        sb_buf_printf(b, "** (target >= %.0f%%: %s)\n", 100 * SB_EVIDENCE_COPY_OVER_MEMCPY,
                      met(copy / d2d >= SB_EVIDENCE_COPY_OVER_MEMCPY));
    }
    if (k->nceilings) {
        sb_buf_puts(b, "- measured ceilings: ");
        for (size_t i = 0; i < k->nceilings; i++) {
            sb_buf_puts(b, i ? ", " : "");
            md(b, k->ceilings[i].name);
            sb_buf_printf(b, " %.0f ", k->ceilings[i].value);
            md(b, k->ceilings[i].unit);
        }
        sb_buf_puts(b, "\n");
    } else {
        if (k->set_aside)
            sb_buf_printf(b, "- no measured ceiling: every one the stored calibrations state for this card is set "
                             "aside, outside %.2g to %.3g times the datasheet (`solbook report plausibility` lists "
                             "them)\n",
                          SB_CEILING_CREDIBLE_LOW, SB_CEILING_CREDIBLE_HIGH);
        else
            sb_buf_puts(b, "- no calibration stored for this card\n");
    }
}

/* The settle trials in one line and the sweep's table. */
static void gemm_settle_sweep(const sb_evidence_card *k, sb_buf *b)
{
    if (k->nsettle) {
        sb_buf t = SB_BUF_INIT;
        for (size_t i = 0; i < k->nsettle; i++) {
            const sb_result *r = k->settle[i].run;
            sb_buf_printf(&t, "%s%.0f ms -> ", i ? ", " : "", r->settle_ms);
            pct(&t, r->repeat_spread);
            sb_buf_puts(&t, " (");
            fixed(&t, "%.1f", r->tflops);
            sb_buf_printf(&t, " TFLOP/s, last repeat at %s MHz)", k->settle[i].last_mhz);
        }
        sb_buf_printf(b, "- the spec's case again with several settle lengths (`%s`), settle -> spread "
                         "of the repeat medians: %s; under %.0f%% in %zu of %zu\n",
                      SB_EVIDENCE_SETTLE_SUITE, sb_buf_str(&t), 100 * SB_NOTE_SPREAD_LIMIT,
                      k->steady, k->nsettle);
        sb_buf_free(&t);
    }
    for (size_t i = 0; i < k->nsweep; i++) {
        const sb_evidence_sweep *x = &k->sweep[i];
        if (!i)
            sb_buf_puts(b, "\n| dtype | case | " SB_EVIDENCE_SWEEP_LIBRARY " TFLOP/s | " SB_EVIDENCE_SWEEP_OURS
                           " TFLOP/s | ratio |\n| --- | --- | ---: | ---: | ---: |\n");
        sb_buf label = SB_BUF_INIT;
        sb_case_label(x->run, &label);
        sb_buf_puts(b, "| ");
        md(b, x->run->dtype);
        sb_buf_puts(b, " | ");
        md(b, sb_buf_str(&label));
        sb_buf_puts(b, " | ");
        fixed(b, "%.1f", x->library->tflops);
        sb_buf_puts(b, " | ");
        fixed(b, "%.1f", x->run->tflops);
        sb_buf_puts(b, " | ");
        pct(b, x->ratio);
        sb_buf_puts(b, " |\n");
        sb_buf_free(&label);
    }
}

/* The GEMM section of one card. */
static void gemm_section(const sb_evidence_card *k, sb_buf *b)
{
    spec_runs(k, b);
    sb_buf_puts(b, "\n");
    gemm_targets(k, b);
    gemm_settle_sweep(k, b);
    sb_buf_puts(b, "\n");
}

static void group_cells(sb_buf *b, const sb_evidence_group *g)
{
    sb_buf_puts(b, "| ");
    md(b, g->op);
    sb_buf_puts(b, " | ");
    md(b, g->mode);
    sb_buf_puts(b, " | ");
    md(b, g->dtype);
    sb_buf_puts(b, " |");
}

/* The rows of the project's kernels against the headline baselines that
 * no session pairs, under their label. */
static void unpaired_rows(const sb_evidence_card *k, sb_buf *b)
{
    sb_buf rows = SB_BUF_INIT;
    for (size_t i = 0; i < k->ngroups; i++) {
        const sb_evidence_group *g = &k->groups[i];
        int any = 0;
        for (size_t q = 0; q < SB_EVIDENCE_MAX_BASES; q++)
            any |= g->unpaired[q] != NULL;
        if (!any)
            continue;
        group_cells(&rows, g);
        for (size_t q = 0; sb_headline_baselines[q] && q < SB_EVIDENCE_MAX_BASES; q++) {
            const sb_geo_row *r = g->unpaired[q];
            if (r)
                sb_buf_printf(&rows, " %.2fx %c | %.2fx | %zu |", r->geomean, r->time == SB_TIME_KERNEL ? 'k' : 'c',
                              r->min, r->shapes);
            else
                sb_buf_puts(&rows, " - | - | - |");
        }
        sb_buf_puts(&rows, "\n");
    }
    sb_buf_puts(b, SB_UNPAIRED_LABEL "\n\n");
    if (!rows.len) {
        sb_buf_puts(b, "Every case of the project's kernels with a passing run of a baseline on this card is paired "
                       "above.\n\n");
        sb_buf_free(&rows);
        return;
    }
    sb_buf_puts(b, "Each provider's newest result run of a case outside the measuring sessions: the two sides ran "
                   "in different processes, possibly at different commits, on different cards of the SKU and by "
                   "different timing methods; no headline is taken from them, and a case a session pairs is "
                   "left out. Geomean and lowest over the cases both passed, in kernel time where both sides "
                   "recorded it for every case, else call time (`k`, `c`).\n\n");
    sb_buf_puts(b, "| op | mode | dtype |");
    for (size_t q = 0; sb_headline_baselines[q]; q++)
        sb_buf_printf(b, " x %s | lowest | cases |", sb_headline_baselines[q]);
    sb_buf_puts(b, "\n| --- | --- | --- |");
    for (size_t q = 0; sb_headline_baselines[q]; q++)
        sb_buf_puts(b, " ---: | ---: | ---: |");
    sb_buf_puts(b, "\n");
    sb_buf_add(b, sb_buf_str(&rows), rows.len);
    sb_buf_puts(b, "\n");
    sb_buf_free(&rows);
}

/* The project's kernels per op x mode x dtype on one card. */
static void kernels_section(const sb_evidence_card *k, sb_buf *b)
{
    /* a SKU with no calibration has no measured ceiling: it says so
     * rather than print an absent figure */
    if (isnan(k->copy_gbps) && k->copy_set_aside)
        sb_buf_printf(b, "\"%% copy\" is left blank: it needs the card's measured copy ceiling, and every copy "
                         "ceiling the stored calibrations of this SKU state is set aside, outside %.2g to %.3g "
                         "times the datasheet (`solbook report plausibility` lists them). The rows are the "
                         "newest result runs that are ",
                      SB_CEILING_CREDIBLE_LOW, SB_CEILING_CREDIBLE_HIGH);
    else if (isnan(k->copy_gbps))
        sb_buf_puts(b, "\"% copy\" is left blank: it needs the card's measured copy ceiling, and no "
                       "calibration of this SKU is stored (`solbench roofline`, then `solbook ingest`). The rows "
                       "are the newest result runs that are ");
    else
        sb_buf_printf(b, "\"%% copy\" is the case's model bytes over its time against the card's measured "
                         "copy ceiling (%.0f GB/s, calibration run %lld), over the newest result runs that are ",
                      k->copy_gbps, k->calibration);
    sb_buf_printf(b, "plausible (`solbook report plausibility` lists the others). Speedups are "
                     "paired within one measuring session (docs/CLAIMS.md, rule 8): the geometric mean of the "
                     "cases' round-by-round kernel-time ratios with its %.0f%% interval, the lowest case, and "
                     "the session (the one that pairs the most of the group's cases, the newest on a tie).\n\n",
                  100 * SB_HEADLINE_LEVEL);
    sb_buf_puts(b, "| op | mode | dtype | cases | % copy min | median | max |");
    for (size_t q = 0; sb_headline_baselines[q]; q++)
        sb_buf_printf(b, " x %s, paired | lowest | session |", sb_headline_baselines[q]);
    sb_buf_puts(b, "\n| --- | --- | --- | ---: | ---: | ---: | ---: |");
    for (size_t q = 0; sb_headline_baselines[q]; q++)
        sb_buf_puts(b, " ---: | ---: | --- |");
    sb_buf_puts(b, "\n");
    for (size_t i = 0; i < k->ngroups; i++) {
        const sb_evidence_group *g = &k->groups[i];
        group_cells(b, g);
        sb_buf_printf(b, " %zu | ", g->cases);
        pct(b, g->copy_min);
        sb_buf_puts(b, " | ");
        pct(b, g->copy_median);
        sb_buf_puts(b, " | ");
        pct(b, g->copy_max);
        sb_buf_puts(b, " |");
        for (size_t q = 0; sb_headline_baselines[q]; q++) {
            const sb_session_headline *x = q < SB_EVIDENCE_MAX_BASES ? g->paired[q] : NULL;
            if (x)
                sb_buf_printf(b, " %.2fx (%.2f-%.2f) over %zu | %.2fx | %.*s |", x->geomean.ratio, x->geomean.lo,
                              x->geomean.hi, x->count, g->lowest[q], SB_SESSION_SHORT, x->session_id);
            else
                sb_buf_puts(b, " - | - | - |");
        }
        sb_buf_puts(b, "\n");
    }
    sb_buf_puts(b, "\n");
    unpaired_rows(k, b);
}

/* "[provider op ]mode dtype case", Markdown-escaped. */
static void case_words(sb_buf *b, const sb_result *r, int provider_op)
{
    if (provider_op) {
        md(b, r->provider);
        sb_buf_puts(b, " ");
        md(b, r->op);
        sb_buf_puts(b, " ");
    }
    md(b, r->mode);
    sb_buf_puts(b, " ");
    md(b, r->dtype);
    sb_buf_puts(b, " ");
    sb_buf label = SB_BUF_INIT;
    sb_case_label(r, &label);
    md(b, sb_buf_str(&label));
    sb_buf_free(&label);
}

static void memory_section(const sb_evidence_card *k, sb_buf *b)
{
    for (size_t i = 0; i < k->nflce; i++) {
        const sb_evidence_flce *x = &k->flce[i];
        if (!i)
            sb_buf_printf(b, "FLCE peak device memory against %s (target <= %.0f%%), from the newest result "
                             "runs of each side (the runs named), not from the measuring sessions: their fused "
                             "peaks leave out the outputs and workspace, allocated before the measured call "
                             "(docs/SESSIONS.md).\n\n",
                          sb_headline_baselines[0], 100 * SB_EVIDENCE_FLCE_MEMORY);
        sb_buf_puts(b, "- ");
        case_words(b, x->run, 0);
        sb_buf_printf(b, ": %.2f GB against %.2f GB, **", (double)x->run->peak_device_bytes / 1e9,
                      (double)x->base->peak_device_bytes / 1e9);
        pct(b, x->share);
        sb_buf_printf(b, "** (%s; runs %lld, %lld)\n", met(x->share <= SB_EVIDENCE_FLCE_MEMORY), x->run->run_id,
                      x->base->run_id);
    }
    if (k->nflce)
        sb_buf_puts(b, "\n");
    for (size_t i = 0; i < k->nfailed; i++) {
        const sb_result *r = k->failed[i];
        if (!i)
            sb_buf_puts(b, "Newest runs that failed:\n\n");
        sb_buf_puts(b, "- ");
        case_words(b, r, 1);
        sb_buf_printf(b, " (run %lld): ", r->run_id);
        sb_enc_md_text(b, r->reason ? r->reason : r->correct == 0 ? "correctness failed" : r->status,
                       160);
        sb_buf_puts(b, "\n");
    }
    if (k->nfailed)
        sb_buf_puts(b, "\n");
}

int sb_evidence_render(const sb_result_set *set, const sb_session_headlines *paired,
                       const sb_snapshot *snap, const sb_run_details *det,
                       const sb_sku_table *skus, sb_buf *out, sb_error *err)
{
    int rc = SB_ERR;
    sb_evidence_page page;
    json_t *d = json_object(), *cards = json_array();
    sb_buf tmp = SB_BUF_INIT;
    json_object_set_new(d, "cards", cards);
    if (sb_evidence_compute(set, paired, snap, det, skus, &page, err) != SB_OK) {
        json_decref(d);
        return SB_ERR;
    }
    if (sb_note_render(set, det, skus, SB_EVIDENCE_GATE_ARCHES, &tmp, err) != SB_OK)
        goto done;
    sb_tpl_set_str(d, "note", sb_buf_str(&tmp));
    sb_tpl_set_str(d, "subject", SB_PROJECT_PROVIDER);
    sb_tpl_set_str(d, "evidence_op", SB_EVIDENCE_OP);
    json_object_set_new(d, "runs", json_integer((json_int_t)set->n));
    for (size_t i = 0; i < page.ncards; i++) {
        const sb_evidence_card *k = &page.cards[i];
        json_t *c = json_object();
        sb_tpl_set_str(c, "sku", k->sku);
        sb_tpl_set_str(c, "display", k->display);
        sb_buf_reset(&tmp);
        gemm_section(k, &tmp);
        sb_tpl_set_str(c, "gemm", sb_buf_str(&tmp));
        sb_buf_reset(&tmp);
        kernels_section(k, &tmp);
        sb_tpl_set_str(c, "kernels", sb_buf_str(&tmp));
        sb_buf_reset(&tmp);
        memory_section(k, &tmp);
        sb_tpl_set_str(c, "memory", sb_buf_str(&tmp));
        json_array_append_new(cards, c);
    }
    rc = sb_render_home("evidence.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, out, err);
done:
    sb_buf_free(&tmp);
    json_decref(d);
    sb_evidence_page_free(&page);
    return rc;
}
