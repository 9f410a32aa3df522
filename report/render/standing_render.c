/* standing_render.c - the generated tables of KERNELS.md as Markdown
 * (standing_render.h). */
#include "standing_render.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "casetable.h"
#include "encode.h"
#include "evidence.h"
#include "geomean.h"
#include "geomean_render.h"
#include "json_file.h"
#include "results.h"
#include "sessions.h"
#include "stats.h"

static void card_name(const sb_standing *s, size_t k, sb_buf *b)
{
    const sb_sku *row = s->skus ? sb_sku_find(s->skus, s->card[k]) : NULL;
    sb_enc_md_text(b, row ? row->display : s->card[k], SB_TEXT_NAME_MAX);
}

/* "[op ]mode dtype `shape params`" (op NULL: without it) */
static void words_of(sb_buf *b, const char *op, const char *mode, const char *dtype, const char *shape_key,
                     const char *params_json)
{
    if (op) {
        sb_enc_md_text(b, op, SB_TEXT_NAME_MAX);
        sb_buf_puts(b, " ");
    }
    sb_enc_md_text(b, mode, SB_TEXT_NAME_MAX);
    sb_buf_puts(b, " ");
    sb_enc_md_text(b, dtype, SB_TEXT_NAME_MAX);
    sb_buf_puts(b, " ");
    sb_buf label = SB_BUF_INIT;
    sb_case_label_of(shape_key, params_json, &label);
    sb_enc_md_code_span(b, sb_buf_str(&label), SB_TEXT_NOTE_MAX);
    sb_buf_free(&label);
}

static void case_words(sb_buf *b, const sb_result *r, int with_op)
{
    words_of(b, with_op ? r->op : NULL, r->mode, r->dtype, r->shape_key, r->params_json);
}

static void pair_words(sb_buf *b, const sb_session_run *r, int with_op)
{
    words_of(b, with_op ? r->op : NULL, r->mode, r->dtype, r->shape_key, r->params_json);
}

/* " 1.22x (1.20-1.24) over 22: 20 wins, 1 loss" with digits decimals */
static void paired_figure(sb_buf *b, const sb_standing_paired *p, int digits)
{
    sb_buf_printf(b, " %.*fx (%.*f-%.*f) over %zu: ", digits, p->geo.ratio, digits, p->geo.lo, digits, p->geo.hi,
                  p->n);
    sb_verdict_counts(b, p->wins, p->losses);
}

/* "1.22x (1.20-1.24) over 22: 20 wins, 1 loss; worst 0.99x, fwd fp32
 * `...`; session 3710651c" or "-" */
static void paired_cell(sb_buf *b, const sb_standing *s, const sb_standing_paired *p, int with_op)
{
    if (!p->n) {
        sb_buf_puts(b, " - |");
        return;
    }
    const sb_session_pair *w = &s->paired->report.pairs[p->worst];
    paired_figure(b, p, 2);
    sb_buf_printf(b, "; worst %.2fx, ", w->kernel.ratio);
    pair_words(b, w->target, with_op);
    sb_buf_printf(b, "; session %.*s |", SB_SESSION_SHORT, p->session);
}

/* The sentence under every "unpaired" heading. */
static void unpaired_note(sb_buf *b)
{
    sb_buf_puts(b, "Each provider's newest result run of a case, outside the measuring sessions: the two sides "
                   "ran in different processes, possibly at different commits, on different cards of the SKU "
                   "and by different timing methods. No headline is taken from these rows; a case a session "
                   "pairs is left out of them (its paired figure is above).\n\n");
}

/* The sentence of a block whose baseline solbench runs beside the fused
 * kernels. */
static void harness_note(sb_buf *b)
{
    sb_buf_puts(b, "Method: solbench's newest run of each provider per case; `reference` is timed by solbench "
                   "as the fused kernels are, in their own runs, and no measuring session pairs the two.\n\n");
}

