/* claims.c - a document's claims, paths and headline pairs (claims.h). */
#include "claims.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "geomean.h"
#include "home.h"
#include "sessions.h"

static char *dup_or_null(const char *s, int *failed)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *failed = 1;
    return d;
}

static void claim_free(sb_claim *k)
{
    if (k->step) {
        free(k->step->case_key);
        free(k->step->old_commit);
        free(k->step->new_commit);
        free(k->step->rule);
        free(k->step);
    }
    free(k->figure);
    free(k->provider);
    free(k->baseline);
    free(k->sku);
    free(k->session);
    free(k->runs);
    memset(k, 0, sizeof *k);
}

void sb_claims_add(sb_claims *c, const char *figure, const char *provider, const char *baseline, const char *sku,
                   const char *session, const int64_t *runs, size_t nruns)
{
    sb_claim *v = realloc(c->v, (c->n + 1) * sizeof *v);
    if (!v) {
        c->failed = 1;
        return;
    }
    c->v = v;
    sb_claim *k = &v[c->n++];
    memset(k, 0, sizeof *k);
    int failed = 0;
    k->figure = dup_or_null(figure ? figure : "", &failed);
    k->provider = dup_or_null(provider ? provider : "", &failed);
    k->baseline = dup_or_null(baseline, &failed);
    k->sku = dup_or_null(sku, &failed);
    k->session = dup_or_null(session, &failed);
    k->runs = malloc((nruns + 1) * sizeof *k->runs);
    if (!k->runs)
        failed = 1;
    else if (nruns)
        memcpy(k->runs, runs, nruns * sizeof *runs);
    k->nruns = k->runs ? nruns : 0;
    c->failed |= failed;
}

void sb_claims_add_step(sb_claims *c, const sb_rg_row *r)
{
    const sb_result *o = r->old_run, *n = r->new_run;
    char figure[32];
    snprintf(figure, sizeof figure, "%+.1f%%", 100.0 * r->rel_change);
    int64_t ids[2] = {o->run_id, n->run_id};
    size_t at = c->n;
    sb_claims_add(c, figure, n->provider, NULL, n->sku, NULL, ids, 2);
    if (c->n == at)
        return;
    sb_claim_step *s = calloc(1, sizeof *s);
    c->v[at].step = s;
    if (!s) {
        c->failed = 1;
        return;
    }
    int failed = 0;
    s->case_key = dup_or_null(n->case_key, &failed);
    s->old_commit = dup_or_null(o->git_sha, &failed);
    s->new_commit = dup_or_null(n->git_sha, &failed);
    s->rule = dup_or_null(sb_rg_verdict_name(r->verdict), &failed);
    s->ratio = 1.0 + r->rel_change;
    s->threshold = r->threshold;
    c->failed |= failed;
}

void sb_claims_move(sb_claims *to, sb_claims *from)
{
    sb_claim *v = from->n ? realloc(to->v, (to->n + from->n) * sizeof *v) : to->v;
    if (from->n && !v) {
        to->failed = 1;
        sb_claims_free(from);
        return;
    }
    to->v = v;
    if (from->n)
        memcpy(&to->v[to->n], from->v, from->n * sizeof *from->v);
    to->n += from->n;
    to->failed |= from->failed;
    free(from->v);
    memset(from, 0, sizeof *from);
}

