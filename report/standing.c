/* standing.c - the generated tables of KERNELS.md (standing.h). */
#include "standing.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "casetable.h"
#include "encode.h"
#include "evidence.h"
#include "geomean.h"
#include "json_file.h"
#include "results.h"
#include "sessions.h"
#include "stats.h"

const char *const sb_standing_blocks[] = {"against-providers", "over-reference", "memory-bound", "flce-memory",
                                          NULL};

/* The presets a block reads: a case's key names no suite, so the quick
 * preset's runs of a case and the full preset's are one case, and the
 * newest run of it decides. */
static const char *const liger_suites[] = {"liger-perkernel", "liger-perkernel-quick", NULL};
static const char *const memory_suites[] = {"memory-bound", "memory-bound-quick", NULL};

#define MAX_CARDS 16

/* The newest run of each case among the runs of some suites. */
typedef struct family {
    sb_result_set runs; /* shallow copies of the whole set's runs: free runs.v only */
    sb_pick *picks;
    size_t np;
} family;

struct sb_standing {
    const sb_sku_table *skus;
    const sb_result_set *set; /* every result run, with its plausibility marks */
    sb_pick *picks; /* every suite */
    size_t np;
    family liger, memory;
    const char *card[MAX_CARDS], *card_arch[MAX_CARDS];
    double copy[MAX_CARDS];     /* bw.copy of the newest calibration, GB/s; NAN: none */
    size_t ncards;
    double *ratios; /* scratch, one a run */
    const sb_session_headlines *paired; /* every session's checked headlines (docs/CLAIMS.md, rule 8) */
    size_t *idx;    /* scratch, one a session pair */
};

static int in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

static int family_make(const sb_result_set *set, const char *const *suites, family *f, sb_error *err)
{
    memset(f, 0, sizeof *f);
    f->runs.v = malloc((set->n + 1) * sizeof *f->runs.v);
    if (!f->runs.v)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < set->n; i++)
        if (in_list(suites, set->v[i].suite))
            f->runs.v[f->runs.n++] = set->v[i];
    return sb_picks_latest(&f->runs, &f->picks, &f->np, err);
}

static void family_free(family *f)
{
    free(f->runs.v);
    free(f->picks);
    memset(f, 0, sizeof *f);
}

void sb_standing_close(sb_standing *s)
{
    if (!s)
        return;
    family_free(&s->liger);
    family_free(&s->memory);
    free(s->picks);
    free(s->ratios);
    free(s->idx);
    free(s);
}

int sb_standing_open(const sb_result_set *set, const sb_session_headlines *paired,
                     const sb_snapshot *snap, const sb_sku_table *skus, sb_standing **out,
                     sb_error *err)
{
    *out = NULL;
    sb_standing *s = calloc(1, sizeof *s);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of memory");
    s->skus = skus;
    s->set = set;
    s->paired = paired;
    if (sb_picks_latest(s->set, &s->picks, &s->np, err) != SB_OK ||
        family_make(s->set, liger_suites, &s->liger, err) != SB_OK ||
        family_make(s->set, memory_suites, &s->memory, err) != SB_OK)
        goto fail;
    s->ratios = malloc((s->set->n + 1) * sizeof *s->ratios);
    s->idx = malloc((s->paired->report.npairs + 1) * sizeof *s->idx);
    if (!s->ratios || !s->idx) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < s->np && s->ncards < MAX_CARDS; i++) {
        const sb_result *r = s->picks[i].r;
        size_t k = 0;
        while (k < s->ncards && strcmp(s->card[k], r->sku))
            k++;
        if (k == s->ncards) {
            s->card[k] = r->sku;
            s->card_arch[k] = r->arch;
            s->ncards++;
        }
    }
    for (size_t i = 0; i < s->paired->n && s->ncards < MAX_CARDS; i++) {
        size_t k = 0;
        while (k < s->ncards && strcmp(s->card[k], s->paired->v[i].sku))
            k++;
        if (k == s->ncards) {
            s->card[k] = s->paired->v[i].sku;
            s->card_arch[k] = s->paired->v[i].arch;
            s->ncards++;
        }
    }
    sb_sort_skus(s->card, s->card_arch, s->ncards);
    for (size_t k = 0; k < s->ncards; k++) {
        size_t nc = 0;
        long long run = -1;
        const sb_ceiling *c = sb_snapshot_ceilings(snap, s->card[k], &nc, &run);
        s->copy[k] = NAN;
        for (size_t i = 0; i < nc; i++)
            if (strcmp(c[i].name, "bw.copy") == 0)
                s->copy[k] = c[i].value;
    }
    *out = s;
    return SB_OK;