/* "1.22x over 22; worst 0.99x, fwd fp32 `...`" or "-" */
static void pair_cell(sb_buf *b, const sb_standing_pairs *p, int with_op)
{
    if (!p->n) {
        sb_buf_puts(b, " - |");
        return;
    }
    sb_buf_printf(b, " %.2fx over %zu; worst %.2fx, ", p->geomean, p->n, p->worst);
    case_words(b, p->worst_case, with_op);
    sb_buf_puts(b, " |");
}

#define MAX_OPS 64

/* The pairs of the against-providers block: provider over baseline. */
static const char *const against[3][2] = {
    {SB_PROJECT_PROVIDER, "liger"}, {SB_PROJECT_PROVIDER, "torch-compile"}, {"liger", "huggingface"}};


static int against_providers(sb_standing *s, sb_buf *b, sb_error *err)
{
    const sb_standing_family *f = &s->liger;
    sb_buf_printf(b, "Paired: each cell is one measuring session's (named), the geometric mean of its cases' "
                     "round-by-round kernel-time ratios with its %.0f%% interval, the verdicts and the worst "
                     "case (docs/CLAIMS.md, rule 8).\n\n",
                  100 * SB_HEADLINE_LEVEL);
    sb_buf_puts(b, "| card | op | fused over liger | fused over torch.compile | liger over huggingface |\n"
                   "| --- | --- | --- | --- | --- |\n");
    sb_buf rest = SB_BUF_INIT;
    size_t rows = 0, unpaired = 0;
    for (size_t k = 0; k < s->ncards; k++) {
        const char *ops[MAX_OPS];
        size_t nops = 0;
        for (int c = 0; c < 3; c++)
            sb_standing_paired_ops(s, s->card[k], sb_standing_liger_suites, against[c][0], ops, &nops, MAX_OPS);
        for (size_t o = 0; o < nops; o++) {
            sb_standing_filter cf = {s->card[k], ops[o], NULL, NULL, 0};
            sb_standing_paired p[3];
            for (int c = 0; c < 3; c++)
                if (sb_standing_paired_stats(s, sb_standing_liger_suites, &cf, against[c][0], against[c][1], &p[c], err) != SB_OK) {
                    sb_buf_free(&rest);
                    return SB_ERR;
                }
            if (!p[0].n && !p[1].n && !p[2].n)
                continue;
            sb_buf_puts(b, "| ");
            card_name(s, k, b);
            sb_buf_puts(b, " | ");
            sb_enc_md_text(b, ops[o], SB_TEXT_NAME_MAX);
            sb_buf_puts(b, " |");
            for (int c = 0; c < 3; c++)
                paired_cell(b, s, &p[c], 0);
            sb_buf_puts(b, "\n");
            rows++;
        }
        nops = sb_standing_ops(f->picks, f->np, s->card[k], "liger", ops, MAX_OPS);
        for (size_t o = 0; o < nops; o++) {
            sb_standing_filter cf = {s->card[k], ops[o], NULL, NULL, 0};
            sb_standing_pairs p[3];
            for (int c = 0; c < 3; c++)
                sb_standing_pair_stats(s, f->picks, f->np, &cf, against[c][0], against[c][1], 1, 1, &p[c]);
            if (!p[0].n && !p[1].n && !p[2].n)
                continue;
            sb_buf_puts(&rest, "| ");
            card_name(s, k, &rest);
            sb_buf_puts(&rest, " | ");
            sb_enc_md_text(&rest, ops[o], SB_TEXT_NAME_MAX);
            sb_buf_puts(&rest, " |");
            for (int c = 0; c < 3; c++)
                pair_cell(&rest, &p[c], 0);
            sb_buf_puts(&rest, "\n");
            unpaired++;
        }
    }
    if (!rows)
        sb_buf_puts(b, "\nNo measuring session pairs these providers in the Liger presets.\n");
    sb_buf_puts(b, "\n" SB_UNPAIRED_LABEL "\n\n");
    unpaired_note(b);
    if (unpaired) {
        sb_buf_puts(b, "Kernel time, geomean over the cases where both sides passed and recorded it, and the "
                       "worst case.\n\n"
                       "| card | op | fused over liger | fused over torch.compile | liger over huggingface |\n"
                       "| --- | --- | --- | --- | --- |\n");
        sb_buf_add(b, sb_buf_str(&rest), rest.len);
    } else {
        sb_buf_puts(b, "No case of the Liger presets outside the sessions has kernel times of both sides of a "
                       "pair.\n");
    }
    sb_buf_free(&rest);
    return SB_OK;
}

