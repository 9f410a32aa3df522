/* standing.c - the generated tables of KERNELS.md (standing.h). */
#include "standing.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
const char *const sb_standing_liger_suites[] = {"liger-perkernel", "liger-perkernel-quick", NULL};
const char *const sb_standing_memory_suites[] = {"memory-bound", "memory-bound-quick", NULL};


static int in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

static int family_make(const sb_result_set *set, const char *const *suites, sb_standing_family *f, sb_error *err)
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

static void family_free(sb_standing_family *f)
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
        family_make(s->set, sb_standing_liger_suites, &s->liger, err) != SB_OK ||
        family_make(s->set, sb_standing_memory_suites, &s->memory, err) != SB_OK)
        goto fail;
    s->ratios = malloc((s->set->n + 1) * sizeof *s->ratios);
    s->idx = malloc((s->paired->report.npairs + 1) * sizeof *s->idx);
    if (!s->ratios || !s->idx) {
        sb_error_set(err, NULL, NULL, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < s->np && s->ncards < SB_STANDING_MAX_CARDS; i++) {
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
    for (size_t i = 0; i < s->paired->n && s->ncards < SB_STANDING_MAX_CARDS; i++) {
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


/* A shape's integer dimension, -1 when absent. */
long long sb_standing_shape_dim(const sb_result *r, const char *name)
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
    long long n = sb_standing_shape_dim(r, "N");
    return n >= 0 ? n : sb_standing_shape_dim(r, "V");
}

int sb_standing_matches(const sb_result *r, const sb_standing_filter *f)
{
    return !strcmp(r->sku, f->sku) && (!f->op || !strcmp(r->op, f->op)) &&
           (!f->mode || !strcmp(r->mode, f->mode)) && (!f->dtype || !strcmp(r->dtype, f->dtype)) &&
           (!f->min_row || row_length(r) >= f->min_row);
}


/* kernel_only: only cases where both sides recorded kernel time, compared
 * in it (a Python provider's call time holds its launch cost); otherwise
 * each case in kernel time where both recorded it, else in call time.
 * unpaired: only cases no measuring session pairs (their figure is the
 * paired one, sb_standing_paired_stats). */
void sb_standing_pair_stats(sb_standing *s, const sb_pick *picks, size_t np, const sb_standing_filter *cf,
                          const char *provider, const char *baseline, int kernel_only, int unpaired,
                          sb_standing_pairs *out)
{
    memset(out, 0, sizeof *out);
    out->geomean = out->worst = NAN;
    for (size_t i = 0; i < np; i++) {
        const sb_result *p = picks[i].r;
        if (strcmp(p->provider, provider) || !p->passing || p->implausible || !sb_standing_matches(p, cf))
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

void sb_standing_copy_stats(const sb_pick *picks, size_t np, const sb_standing_filter *cf, double copy, double threshold,
                          sb_standing_copies *out)
{
    memset(out, 0, sizeof *out);
    out->lowest = NAN;
    if (!(copy > 0))
        return;
    for (size_t i = 0; i < np; i++) {
        const sb_result *r = picks[i].r;
        if (strcmp(r->provider, SB_PROJECT_PROVIDER) || !r->passing || r->implausible || !(r->bytes > 0) ||
            !(r->median_ms > 0) || !sb_standing_matches(r, cf))
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


static int pair_in(const sb_session_pair *p, const char *const *suites, const sb_standing_filter *cf)
{
    const sb_session_run *t = p->target;
    return in_list(suites, t->suite) && !strcmp(t->sku, cf->sku) && (!cf->op || !strcmp(t->op, cf->op)) &&
           (!cf->mode || !strcmp(t->mode, cf->mode)) && (!cf->dtype || !strcmp(t->dtype, cf->dtype));
}

/* The pairs of session sid among the headlines of provider over baseline
 * that pass the filter, into idx; their count. */
static size_t session_pairs(const sb_session_headlines *h, const char *sid, const char *const *suites,
                            const sb_standing_filter *cf, const char *provider, const char *baseline, size_t *idx)
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

int sb_standing_paired_stats(sb_standing *s, const char *const *suites, const sb_standing_filter *cf,
                           const char *provider, const char *baseline, sb_standing_paired *out, sb_error *err)
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

/* The distinct ops of a card's passing runs of provider, in order. */
size_t sb_standing_ops(const sb_pick *picks, size_t np, const char *sku, const char *provider, const char **ops,
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

/* The ops of a card's headlines of provider, from sessions of suites,
 * added to ops[0..*n) (sorted). */
void sb_standing_paired_ops(const sb_standing *s, const char *sku, const char *const *suites, const char *provider,
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