fail:
    sb_standing_close(s);
    return SB_ERR;
}

/* ---- figures ---- */

/* Which cases of one card a figure reads; NULL: any. */
typedef struct case_filter {
    const char *sku, *op, *mode, *dtype;
    long long min_row; /* the row (N, or V for cross entropy) at least this; 0: any */
} case_filter;

/* A shape's integer dimension, -1 when absent. */
static long long shape_dim(const sb_result *r, const char *name)
{
    json_t *shape = r->shape_json ? json_loads(r->shape_json, 0, NULL) : NULL;
    json_t *v = json_object_get(shape, name);
    long long n = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
    json_decref(shape);
    return n;
}

/* The row length of a case: N, else V; -1 when the shape has neither. */
static long long row_length(const sb_result *r)
{
    long long n = shape_dim(r, "N");
    return n >= 0 ? n : shape_dim(r, "V");
}

static int matches(const sb_result *r, const case_filter *f)
{
    return !strcmp(r->sku, f->sku) && (!f->op || !strcmp(r->op, f->op)) &&
           (!f->mode || !strcmp(r->mode, f->mode)) && (!f->dtype || !strcmp(r->dtype, f->dtype)) &&
           (!f->min_row || row_length(r) >= f->min_row);
}

/* provider against baseline over the cases both passed. */
typedef struct pair_stats {
    size_t n;                 /* cases compared */
    size_t slower;            /* of them, where the provider took longer */
    double geomean, worst;    /* baseline time / provider time; NAN when n == 0 */
    const sb_result *worst_case;
} pair_stats;

/* kernel_only: only cases where both sides recorded kernel time, compared
 * in it (a Python provider's call time holds its launch cost); otherwise
 * each case in kernel time where both recorded it, else in call time.
 * unpaired: only cases no measuring session pairs (their figure is the
 * paired one, paired_stats_of). */
static void pair_stats_of(sb_standing *s, const sb_pick *picks, size_t np, const case_filter *cf,
                          const char *provider, const char *baseline, int kernel_only, int unpaired,
                          pair_stats *out)
{
    memset(out, 0, sizeof *out);
    out->geomean = out->worst = NAN;
    for (size_t i = 0; i < np; i++) {
        const sb_result *p = picks[i].r;
        if (strcmp(p->provider, provider) || !p->passing || p->implausible || !matches(p, cf))
            continue;
        const sb_pick *b = sb_pick_find(picks, np, p->case_key, baseline, p->sku);
        if (!b || !b->r->passing || b->r->implausible || (kernel_only && !sb_both_kernel(p, b->r)) ||
            (unpaired && sb_session_headlines_cover(s->paired, p->case_key, p->sku, provider, baseline)))
            continue;
        double x = sb_speedup(p, b->r, SB_TIME_KERNEL);
        if (!(x > 0))
            continue;
        s->ratios[out->n++] = x;
        out->slower += x < 1;
        if (!out->worst_case || x < out->worst) {
            out->worst = x;
            out->worst_case = p;
        }
    }
    if (out->n)
        out->geomean = sb_geomean(s->ratios, out->n);
}

/* The project's passing cases against the card's copy ceiling: model
 * bytes over call time, as out/EVIDENCE.md's "% copy". */
typedef struct copy_stats {
    size_t n, at;             /* cases with bytes and a time; of them at or above the threshold */
    double lowest;            /* NAN when n == 0 */
    const sb_result *lowest_case;
} copy_stats;

static void copy_stats_of(const sb_pick *picks, size_t np, const case_filter *cf, double copy, double threshold,
                          copy_stats *out)
{
    memset(out, 0, sizeof *out);
    out->lowest = NAN;
    if (!(copy > 0))
        return;
    for (size_t i = 0; i < np; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->provider, SB_PROJECT_PROVIDER) || !r->passing || r->implausible || !(r->bytes > 0) ||
            !(r->median_ms > 0) || !matches(r, cf))
            continue;
        double q = r->bytes / (r->median_ms * 1e6) / copy;
        /* a subnormal ceiling (the schema takes any positive number)
         * makes the share overflow: no figure, rather than inf% */
        if (!isfinite(q))
            continue;
        out->n++;
        out->at += q >= threshold;
        if (!out->lowest_case || q < out->lowest) {
            out->lowest = q;
            out->lowest_case = r;
        }
    }
}

/* provider against baseline from the measuring sessions: one session's
 * pairs (the session that pairs the most of the filter's cases, the newest
 * of those on a tie), as the headlines give them. */