static void over_reference(sb_standing *s, sb_buf *b)
{
    sb_geo_diagnostic_note(b);
    harness_note(b);
    sb_buf_puts(b, "| card | op | cases | geomean | lowest |\n| --- | --- | ---: | ---: | --- |\n");
    sb_buf slow = SB_BUF_INIT;
    size_t rows = 0;
    for (size_t k = 0; k < s->ncards; k++) {
        const char *ops[MAX_OPS];
        size_t nops = sb_standing_ops(s->picks, s->np, s->card[k], SB_PROJECT_PROVIDER, ops, MAX_OPS);
        for (size_t o = 0; o < nops; o++) {
            sb_standing_filter cf = {s->card[k], ops[o], NULL, NULL, 0};
            sb_standing_pairs p;
            sb_standing_pair_stats(s, s->picks, s->np, &cf, SB_PROJECT_PROVIDER, SB_DIAGNOSTIC_PROVIDER, 0, 0, &p);
            if (!p.n)
                continue;
            sb_buf_puts(b, "| ");
            card_name(s, k, b);
            sb_buf_puts(b, " | ");
            sb_enc_md_text(b, ops[o], SB_TEXT_NAME_MAX);
            sb_buf_printf(b, " | %zu | %.2fx | %.2fx, ", p.n, p.geomean, p.worst);
            case_words(b, p.worst_case, 0);
            sb_buf_puts(b, " |\n");
            rows++;
            if (!p.slower)
                continue;
            /* every case of the op slower than the reference, listed */
            for (size_t i = 0; i < s->np; i++) {
                const sb_result *r = s->picks[i].r;
                if (strcmp(r->provider, SB_PROJECT_PROVIDER) || !r->passing || !sb_standing_matches(r, &cf))
                    continue;
                const sb_pick *q = sb_pick_find(s->picks, s->np, r->case_key, SB_DIAGNOSTIC_PROVIDER, r->sku);
                double x = q && q->r->passing ? sb_speedup(r, q->r, SB_TIME_KERNEL) : NAN;
                if (!(x < 1))
                    continue;
                sb_buf_puts(&slow, "- ");
                card_name(s, k, &slow);
                sb_buf_puts(&slow, ", ");
                case_words(&slow, r, 1);
                sb_buf_printf(&slow, ": %.2fx\n", x);
            }
        }
    }
    if (!rows)
        sb_buf_puts(b, "\nNo case has passing runs of both.\n");
    else if (slow.len) {
        sb_buf_puts(b, "\nCases slower than the reference:\n\n");
        sb_buf_add(b, sb_buf_str(&slow), slow.len);
    } else {
        sb_buf_puts(b, "\nNo case is slower than the reference.\n");
    }
    sb_buf_free(&slow);
}

static void pct_cell(sb_buf *b, const sb_standing_copies *c, int with_op)
{
    if (!c->n) {
        sb_buf_puts(b, " - | - |");
        return;
    }
    sb_buf_printf(b, " %zu of %zu | %.1f%%, ", c->at, c->n, 100 * c->lowest);
    case_words(b, c->lowest_case, with_op);
    sb_buf_puts(b, " |");
}

