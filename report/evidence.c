/* evidence.c - out/EVIDENCE.md from the database (evidence.h). */
#include "evidence.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "casetable.h"
#include "encode.h"
#include "gate.h"
#include "geomean.h"
#include "note.h"
#include "repro.h"
#include "results.h"
#include "sessions.h"
#include "stats.h"
#include "template.h"

/* The project's GEMM and the library it is held against in the sweep. */
#define SWEEP_SUITE "gemm-sweep"
#define SWEEP_OURS "solbook-mma"
#define SWEEP_LIBRARY "cublas"
#define SETTLE_SUITE "gemm-spec-settle"

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

/* The SM clocks after each repeat of a run and its throttle reasons, as
 * read for the ask (sb_evidence_ask): "" for both when none. */
static void run_clocks(const sb_run_details *det, long long run_id, const char **clocks,
                       const char **why)
{
    const sb_run_clocks *c = sb_run_details_clocks(det, run_id);
    *clocks = c ? c->clocks : "";
    *why = c ? c->reasons : "";
}

static const char *const COLUMNS[] = {"rel_noise"};

static double ceiling(const sb_ceiling *c, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0)
            return c[i].value;
    return NAN;
}

static const char *met(int ok)
{
    return ok ? "met" : "MISSED";
}

static int is_spec_run(const sb_result *r, const sb_gate_spec *spec, const char *sku)
{
    return !strcmp(r->sku, sku) && !strcmp(r->suite, spec->suite) && !strcmp(r->shape_key, spec->shape_key) &&
           !strcmp(r->dtype, spec->dtype) && r->passing;
}

/* 1 when a later spec run of r's provider on the SKU is stored. */
static int newer_spec_run(const sb_result_set *s, const sb_result *r, const sb_gate_spec *spec, const char *sku)
{
    for (size_t j = 0; j < s->n; j++)
        if (s->v[j].run_id > r->run_id && !strcmp(s->v[j].provider, r->provider) &&
            is_spec_run(&s->v[j], spec, sku))
            return 1;
    return 0;
}