typedef struct paired_stats {
    size_t n;
    sb_paired geo;
    size_t worst; /* index into the headlines' pairs */
    size_t wins, losses;
    const char *session;
} paired_stats;

static int pair_in(const sb_session_pair *p, const char *const *suites, const case_filter *cf)
{
    const sb_session_run *t = p->target;
    return in_list(suites, t->suite) && !strcmp(t->sku, cf->sku) && (!cf->op || !strcmp(t->op, cf->op)) &&
           (!cf->mode || !strcmp(t->mode, cf->mode)) && (!cf->dtype || !strcmp(t->dtype, cf->dtype));
}

/* The pairs of session sid among the headlines of provider over baseline
 * that pass the filter, into idx; their count. */
static size_t session_pairs(const sb_session_headlines *h, const char *sid, const char *const *suites,
                            const case_filter *cf, const char *provider, const char *baseline, size_t *idx)
{
    size_t n = 0;
    for (size_t k = 0; k < h->n; k++) {
        const sb_session_headline *x = &h->v[k];
        if (strcmp(x->session_id, sid) || strcmp(x->sku, cf->sku) || strcmp(x->provider, provider) ||
            strcmp(x->baseline, baseline))
            continue;
        for (size_t c = 0; c < x->count; c++)
            if (pair_in(&h->report.pairs[x->pair[c]], suites, cf)) {
                if (idx)
                    idx[n] = x->pair[c];
                n++;
            }
    }
    return n;
}

static int paired_stats_of(sb_standing *s, const char *const *suites, const case_filter *cf,
                           const char *provider, const char *baseline, paired_stats *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    const sb_session_headlines *h = s->paired;
    size_t best_first = 0;
    for (size_t k = 0; k < h->n; k++) {
        const sb_session_headline *x = &h->v[k];
        if (strcmp(x->sku, cf->sku) || strcmp(x->provider, provider) || strcmp(x->baseline, baseline))
            continue;
        size_t n = session_pairs(h, x->session_id, suites, cf, provider, baseline, NULL);
        /* the pairs come in session start order: a larger index is a newer session */
        if (n && (n > out->n || (n == out->n && x->pair[0] > best_first))) {
            out->n = n;
            out->session = x->session_id;
            best_first = x->pair[0];
        }
    }
    if (!out->n)
        return SB_OK;
    session_pairs(h, out->session, suites, cf, provider, baseline, s->idx);
    return sb_session_summarize(h->report.pairs, s->idx, out->n, SB_HEADLINE_LEVEL, &out->geo, &out->worst,
                                &out->wins, &out->losses, err);
}

/* ---- rendering ---- */

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
static void paired_figure(sb_buf *b, const paired_stats *p, int digits)
{
    sb_buf_printf(b, " %.*fx (%.*f-%.*f) over %zu: ", digits, p->geo.ratio, digits, p->geo.lo, digits, p->geo.hi,
                  p->n);
    sb_verdict_counts(b, p->wins, p->losses);
}

/* "1.22x (1.20-1.24) over 22: 20 wins, 1 loss; worst 0.99x, fwd fp32
 * `...`; session 3710651c" or "-" */
static void paired_cell(sb_buf *b, const sb_standing *s, const paired_stats *p, int with_op)
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
static void pair_cell(sb_buf *b, const pair_stats *p, int with_op)
{
    if (!p->n) {
        sb_buf_puts(b, " - |");
        return;
    }
    sb_buf_printf(b, " %.2fx over %zu; worst %.2fx, ", p->geomean, p->n, p->worst);
    case_words(b, p->worst_case, with_op);
    sb_buf_puts(b, " |");
}

/* The distinct ops of a card's passing runs of provider, in order. */
static size_t ops_of(const sb_pick *picks, size_t np, const char *sku, const char *provider, const char **ops,
                     size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < np; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->sku, sku) || strcmp(r->provider, provider) || !r->passing)
            continue;
        size_t k = 0;
        while (k < n && strcmp(ops[k], r->op))
            k++;
        if (k == n && n < cap)
            ops[n++] = r->op;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(ops[j - 1], ops[j]) > 0; j--) {
            const char *t = ops[j];
            ops[j] = ops[j - 1];
            ops[j - 1] = t;
        }
    return n;
}

#define MAX_OPS 64

/* The pairs of the against-providers block: provider over baseline. */
static const char *const against[3][2] = {
    {SB_PROJECT_PROVIDER, "liger"}, {SB_PROJECT_PROVIDER, "torch-compile"}, {"liger", "huggingface"}};