static void torch_cells(sb_buf *b, const sb_standing_pairs *p, int with_op)
{
    if (!p->n) {
        sb_buf_puts(b, " - | - |");
        return;
    }
    sb_buf_printf(b, " %zu of %zu | %.3fx, ", p->n - p->slower, p->n, p->worst);
    case_words(b, p->worst_case, with_op);
    sb_buf_puts(b, " |");
}

/* "1.021x (1.018-1.024) over 26: 20 wins, 2 losses; session 8e1559f5 |
 * 0.981x, fwd fp32 `...` |" or "- | - |" */
static void paired_torch_cells(sb_buf *b, const sb_standing *s, const sb_standing_paired *p, int with_op)
{
    if (!p->n) {
        sb_buf_puts(b, " - | - |");
        return;
    }
    const sb_session_pair *w = &s->paired->report.pairs[p->worst];
    paired_figure(b, p, 3);
    sb_buf_printf(b, "; session %.*s | %.3fx, ", SB_SESSION_SHORT, p->session, w->kernel.ratio);
    pair_words(b, w->target, with_op);
    sb_buf_puts(b, " |");
}

/* One row of the unpaired table: fused against torch.compile over the
 * cases of cf that no session pairs; 0 when there is none. */
static int unpaired_torch_row(sb_standing *s, const sb_standing_family *f, size_t k, const char *label, const sb_standing_filter *cf,
                              int with_op, sb_buf *out)
{
    sb_standing_pairs p;
    sb_standing_pair_stats(s, f->picks, f->np, cf, SB_PROJECT_PROVIDER, "torch-compile", 0, 1, &p);
    if (!p.n)
        return 0;
    sb_buf_puts(out, "| ");
    card_name(s, k, out);
    sb_buf_puts(out, " | ");
    sb_enc_md_text(out, label, SB_TEXT_NAME_MAX);
    sb_buf_puts(out, " |");
    torch_cells(out, &p, with_op);
    sb_buf_puts(out, "\n");
    return 1;
}