/* The GEMM section of one SKU. */
static void gemm_section(const sb_snapshot *snap, const sb_run_details *det,
                         const sb_sku_table *skus, const sb_result_set *s, const sb_pick *picks,
                         size_t n, const char *sku, sb_buf *b)
{
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    const sb_sku *k = skus ? sb_sku_find(skus, sku) : NULL;
    double peak = k ? sb_sku_peak_tflops(k, spec->dtype) : 0;
    const sb_result *cub = NULL, *torch = NULL;
    size_t rows = 0;
    (void)picks;
    (void)n;
    /* The spec's own runs, newest of each provider: the suite is no part of
     * a case's identity, so the newest run of the spec's case may be a
     * sweep or settle run, timed under another protocol. */
    for (size_t i = 0; i < s->n; i++) {
        const sb_result *r = &s->v[i];
        if (!is_spec_run(r, spec, sku) || newer_spec_run(s, r, spec, sku))
            continue;
        if (!rows++) {
            sb_buf_printf(b, "GEMM spec, %s %s %s, %lld warm-up + %lld x %lld (`%s`); the SM clock is "
                             "NVML's reading after each repeat, with the throttle reasons seen:\n\n",
                          spec->op, spec->dtype, spec->shape_key, spec->warmup_iters, spec->iters,
                          spec->repeats, spec->suite);
            sb_buf_puts(b, "| provider | median ms | TFLOP/s | % of datasheet | relative noise | spread "
                           "of the repeat medians | SM MHz per repeat | run |\n| --- | ---: | ---: | ---: "
                           "| ---: | ---: | --- | ---: |\n");
        }
        if (strcmp(r->provider, spec->provider) == 0)
            cub = r;
        if (strcmp(r->provider, "torch") == 0)
            torch = r;
        const char *clocks, *why;
        run_clocks(det, r->run_id, &clocks, &why);
        sb_buf_puts(b, "| ");
        md(b, r->provider);
        sb_buf_puts(b, " | ");
        fixed(b, "%.4f", r->median_ms);
        sb_buf_puts(b, " | ");
        fixed(b, "%.1f", r->tflops);
        sb_buf_puts(b, " | ");
        pct(b, peak > 0 ? r->tflops / peak : NAN);
        sb_buf_puts(b, " | ");
        pct(b, sb_run_details_column(det, r->run_id, "rel_noise"));
        sb_buf_puts(b, " | ");
        pct(b, r->repeat_spread);
        sb_buf_puts(b, " | ");
        if (*clocks) {
            md(b, clocks);
            if (*why) {
                sb_buf_puts(b, " (");
                sb_enc_md_text(b, why, SB_TEXT_NOTE_MAX);
                sb_buf_puts(b, ")");
            }
        } else {
            sb_buf_puts(b, "-");
        }
        sb_buf_printf(b, " | %lld |\n", r->run_id);
    }
    if (!rows)
        sb_buf_puts(b, "No passing GEMM spec result on this card.\n");
    sb_buf_puts(b, "\n");
    if (cub && torch) {
        double r = cub->tflops / torch->tflops;
        sb_buf_puts(b, "- cuBLAS / torch.matmul TFLOP/s: **");
        pct(b, r);
        sb_buf_printf(b, "** (target >= %.0f%%: %s)\n", 100 * SB_EVIDENCE_CUBLAS_OVER_TORCH,
                      met(r >= SB_EVIDENCE_CUBLAS_OVER_TORCH));
    }
    if (cub) {
        sb_buf_puts(b, "- spread of the cuBLAS repeat medians: **");
        pct(b, cub->repeat_spread);
        sb_buf_printf(b, "** (target < %.0f%%: %s)\n", 100 * SB_NOTE_SPREAD_LIMIT,
                      met(cub->repeat_spread < SB_NOTE_SPREAD_LIMIT));
    }
    size_t nc = 0;
    long long cal = -1;
    const sb_ceiling *c = sb_snapshot_ceilings(snap, sku, &nc, &cal);
    double copy = ceiling(c, nc, "bw.copy"), d2d = ceiling(c, nc, "bw.memcpy_d2d");
    if (!isnan(copy) && !isnan(d2d)) {
        sb_buf_printf(b, "- measured copy %.0f GB/s against cudaMemcpy D2D %.0f GB/s (calibration run "
                         "%lld): **", copy, d2d, cal);
        pct(b, copy / d2d);
        sb_buf_printf(b, "** (target >= %.0f%%: %s)\n", 100 * SB_EVIDENCE_COPY_OVER_MEMCPY,
                      met(copy / d2d >= SB_EVIDENCE_COPY_OVER_MEMCPY));
    }
    if (nc) {
        sb_buf_puts(b, "- measured ceilings: ");
        for (size_t i = 0; i < nc; i++) {
            sb_buf_puts(b, i ? ", " : "");
            md(b, c[i].name);
            sb_buf_printf(b, " %.0f ", c[i].value);
            md(b, c[i].unit);
        }
        sb_buf_puts(b, "\n");
    } else {
        sb_buf_puts(b, "- no calibration stored for this card\n");
    }
    /* settle trials: every run, in order */
    size_t trials = 0, steady = 0;
    sb_buf t = SB_BUF_INIT;
    for (size_t i = 0; i < s->n; i++) {
        const sb_result *r = &s->v[i];
        if (strcmp(r->sku, sku) || strcmp(r->suite, SETTLE_SUITE) || !r->passing)
            continue;
        const char *clocks, *why;
        run_clocks(det, r->run_id, &clocks, &why);
        const char *last = strrchr(clocks, '/');
        sb_buf_printf(&t, "%s%.0f ms -> ", trials ? ", " : "", r->settle_ms);
        pct(&t, r->repeat_spread);
        sb_buf_puts(&t, " (");
        fixed(&t, "%.1f", r->tflops);
        sb_buf_printf(&t, " TFLOP/s, last repeat at %s MHz)", last ? last + 1 : *clocks ? clocks : "?");
        trials++;
        steady += r->repeat_spread < SB_NOTE_SPREAD_LIMIT;
    }
    if (trials)
        sb_buf_printf(b, "- the spec's case again with several settle lengths (`%s`), settle -> spread "
                         "of the repeat medians: %s; under %.0f%% in %zu of %zu\n",
                      SETTLE_SUITE, sb_buf_str(&t), 100 * SB_NOTE_SPREAD_LIMIT, steady, trials);
    sb_buf_free(&t);
    /* the project's GEMM against the library in the sweep */
    size_t sweep = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, sku) || strcmp(r->suite, SWEEP_SUITE) || strcmp(r->provider, SWEEP_OURS) ||
            !r->passing)
            continue;
        const sb_pick *lib = sb_pick_find(picks, n, r->case_key, SWEEP_LIBRARY, sku);
        if (!lib || !lib->r->passing)
            continue;
        if (!sweep++)
            sb_buf_puts(b, "\n| dtype | case | " SWEEP_LIBRARY " TFLOP/s | " SWEEP_OURS
                           " TFLOP/s | ratio |\n| --- | --- | ---: | ---: | ---: |\n");
        sb_buf label = SB_BUF_INIT;
        sb_case_label(r, &label);
        sb_buf_puts(b, "| ");
        md(b, r->dtype);
        sb_buf_puts(b, " | ");
        md(b, sb_buf_str(&label));
        sb_buf_puts(b, " | ");
        fixed(b, "%.1f", lib->r->tflops);
        sb_buf_puts(b, " | ");
        fixed(b, "%.1f", r->tflops);
        sb_buf_puts(b, " | ");
        pct(b, r->tflops / lib->r->tflops);
        sb_buf_puts(b, " |\n");
        sb_buf_free(&label);
    }
    sb_buf_puts(b, "\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An op x mode x dtype of the project's kernels on one SKU. */
typedef struct op_group {
    const char *op, *mode, *dtype;
} op_group;

static int group_seen(const op_group *g, size_t n, const char *op, const char *mode, const char *dtype)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(g[i].op, op) && !strcmp(g[i].mode, mode) && !strcmp(g[i].dtype, dtype))
            return 1;
    return 0;
}