/* The ops of a card's headlines of provider, from sessions of suites,
 * added to ops[0..*n) (sorted). */
static void paired_ops(const sb_standing *s, const char *sku, const char *const *suites, const char *provider,
                       const char **ops, size_t *n, size_t cap)
{
    for (size_t i = 0; i < s->paired->n; i++) {
        const sb_session_headline *x = &s->paired->v[i];
        if (strcmp(x->sku, sku) || strcmp(x->provider, provider) ||
            !in_list(suites, s->paired->report.pairs[x->pair[0]].target->suite))
            continue;
        size_t k = 0;
        while (k < *n && strcmp(ops[k], x->op))
            k++;
        if (k == *n && *n < cap)
            ops[(*n)++] = x->op;
    }
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && strcmp(ops[j - 1], ops[j]) > 0; j--) {
            const char *t = ops[j];
            ops[j] = ops[j - 1];
            ops[j - 1] = t;
        }
}

static int against_providers(sb_standing *s, sb_buf *b, sb_error *err)
{
    const family *f = &s->liger;
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
            paired_ops(s, s->card[k], liger_suites, against[c][0], ops, &nops, MAX_OPS);
        for (size_t o = 0; o < nops; o++) {
            case_filter cf = {s->card[k], ops[o], NULL, NULL, 0};
            paired_stats p[3];
            for (int c = 0; c < 3; c++)
                if (paired_stats_of(s, liger_suites, &cf, against[c][0], against[c][1], &p[c], err) != SB_OK) {
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
        nops = ops_of(f->picks, f->np, s->card[k], "liger", ops, MAX_OPS);
        for (size_t o = 0; o < nops; o++) {
            case_filter cf = {s->card[k], ops[o], NULL, NULL, 0};
            pair_stats p[3];
            for (int c = 0; c < 3; c++)
                pair_stats_of(s, f->picks, f->np, &cf, against[c][0], against[c][1], 1, 1, &p[c]);
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
        size_t nops = ops_of(s->picks, s->np, s->card[k], SB_PROJECT_PROVIDER, ops, MAX_OPS);
        for (size_t o = 0; o < nops; o++) {
            case_filter cf = {s->card[k], ops[o], NULL, NULL, 0};
            pair_stats p;
            pair_stats_of(s, s->picks, s->np, &cf, SB_PROJECT_PROVIDER, SB_DIAGNOSTIC_PROVIDER, 0, 0, &p);
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
                if (strcmp(r->provider, SB_PROJECT_PROVIDER) || !r->passing || !matches(r, &cf))
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

static void pct_cell(sb_buf *b, const copy_stats *c, int with_op)
{
    if (!c->n) {
        sb_buf_puts(b, " - | - |");
        return;
    }
    sb_buf_printf(b, " %zu of %zu | %.1f%%, ", c->at, c->n, 100 * c->lowest);
    case_words(b, c->lowest_case, with_op);
    sb_buf_puts(b, " |");
}

static void torch_cells(sb_buf *b, const pair_stats *p, int with_op)
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
static void paired_torch_cells(sb_buf *b, const sb_standing *s, const paired_stats *p, int with_op)
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
static int unpaired_torch_row(sb_standing *s, const family *f, size_t k, const char *label, const case_filter *cf,
                              int with_op, sb_buf *out)
{
    pair_stats p;
    pair_stats_of(s, f->picks, f->np, cf, SB_PROJECT_PROVIDER, "torch-compile", 0, 1, &p);
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
    const family *f = &s->memory;
    sb_buf_printf(b, "| card | op | at >= %.0f%% of the copy (rows of %d or more) | lowest %% of the copy | "
                     "fused over torch.compile, paired | lowest, paired |\n"
                     "| --- | --- | ---: | --- | --- | --- |\n",
                  100 * SB_STANDING_MEMORY_COPY, SB_STANDING_MEMORY_ROW);
    sb_buf rms = SB_BUF_INIT, rest = SB_BUF_INIT;
    size_t unpaired = 0;
    int rc = SB_OK;
    for (size_t k = 0; k < s->ncards && rc == SB_OK; k++) {
        const char *ops[MAX_OPS];
        size_t nops = ops_of(f->picks, f->np, s->card[k], SB_PROJECT_PROVIDER, ops, MAX_OPS);
        paired_ops(s, s->card[k], memory_suites, SB_PROJECT_PROVIDER, ops, &nops, MAX_OPS);
        if (!nops)
            continue;
        for (size_t o = 0; o <= nops && rc == SB_OK; o++) {
            /* o == nops: every op of the card */
            case_filter cf = {s->card[k], o < nops ? ops[o] : NULL, NULL, NULL, SB_STANDING_MEMORY_ROW};
            case_filter all = cf;
            all.min_row = 0;
            copy_stats c;
            paired_stats p;
            copy_stats_of(f->picks, f->np, &cf, s->copy[k], SB_STANDING_MEMORY_COPY, &c);
            rc = paired_stats_of(s, memory_suites, &all, SB_PROJECT_PROVIDER, "torch-compile", &p, err);
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
        case_filter rf = {s->card[k], "rmsnorm", "fwd", "bf16", 0};
        copy_stats c;
        paired_stats p;
        copy_stats_of(f->picks, f->np, &rf, s->copy[k], SB_STANDING_RMSNORM_COPY, &c);
        if (rc == SB_OK)
            rc = paired_stats_of(s, memory_suites, &rf, SB_PROJECT_PROVIDER, "torch-compile", &p, err);
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
    long long bx = shape_dim(x, "BT"), by = shape_dim(y, "BT");
    if (bx != by)
        return bx < by ? -1 : 1;
    return strcmp(x->params_json ? x->params_json : "", y->params_json ? y->params_json : "");
}

static void flce_memory(sb_standing *s, sb_buf *b)
{
    const family *f = &s->liger;
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

/* ---- the rewrite ---- */

/* The line [p, e) without a trailing '\r' and spaces. */
static size_t trimmed(const char *p, size_t n)
{
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    return n;
}

static int is_line(const char *p, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* The block name of a start line into name; 0 when the line is not one. */
static int start_name(const char *p, size_t n, char *name, size_t size)
{
    size_t hb = strlen(SB_STANDING_BEGIN), ht = strlen(SB_STANDING_BEGIN_TAIL);
    if (n <= hb + ht || memcmp(p, SB_STANDING_BEGIN, hb) || memcmp(p + n - ht, SB_STANDING_BEGIN_TAIL, ht))
        return 0;
    size_t len = n - hb - ht;
    if (len >= size)
        len = size - 1;
    memcpy(name, p + hb, len);
    name[len] = '\0';
    return 1;
}

int sb_standing_rewrite_text(const char *text, size_t len, const char *path, sb_standing_block_fn fn,
                             void *ctx, sb_buf *out, size_t *blocks, sb_error *err)
{
    size_t line = 0, open_line = 0, nblocks = 0;
    int open = 0;
    char name[128], where[64];
    for (size_t pos = 0; pos < len;) {
        const char *p = text + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) + 1 : len - pos;
        size_t t = trimmed(p, nl ? n - 1 : n);
        pos += n;
        line++;
        snprintf(where, sizeof where, "line %zu", line);
        if (start_name(p, t, name, sizeof name)) {
            if (open)
                return sb_error_set(err, path, where, "a block starts inside the block opened on line %zu "
                                                      "(no '" SB_STANDING_END "' before it)", open_line);
            sb_buf_add(out, p, n);
            if (!nl)
                sb_buf_putc(out, '\n');
            sb_buf block = SB_BUF_INIT;
            if (fn(ctx, name, &block, err) != SB_OK) {
                char msg[sizeof err->msg];
                snprintf(msg, sizeof msg, "%s", err->msg);
                sb_buf_free(&block);
                return sb_error_set(err, path, where, "%s", msg);
            }
            sb_buf_putc(out, '\n');
            sb_buf_add(out, sb_buf_str(&block), block.len);
            if (block.len && block.data[block.len - 1] != '\n')
                sb_buf_putc(out, '\n');
            sb_buf_putc(out, '\n');
            sb_buf_free(&block);
            open = 1;
            open_line = line;
            nblocks++;
            continue;
        }
        if (is_line(p, t, SB_STANDING_END)) {
            if (!open)
                return sb_error_set(err, path, where, "'" SB_STANDING_END "' with no block open");
            open = 0;
        }
        if (!open || is_line(p, t, SB_STANDING_END))
            sb_buf_add(out, p, n);
    }
    if (open) {
        snprintf(where, sizeof where, "line %zu", open_line);
        return sb_error_set(err, path, where, "the block opened here has no '" SB_STANDING_END "'");
    }
    if (!nblocks)
        return sb_error_set(err, path, NULL, "no block to rewrite (a line '" SB_STANDING_BEGIN "NAME"
                                             SB_STANDING_BEGIN_TAIL "' starts one)");
    if (sb_buf_failed(out))
        return sb_error_set(err, path, NULL, "out of memory");
    if (blocks)
        *blocks = nblocks;
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