static int memory_bound(sb_standing *s, sb_buf *b, sb_error *err)
{
    const sb_standing_family *f = &s->memory;
    sb_buf_printf(b, "| card | op | at >= %.0f%% of the copy (rows of %d or more) | lowest %% of the copy | "
                     "fused over torch.compile, paired | lowest, paired |\n"
                     "| --- | --- | ---: | --- | --- | --- |\n",
                  100 * SB_STANDING_MEMORY_COPY, SB_STANDING_MEMORY_ROW);
    sb_buf rms = SB_BUF_INIT, rest = SB_BUF_INIT;
    size_t unpaired = 0;
    int rc = SB_OK;
    for (size_t k = 0; k < s->ncards && rc == SB_OK; k++) {
        const char *ops[MAX_OPS];
        size_t nops = sb_standing_ops(f->picks, f->np, s->card[k], SB_PROJECT_PROVIDER, ops, MAX_OPS);
        sb_standing_paired_ops(s, s->card[k], sb_standing_memory_suites, SB_PROJECT_PROVIDER, ops, &nops, MAX_OPS);
        if (!nops)
            continue;
        for (size_t o = 0; o <= nops && rc == SB_OK; o++) {
            /* o == nops: every op of the card */
            sb_standing_filter cf = {s->card[k], o < nops ? ops[o] : NULL, NULL, NULL, SB_STANDING_MEMORY_ROW};
            sb_standing_filter all = cf;
            all.min_row = 0;
            sb_standing_copies c;
            sb_standing_paired p;
            sb_standing_copy_stats(f->picks, f->np, &cf, s->copy[k], SB_STANDING_MEMORY_COPY, &c);
            rc = sb_standing_paired_stats(s, sb_standing_memory_suites, &all, SB_PROJECT_PROVIDER, "torch-compile", &p, err);
            sb_buf_puts(b, "| ");
            card_name(s, k, b);
            sb_buf_puts(b, " | ");
            if (o < nops)
                sb_enc_md_text(b, ops[o], SB_TEXT_NAME_MAX);
            else
                sb_buf_puts(b, "**all**");
            sb_buf_puts(b, " |");
            pct_cell(b, &c, o == nops);
            paired_torch_cells(b, s, &p, o == nops);
            sb_buf_puts(b, "\n");
            unpaired += (size_t)unpaired_torch_row(s, f, k, o < nops ? ops[o] : "all", &all, o == nops, &rest);
        }
        sb_standing_filter rf = {s->card[k], "rmsnorm", "fwd", "bf16", 0};
        sb_standing_copies c;
        sb_standing_paired p;
        sb_standing_copy_stats(f->picks, f->np, &rf, s->copy[k], SB_STANDING_RMSNORM_COPY, &c);
        if (rc == SB_OK)
            rc = sb_standing_paired_stats(s, sb_standing_memory_suites, &rf, SB_PROJECT_PROVIDER, "torch-compile", &p, err);
        if (rc != SB_OK)
            break;
        sb_buf_puts(&rms, "| ");
        card_name(s, k, &rms);
        if (isnan(s->copy[k]))
            sb_buf_puts(&rms, " | no calibration |");
        else
            sb_buf_printf(&rms, " | %.0f GB/s |", s->copy[k]);
        pct_cell(&rms, &c, 0);
        paired_torch_cells(&rms, s, &p, 0);
        sb_buf_puts(&rms, "\n");
        unpaired += (size_t)unpaired_torch_row(s, f, k, "rmsnorm fwd bf16", &rf, 0, &rest);
    }
    if (rc == SB_OK) {
        sb_buf_printf(b, "\nThe RMSNorm forward in bf16, against its target of %.0f%% of the copy:\n\n"
                         "| card | copy ceiling | at >= %.0f%% of the copy | lowest %% of the copy | "
                         "fused over torch.compile, paired | lowest, paired |\n"
                         "| --- | ---: | ---: | --- | --- | --- |\n",
                      100 * SB_STANDING_RMSNORM_COPY, 100 * SB_STANDING_RMSNORM_COPY);
        sb_buf_add(b, sb_buf_str(&rms), rms.len);
        sb_buf_puts(b, "\n" SB_UNPAIRED_LABEL "\n\n");
        unpaired_note(b);
        if (unpaired) {
            sb_buf_puts(b, "Each case in kernel time where both recorded it, else in call time.\n\n"
                           "| card | op | at least as fast as torch.compile | lowest x torch.compile |\n"
                           "| --- | --- | ---: | --- |\n");
            sb_buf_add(b, sb_buf_str(&rest), rest.len);
        } else {
            sb_buf_puts(b, "No case of the memory-bound presets outside the sessions has passing runs of both.\n");
        }
    }
    sb_buf_free(&rms);
    sb_buf_free(&rest);
    return rc;
}

static int flce_cmp(const void *a, const void *b)
{
    const sb_result *x = *(const sb_result *const *)a, *y = *(const sb_result *const *)b;
    int c = strcmp(x->mode, y->mode);
    if (c)
        return -c; /* fwd (the loss alone) first */
    long long bx = sb_standing_shape_dim(x, "BT"), by = sb_standing_shape_dim(y, "BT");
    if (bx != by)
        return bx < by ? -1 : 1;
    return strcmp(x->params_json ? x->params_json : "", y->params_json ? y->params_json : "");
}