/* The groups of the project's passing runs and of its paired headlines on
 * sku, in that order; their count. */
static size_t kernel_groups(const sb_pick *picks, size_t n, const sb_session_headlines *h, const char *sku,
                            op_group *g)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (!strcmp(r->sku, sku) && !strcmp(r->provider, SB_PROJECT_PROVIDER) && r->passing &&
            !group_seen(g, ng, r->op, r->mode, r->dtype))
            g[ng++] = (op_group){r->op, r->mode, r->dtype};
    }
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (!strcmp(x->sku, sku) && !strcmp(x->provider, SB_PROJECT_PROVIDER) &&
            !group_seen(g, ng, x->op, x->mode, x->dtype))
            g[ng++] = (op_group){x->op, x->mode, x->dtype};
    }
    return ng;
}

static void group_cells(sb_buf *b, const op_group *g)
{
    sb_buf_puts(b, "| ");
    md(b, g->op);
    sb_buf_puts(b, " | ");
    md(b, g->mode);
    sb_buf_puts(b, " | ");
    md(b, g->dtype);
    sb_buf_puts(b, " |");
}

/* The headline of the group on sku against baseline from the session that
 * pairs the most of its cases (the newest of those on a tie); NULL: none. */
static const sb_session_headline *most_cases(const sb_session_headlines *h, const op_group *g, const char *sku,
                                             const char *baseline)
{
    const sb_session_headline *best = NULL;
    for (size_t i = 0; i < h->n; i++) {
        const sb_session_headline *x = &h->v[i];
        if (strcmp(x->op, g->op) || strcmp(x->mode, g->mode) || strcmp(x->dtype, g->dtype) || strcmp(x->sku, sku) ||
            strcmp(x->provider, SB_PROJECT_PROVIDER) || strcmp(x->baseline, baseline))
            continue;
        /* the pairs come in session start order: a larger index is a newer session */
        if (!best || x->count > best->count || (x->count == best->count && x->pair[0] > best->pair[0]))
            best = x;
    }
    return best;
}

/* The rows of the project's kernels against the headline baselines that
 * no session pairs (geo: sb_geo_compute_unpaired), under their label. */