void sb_claims_free(sb_claims *c)
{
    for (size_t i = 0; i < c->n; i++)
        claim_free(&c->v[i]);
    free(c->v);
    memset(c, 0, sizeof *c);
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int run_cmp(const void *x, const void *y)
{
    int64_t a = ((const sb_claim_run *)x)->id, b = ((const sb_claim_run *)y)->id;
    return (a > b) - (a < b);
}

/* "1.234x (fused over liger on h100-sxm5-80gb, session 3710651c)" */
static void claim_words(const sb_claim *k, char *buf, size_t size)
{
    snprintf(buf, size, "%s (%s%s%s%s%s%s%.8s)", k->figure, k->provider, k->baseline ? " over " : "",
             k->baseline ? k->baseline : "", k->sku ? " on " : "", k->sku ? k->sku : "",
             k->session ? ", session " : "", k->session ? k->session : "");
}

static int claim_verify(const sb_claim *k, const sb_claim_run *sorted, size_t n, const char *what, sb_error *err)
{
    char words[512];
    claim_words(k, words, sizeof words);
    if (!k->nruns)
        return sb_error_set(err, NULL, NULL, "%s states %s from no run", what, words);
    size_t sides[2] = {0, 0};
    for (size_t i = 0; i < k->nruns; i++) {
        sb_claim_run key = {.id = k->runs[i]};
        const sb_claim_run *r = bsearch(&key, sorted, n, sizeof *sorted, run_cmp);
        if (!r)
            return sb_error_set(err, NULL, NULL, "%s states %s from run %lld, which it does not cite", what,
                                words, (long long)k->runs[i]);
        int side = same(r->provider, k->provider) ? 0 : k->baseline && same(r->provider, k->baseline) ? 1 : -1;
        if (side < 0)
            return sb_error_set(err, NULL, NULL, "%s states %s from run %lld, a run of provider %s", what, words,
                                (long long)r->id, r->provider ? r->provider : "(none)");
        sides[side]++;
        if (k->sku && !same(r->sku, k->sku))
            return sb_error_set(err, NULL, NULL, "%s states %s from run %lld, a run on %s", what, words,
                                (long long)r->id, r->sku ? r->sku : "(none)");
        if (k->session && !same(r->session, k->session))
            return sb_error_set(err, NULL, NULL, "%s states %s from run %lld, a run of session %s", what, words,
                                (long long)r->id, r->session ? r->session : "(none)");
    }
    if (!sides[0] || (k->baseline && !sides[1]))
        return sb_error_set(err, NULL, NULL, "%s states %s without a run of %s", what, words,
                            sides[0] ? k->baseline : k->provider);
    return SB_OK;
}

static const sb_result *cited_run(const sb_result *const *cited, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (cited[i]->run_id == id)
            return cited[i];
    return NULL;
}

/* Claim k's step against its runs, computed again. */
static int step_verify(const sb_rg_aa *aa, const sb_run_devices *dev, const sb_run_samples *samples,
                       const sb_claim *k, const sb_result *const *cited, size_t n, const sb_rg_opts *o,
                       const char *what, sb_error *err)
{
    const sb_claim_step *s = k->step;
    char words[512];
    claim_words(k, words, sizeof words);
    const sb_result *old = k->nruns == 2 ? cited_run(cited, n, k->runs[0]) : NULL;
    const sb_result *nw = k->nruns == 2 ? cited_run(cited, n, k->runs[1]) : NULL;
    if (!old || !nw)
        return sb_error_set(err, NULL, NULL, "%s states %s, a step, without an old and a new run it cites", what,
                            words);
    if (!same(old->case_key, s->case_key) || !same(nw->case_key, s->case_key) || !same(old->provider, k->provider) ||
        !same(nw->provider, k->provider) || !same(old->sku, k->sku) || !same(nw->sku, k->sku) ||
        !sb_rg_same_series(old, nw))
        return sb_error_set(err, NULL, NULL, "%s states %s of case %s; runs %lld and %lld are not of that series",
                            what, words, s->case_key ? s->case_key : "(none)", (long long)old->run_id,
                            (long long)nw->run_id);
    if (!same(old->git_sha, s->old_commit) || !same(nw->git_sha, s->new_commit))
        return sb_error_set(err, NULL, NULL, "%s states %s from commit %.12s to %.12s; runs %lld and %lld are at "
                            "%.12s and %.12s", what, words, s->old_commit ? s->old_commit : "(none)",
                            s->new_commit ? s->new_commit : "(none)", (long long)old->run_id,
                            (long long)nw->run_id, old->git_sha, nw->git_sha);
    sb_rg_row row;
    if (sb_rg_step_again(aa, dev, samples, old, nw, o, &row, err) != SB_OK)
        return SB_ERR;
    double ratio = 1.0 + row.rel_change;
    if (!(fabs(s->ratio - ratio) <= 1e-9 * fabs(ratio)))
        return sb_error_set(err, NULL, NULL, "%s states %s at a ratio of %.6f; runs %lld and %lld give %.6f", what,
                            words, s->ratio, (long long)old->run_id, (long long)nw->run_id, ratio);
    if (!(fabs(s->threshold - row.threshold) <= 1e-12))
        return sb_error_set(err, NULL, NULL, "%s states %s past a threshold of %.4f; runs %lld and %lld give %.4f",
                            what, words, s->threshold, (long long)old->run_id, (long long)nw->run_id,
                            row.threshold);
    const char *rule = sb_rg_verdict_name(row.verdict);
    if (!same(s->rule, rule))
        return sb_error_set(err, NULL, NULL, "%s states %s as a %s; runs %lld and %lld give %s (change %+.2f%%, "
                            "threshold %.2f%%, p %.3g)", what, words, s->rule ? s->rule : "(none)",
                            (long long)old->run_id, (long long)nw->run_id, rule, 100.0 * row.rel_change,
                            100.0 * row.threshold, row.p);
    return SB_OK;
}

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int sb_claims_step_runs(const sb_claims *c, const sb_result *const *cited, size_t n, long long **ids, size_t *nids,
                        sb_error *err)
{
    *ids = malloc((2 * c->n + 1) * sizeof **ids);
    *nids = 0;
    if (!*ids)
        return sb_error_set(err, NULL, NULL, "out of memory");
    for (size_t i = 0; i < c->n; i++)
        for (size_t j = 0; c->v[i].step && c->v[i].nruns == 2 && j < 2; j++)
            if (cited_run(cited, n, c->v[i].runs[j]))
                (*ids)[(*nids)++] = c->v[i].runs[j];
    if (*nids)
        qsort(*ids, *nids, sizeof **ids, cmp_id);
    size_t k = 0;
    for (size_t i = 0; i < *nids; i++)
        if (!k || (*ids)[i] != (*ids)[k - 1])
            (*ids)[k++] = (*ids)[i];
    *nids = k;
    return SB_OK;
}

int sb_claims_verify_steps(const sb_rg_aa *aa, const sb_run_devices *dev, const sb_run_samples *samples,
                           const sb_claims *c, const sb_result *const *cited, size_t n, const sb_rg_opts *o,
                           const char *what, sb_error *err)
{
    if (c->failed)
        return sb_error_set(err, NULL, NULL, "out of memory recording the claims of %s", what);
    int rc = SB_OK;
    for (size_t i = 0; i < c->n && rc == SB_OK; i++)
        if (c->v[i].step)
            rc = step_verify(aa, dev, samples, &c->v[i], cited, n, o, what, err);
    return rc;
}

sb_claim_run *sb_claim_runs_of(const sb_result *const *cited, size_t n)
{
    sb_claim_run *v = malloc((n + 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = (sb_claim_run){cited[i]->run_id, cited[i]->provider, cited[i]->sku, cited[i]->session_id};
    return v;
}

int sb_claims_verify(const sb_claims *c, const sb_claim_run *cited, size_t ncited, const char *what,
                     sb_error *err)
{
    if (c->failed)
        return sb_error_set(err, NULL, NULL, "out of memory recording the claims of %s", what);
    sb_claim_run *sorted = malloc((ncited + 1) * sizeof *sorted);
    if (!sorted)
        return sb_error_set(err, NULL, NULL, "out of memory");
    if (ncited)
        memcpy(sorted, cited, ncited * sizeof *cited);
    qsort(sorted, ncited, sizeof *sorted, run_cmp);
    int rc = SB_OK;
    for (size_t i = 0; i < c->n && rc == SB_OK; i++)
        rc = claim_verify(&c->v[i], sorted, ncited, what, err);
    free(sorted);
    return rc;
}

int sb_paths_check(const char *const *paths, const char *text, const char *what, sb_error *err)
{
    for (size_t i = 0; paths && paths[i]; i++) {
        char abs[PATH_MAX];
        if (!*paths[i])
            continue;
        if (!realpath(paths[i], abs))
            snprintf(abs, sizeof abs, "%s", paths[i]);
        /* "/" alone or a one-letter root is no path of this build */
        if (strlen(abs) < 3 || abs[0] != '/')
            continue;
        /* nor is the working directory or a folder above it (an output
         * folder given as "."): a run's data may name any path there */
        char cwd[PATH_MAX];
        size_t n = strlen(abs);
        if (getcwd(cwd, sizeof cwd) && strncmp(cwd, abs, n) == 0 && (cwd[n] == '/' || cwd[n] == '\0'))
            continue;
        if (strstr(text, abs))
            return sb_error_set(err, NULL, NULL, "%s holds '%s', a path of this build", what, abs);
    }
    return SB_OK;
}

int sb_claims_pair_check(const sb_session_run *p, const sb_session_run *b, sb_error *err)
{
    const struct {
        const char *what, *x, *y;
    } sides[] = {{"GPU UUID", p->gpu_uuid, b->gpu_uuid},
                 {"SKU", p->sku, b->sku},
                 {"session", p->session_id, b->session_id},
                 {"timing method", p->timing_method, b->timing_method},
                 {"correctness check", p->check_version, b->check_version}};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        const char *x = sides[i].x, *y = sides[i].y;
        if (x && y && strcmp(x, y) == 0)
            continue;
        return sb_error_set(err, NULL, NULL,
                            "headline pair %s over %s (%s %s %s %s, runs %lld and %lld) is not like with like: "
                            "%s %s against %s",
                            p->provider, b->provider, p->op, p->mode, p->dtype, p->shape_key, (long long)p->run_id,
                            (long long)b->run_id, sides[i].what, x ? x : "(none)", y ? y : "(none)");
    }
    return SB_OK;
}

int sb_claims_headlines_check(const struct sb_session_headlines *h, sb_error *err)
{
    for (size_t k = 0; k < h->n; k++)
        for (size_t c = 0; c < h->v[k].count; c++) {
            const sb_session_pair *p = &h->report.pairs[h->v[k].pair[c]];
            if (sb_claims_pair_check(p->target, p->base, err) != SB_OK)
                return SB_ERR;
        }
    return SB_OK;
}

int sb_claims_headlines_take(sb_session_runs *runs, const char *op, const char *baseline, long long from,
                             long long to, struct sb_session_headlines *out, sb_error *err)
{
    const char *one[] = {baseline, NULL};
    memset(out, 0, sizeof *out);
    if (sb_session_headlines_take(runs, op, baseline ? one : sb_headline_baselines, from, to, out, err) != SB_OK)
        return SB_ERR;
    if (sb_claims_headlines_check(out, err) != SB_OK) {
        sb_session_headlines_free(out);
        return SB_ERR;
    }
    return SB_OK;
}