static void flce_memory(sb_standing *s, sb_buf *b)
{
    const sb_standing_family *f = &s->liger;
    const sb_result **rows = malloc((f->np + 1) * sizeof *rows);
    if (!rows) {
        b->failed = 1;
        return;
    }
    harness_note(b);
    sb_buf_printf(b, "| card | case | peak | reference's peak | share (target <= %.0f%%) | inputs and outputs' "
                     "share | speed over the reference |\n"
                     "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
                  100 * SB_EVIDENCE_FLCE_MEMORY);
    size_t total = 0;
    for (size_t k = 0; k < s->ncards; k++) {
        size_t n = 0;
        for (size_t i = 0; i < f->np; i++) {
            const sb_result *r = f->picks[i].r;
            if (!strcmp(r->sku, s->card[k]) && !strcmp(r->op, "flce") && !strcmp(r->provider, SB_PROJECT_PROVIDER) &&
                r->passing && r->peak_device_bytes > 0)
                rows[n++] = r;
        }
        if (n)
            qsort(rows, n, sizeof *rows, flce_cmp);
        for (size_t i = 0; i < n; i++) {
            const sb_result *r = rows[i];
            const sb_pick *q = sb_pick_find(f->picks, f->np, r->case_key, SB_DIAGNOSTIC_PROVIDER, r->sku);
            if (!q || !q->r->passing || q->r->peak_device_bytes <= 0)
                continue;
            double ref = (double)q->r->peak_device_bytes;
            sb_buf_puts(b, "| ");
            card_name(s, k, b);
            sb_buf_puts(b, " | ");
            case_words(b, r, 0);
            sb_buf_printf(b, " | %.2f GB | %.2f GB | %.1f%% | ", (double)r->peak_device_bytes / 1e9, ref / 1e9,
                          100.0 * (double)r->peak_device_bytes / ref);
            if (r->bytes > 0)
                sb_buf_printf(b, "%.1f%%", 100.0 * r->bytes / ref);
            else
                sb_buf_puts(b, "-");
            double x = sb_speedup(r, q->r, SB_TIME_KERNEL);
            if (x > 0)
                sb_buf_printf(b, " | %.2fx |\n", x);
            else
                sb_buf_puts(b, " | - |\n");
            total++;
        }
    }
    if (!total)
        sb_buf_puts(b, "\nNo FLCE case has the peak memory of both the fused and the reference provider.\n");
    free(rows);
}

int sb_standing_render(sb_standing *s, const char *name, sb_buf *out, sb_error *err)
{
    if (strcmp(name, "against-providers") == 0) {
        if (against_providers(s, out, err) != SB_OK)
            return SB_ERR;
    } else if (strcmp(name, "over-reference") == 0)
        over_reference(s, out);
    else if (strcmp(name, "memory-bound") == 0) {
        if (memory_bound(s, out, err) != SB_OK)
            return SB_ERR;
    }
    else if (strcmp(name, "flce-memory") == 0)
        flce_memory(s, out);
    else
        return sb_error_set(err, NULL, NULL,
                            "unknown block '%s' (against-providers, over-reference, memory-bound, flce-memory)",
                            name);
    if (sb_buf_failed(out))
        return sb_error_set(err, NULL, NULL, "out of memory");
    return SB_OK;
}

static int render_fn(void *ctx, const char *name, sb_buf *out, sb_error *err)
{
    return sb_standing_render(ctx, name, out, err);
}

int sb_standing_rewrite_doc(sb_standing *s, const char *path, sb_buf *out, size_t *blocks, sb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (sb_file_read_all(path, &text, &len, err) != SB_OK)
        return SB_ERR;
    int rc = sb_standing_rewrite_text(text, len, path, render_fn, s, out, blocks, err);
    free(text);
    return rc;
}

int sb_standing_render_all(sb_standing *s, sb_buf *out, sb_error *err)
{
    for (size_t i = 0; sb_standing_blocks[i]; i++) {
        sb_buf_printf(out, "%s" SB_STANDING_BEGIN "%s" SB_STANDING_BEGIN_TAIL "\n\n", i ? "\n" : "",
                      sb_standing_blocks[i]);
        if (sb_standing_render(s, sb_standing_blocks[i], out, err) != SB_OK)
            return SB_ERR;
        sb_buf_puts(out, "\n" SB_STANDING_END "\n");
    }
    return SB_OK;
}