static void unpaired_rows(const sb_geo_table *geo, const op_group *g, size_t ng, const char *sku, sb_buf *b)
{
    sb_buf rows = SB_BUF_INIT;
    for (size_t i = 0; i < ng; i++) {
        const sb_geo_row *row[8] = {0};
        for (size_t k = 0; sb_headline_baselines[k] && k < 8; k++)
            for (size_t j = 0; j < geo->n && !row[k]; j++) {
                const sb_geo_row *r = &geo->rows[j];
                if (!strcmp(r->sku, sku) && !strcmp(r->provider, SB_PROJECT_PROVIDER) && !strcmp(r->op, g[i].op) &&
                    !strcmp(r->mode, g[i].mode) && !strcmp(r->dtype, g[i].dtype) &&
                    !strcmp(r->baseline, sb_headline_baselines[k]) && r->shapes)
                    row[k] = r;
            }
        int any = 0;
        for (size_t k = 0; k < 8; k++)
            any |= row[k] != NULL;
        if (!any)
            continue;
        group_cells(&rows, &g[i]);
        for (size_t k = 0; sb_headline_baselines[k] && k < 8; k++) {
            if (row[k])
                sb_buf_printf(&rows, " %.2fx %c | %.2fx | %zu |", row[k]->geomean,
                              row[k]->time == SB_TIME_KERNEL ? 'k' : 'c', row[k]->min, row[k]->shapes);
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
    for (size_t k = 0; sb_headline_baselines[k]; k++)
        sb_buf_printf(b, " x %s | lowest | cases |", sb_headline_baselines[k]);
    sb_buf_puts(b, "\n| --- | --- | --- |");
    for (size_t k = 0; sb_headline_baselines[k]; k++)
        sb_buf_puts(b, " ---: | ---: | ---: |");
    sb_buf_puts(b, "\n");
    sb_buf_add(b, sb_buf_str(&rows), rows.len);
    sb_buf_puts(b, "\n");
    sb_buf_free(&rows);
}

/* The project's kernels per op x mode x dtype on one SKU: their share of
 * the copy ceiling from the newest runs, their speedups paired within a
 * session (paired), then the unpaired rest (geo). */
static void kernels_section(const sb_snapshot *snap, const sb_pick *picks, size_t n,
                            const sb_session_headlines *paired, const sb_geo_table *geo,
                            const char *sku, sb_buf *b)
{
    size_t nc = 0;
    long long cal = -1;
    const sb_ceiling *c = sb_snapshot_ceilings(snap, sku, &nc, &cal);
    double copy = ceiling(c, nc, "bw.copy");
    double *frac = malloc((n + 1) * sizeof *frac);
    op_group *g = malloc((n + paired->n + 1) * sizeof *g);
    if (!frac || !g) {
        free(frac);
        free(g);
        return;
    }
    size_t ng = kernel_groups(picks, n, paired, sku, g);
    /* a SKU with no calibration has no measured ceiling: it says so
     * rather than print an absent figure */
    if (isnan(copy))
        sb_buf_puts(b, "\"% copy\" is left blank: it needs the card's measured copy ceiling, and no "
                       "calibration of this SKU is stored (`solbench roofline`, then `solbook ingest`). The rows "
                       "are the newest result runs that are ");
    else
        sb_buf_printf(b, "\"%% copy\" is the case's model bytes over its time against the card's measured "
                         "copy ceiling (%.0f GB/s, calibration run %lld), over the newest result runs that are ",
                      copy, cal);
    sb_buf_printf(b, "plausible (`solbook report plausibility` lists the others). Speedups are "
                     "paired within one measuring session (docs/CLAIMS.md, rule 8): the geometric mean of the "
                     "cases' round-by-round kernel-time ratios with its %.0f%% interval, the lowest case, and "
                     "the session (the one that pairs the most of the group's cases, the newest on a tie).\n\n",
                  100 * SB_HEADLINE_LEVEL);
    sb_buf_puts(b, "| op | mode | dtype | cases | % copy min | median | max |");
    for (size_t k = 0; sb_headline_baselines[k]; k++)
        sb_buf_printf(b, " x %s, paired | lowest | session |", sb_headline_baselines[k]);
    sb_buf_puts(b, "\n| --- | --- | --- | ---: | ---: | ---: | ---: |");
    for (size_t k = 0; sb_headline_baselines[k]; k++)
        sb_buf_puts(b, " ---: | ---: | --- |");
    sb_buf_puts(b, "\n");
    for (size_t i = 0; i < ng; i++) {
        size_t cases = 0, nf = 0;
        for (size_t j = 0; j < n; j++) {
            const sb_result *q = picks[j].r;
            if (!q->passing || strcmp(q->sku, sku) || strcmp(q->provider, SB_PROJECT_PROVIDER) ||
                strcmp(q->op, g[i].op) || strcmp(q->mode, g[i].mode) || strcmp(q->dtype, g[i].dtype))
                continue;
            cases++;
            /* an implausible run (report/plausible.h) gives no figure */
            if (q->bytes > 0 && q->median_ms > 0 && copy > 0 && !q->implausible)
                frac[nf++] = q->bytes / (q->median_ms * 1e6) / copy;
        }
        qsort(frac, nf, sizeof *frac, cmp_double);
        group_cells(b, &g[i]);
        sb_buf_printf(b, " %zu | ", cases);
        pct(b, nf ? frac[0] : NAN);
        sb_buf_puts(b, " | ");
        pct(b, nf ? frac[nf / 2] : NAN);
        sb_buf_puts(b, " | ");
        pct(b, nf ? frac[nf - 1] : NAN);
        sb_buf_puts(b, " |");
        for (size_t k = 0; sb_headline_baselines[k]; k++) {
            const sb_session_headline *x = most_cases(paired, &g[i], sku, sb_headline_baselines[k]);
            if (x)
                sb_buf_printf(b, " %.2fx (%.2f-%.2f) over %zu | %.2fx | %.*s |", x->geomean.ratio, x->geomean.lo,
                              x->geomean.hi, x->count, paired->report.pairs[x->worst].kernel.ratio,
                              SB_SESSION_SHORT, x->session_id);
            else
                sb_buf_puts(b, " - | - | - |");
        }
        sb_buf_puts(b, "\n");
    }
    sb_buf_puts(b, "\n");
    unpaired_rows(geo, g, ng, sku, b);
    free(frac);
    free(g);
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

static void memory_section(const sb_pick *picks, size_t n, const char *sku, sb_buf *b)
{
    size_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, sku) || strcmp(r->op, "flce") || strcmp(r->provider, SB_PROJECT_PROVIDER) ||
            !r->passing || r->peak_device_bytes <= 0)
            continue;
        const sb_pick *h = sb_pick_find(picks, n, r->case_key, sb_headline_baselines[0], sku);
        if (!h || !h->r->passing || h->r->peak_device_bytes <= 0)
            continue;
        double q = (double)r->peak_device_bytes / (double)h->r->peak_device_bytes;
        if (!rows++)
            sb_buf_printf(b, "FLCE peak device memory against %s (target <= %.0f%%), from the newest result "
                             "runs of each side (the runs named), not from the measuring sessions: their fused "
                             "peaks leave out the outputs and workspace, allocated before the measured call "
                             "(docs/SESSIONS.md).\n\n",
                          sb_headline_baselines[0], 100 * SB_EVIDENCE_FLCE_MEMORY);
        sb_buf_puts(b, "- ");
        case_words(b, r, 0);
        sb_buf_printf(b, ": %.2f GB against %.2f GB, **", (double)r->peak_device_bytes / 1e9,
                      (double)h->r->peak_device_bytes / 1e9);
        pct(b, q);
        sb_buf_printf(b, "** (%s; runs %lld, %lld)\n", met(q <= SB_EVIDENCE_FLCE_MEMORY), r->run_id, h->r->run_id);
    }
    if (rows)
        sb_buf_puts(b, "\n");
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, sku) || r->passing || strcmp(r->status, "skipped") == 0)
            continue;
        if (!failed++)
            sb_buf_puts(b, "Newest runs that failed:\n\n");
        sb_buf_puts(b, "- ");
        case_words(b, r, 1);
        sb_buf_printf(b, " (run %lld): ", r->run_id);
        sb_enc_md_text(b, r->reason ? r->reason : r->correct == 0 ? "correctness failed" : r->status,
                       160);
        sb_buf_puts(b, "\n");
    }
    if (failed)
        sb_buf_puts(b, "\n");
}

int sb_evidence_ask(const sb_result_set *set, sb_details_ask *ask, sb_error *err)
{
    if (sb_note_ask(set, SB_EVIDENCE_GATE_ARCHES, ask, err) != SB_OK)
        return SB_ERR;
    ask->columns = COLUMNS;
    ask->ncolumns = sizeof COLUMNS / sizeof COLUMNS[0];
    const sb_gate_spec *spec = sb_gate_spec_for("gemm");
    for (size_t i = 0; i < set->n; i++) {
        const sb_result *r = &set->v[i];
        if ((is_spec_run(r, spec, r->sku) || (!strcmp(r->suite, SETTLE_SUITE) && r->passing)) &&
            sb_details_ask_run(ask, r->run_id, err) != SB_OK)
            return SB_ERR;
    }
    return SB_OK;
}

int sb_evidence_render(const sb_result_set *set, const sb_session_headlines *paired,
                       const sb_snapshot *snap, const sb_run_details *det,
                       const sb_sku_table *skus, sb_buf *out, sb_error *err)
{
    int rc = SB_ERR;
    sb_pick *picks = NULL;
    size_t np = 0;
    sb_geo_table geo = {0};
    json_t *d = json_object(), *cards = json_array();
    sb_buf tmp = SB_BUF_INIT;
    json_object_set_new(d, "cards", cards);
    if (sb_picks_latest(set, &picks, &np, err) != SB_OK ||
        sb_geo_compute_unpaired(set, picks, np, NULL, paired, &geo, err) != SB_OK)
        goto done;
    if (sb_note_render(set, det, skus, SB_EVIDENCE_GATE_ARCHES, &tmp, err) != SB_OK)
        goto done;
    sb_tpl_set_str(d, "note", sb_buf_str(&tmp));
    sb_tpl_set_str(d, "subject", SB_PROJECT_PROVIDER);
    sb_tpl_set_str(d, "evidence_op", SB_EVIDENCE_OP);
    json_object_set_new(d, "runs", json_integer((json_int_t)set->n));
    /* the SKUs, in arch order */
    const char *sk[16], *ar[16];
    size_t nsk = 0;
    for (size_t i = 0; i < np && nsk < 16; i++) {
        size_t k = 0;
        while (k < nsk && strcmp(sk[k], picks[i].r->sku))
            k++;
        if (k == nsk) {
            sk[nsk] = picks[i].r->sku;
            ar[nsk++] = picks[i].r->arch;
        }
    }
    sb_sort_skus(sk, ar, nsk);
    for (size_t k = 0; k < nsk; k++) {
        json_t *c = json_object();
        const sb_sku *row = skus ? sb_sku_find(skus, sk[k]) : NULL;
        sb_tpl_set_str(c, "sku", sk[k]);
        sb_tpl_set_str(c, "display", row ? row->display : sk[k]);
        sb_buf_reset(&tmp);
        gemm_section(snap, det, skus, set, picks, np, sk[k], &tmp);
        sb_tpl_set_str(c, "gemm", sb_buf_str(&tmp));
        sb_buf_reset(&tmp);
        kernels_section(snap, picks, np, paired, &geo, sk[k], &tmp);
        sb_tpl_set_str(c, "kernels", sb_buf_str(&tmp));
        sb_buf_reset(&tmp);
        memory_section(picks, np, sk[k], &tmp);
        sb_tpl_set_str(c, "memory", sb_buf_str(&tmp));
        json_array_append_new(cards, c);
    }
    rc = sb_render_home("evidence.md.tmpl", d, SB_TPL_ESCAPE_MARKDOWN, out, err);
done:
    sb_buf_free(&tmp);
    json_decref(d);
    sb_geo_free(&geo);
    free(picks);
    return rc;
}
