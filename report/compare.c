/* compare.c - two sets of runs side by side (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "paired.h"
#include "stats.h"

const char *sb_cmp_verdict_name(sb_cmp_verdict v)
{
    switch (v) {
    case SB_CMP_SLOWER: return "slower";
    case SB_CMP_FASTER: return "faster";
    case SB_CMP_SAME: return "same";
    case SB_CMP_INCONCLUSIVE: return "inconclusive";
    }
    return "unknown";
}

static int is_hex(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

int sb_cmp_side_parse(const char *text, sb_cmp_side *side, sb_error *err)
{
    memset(side, 0, sizeof *side);
    side->text = text;
    side->copy = -1;
    if (!strchr(text, '=')) {
        if (strlen(text) < 4 || strlen(text) > 40 || !is_hex(text))
            return sb_error_set(err, NULL, NULL,
                                "'%s': expected a commit (4 to 40 lowercase hex digits) or "
                                "KEY=VALUE[,KEY=VALUE...] with keys sha, branch, suite, sku, arch, "
                                "provider, op, session, copy",
                                text);
        if (!(side->buf = strdup(text)))
            return sb_error_set(err, NULL, NULL, "out of memory");
        side->sha = side->buf;
        return SB_OK;
    }
    if (!(side->buf = strdup(text)))
        return sb_error_set(err, NULL, NULL, "out of memory");
    char *save = NULL;
    for (char *kv = strtok_r(side->buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1]) {
            sb_error_set(err, NULL, NULL, "'%s': '%s' is not KEY=VALUE", text, kv);
            goto bad;
        }
        *eq = 0;
        const char *v = eq + 1;
        if (!strcmp(kv, "copy")) {
            if (side->copy >= 0) {
                sb_error_set(err, NULL, NULL, "'%s': key 'copy' given twice", text);
                goto bad;
            }
            if (strcmp(v, "0") && strcmp(v, "1")) {
                sb_error_set(err, NULL, NULL, "'%s': copy=%s is not 0 or 1", text, v);
                goto bad;
            }
            side->copy = v[0] - '0';
            continue;
        }
        const char **slot = !strcmp(kv, "sha")        ? &side->sha
                            : !strcmp(kv, "branch")   ? &side->branch
                            : !strcmp(kv, "suite")    ? &side->suite
                            : !strcmp(kv, "sku")      ? &side->sku
                            : !strcmp(kv, "arch")     ? &side->arch
                            : !strcmp(kv, "provider") ? &side->provider
                            : !strcmp(kv, "op")       ? &side->op
                            : !strcmp(kv, "session")  ? &side->session
                                                      : NULL;
        if (!slot) {
            sb_error_set(err, NULL, NULL,
                         "'%s': unknown key '%s' (sha, branch, suite, sku, arch, provider, op, session, "
                         "copy)",
                         text, kv);
            goto bad;
        }
        if (*slot) {
            sb_error_set(err, NULL, NULL, "'%s': key '%s' given twice", text, kv);
            goto bad;
        }
        if ((slot == &side->sha || slot == &side->session) && !is_hex(v)) {
            sb_error_set(err, NULL, NULL, "'%s': %s=%s is not lowercase hex", text, kv, v);
            goto bad;
        }
        *slot = v;
    }
    return SB_OK;
bad:
    sb_cmp_side_free(side);
    return SB_ERR;
}

void sb_cmp_side_free(sb_cmp_side *side)
{
    free(side->buf);
    memset(side, 0, sizeof *side);
}

static int eq_or_any(const char *want, const char *have)
{
    return !want || (have && strcmp(want, have) == 0);
}

static int selects(const sb_cmp_side *s, const sb_result *r)
{
    if (!r->passing)
        return 0;
    if (s->sha && strncmp(r->git_sha, s->sha, strlen(s->sha)) != 0)
        return 0;
    /* a session's runs only for a side that names the session */
    if (s->session ? !r->session_id || strncmp(r->session_id, s->session, strlen(s->session)) != 0
                   : r->session_id != NULL)
        return 0;
    if (s->copy >= 0 && r->session_copy != s->copy)
        return 0;
    return eq_or_any(s->branch, r->git_branch) && eq_or_any(s->suite, r->suite) &&
           eq_or_any(s->sku, r->sku) && eq_or_any(s->arch, r->arch) &&
           eq_or_any(s->provider, r->provider) && eq_or_any(s->op, r->op);
}

/* One key of a side's filter: the side's value and the common one must
 * agree when both are given (else the side selects nothing: 0). */
static int narrow(const char *common, const char *side, const char **out)
{
    if (common && side && strcmp(common, side) != 0)
        return 0;
    *out = side ? side : common;
    return 1;
}

/* The filter of the runs a side selects under the common filters f; 0
 * when it selects none. */
static int side_filter(const sb_result_filter *f, const sb_cmp_side *s, sb_result_filter *out)
{
    memset(out, 0, sizeof *out);
    out->sha = s->sha;
    out->branch = s->branch;
    out->with_sessions = s->session != NULL;
    return narrow(f->suite, s->suite, &out->suite) && narrow(f->op, s->op, &out->op) &&
           narrow(f->provider, s->provider, &out->provider) && narrow(f->arch, s->arch, &out->arch) &&
           narrow(f->sku, s->sku, &out->sku);
}

size_t sb_cmp_filters(const sb_result_filter *f, const sb_cmp_side *a, const sb_cmp_side *b,
                      sb_result_filter fs[2])
{
    size_t n = 0;
    n += side_filter(f, a, &fs[n]);
    n += side_filter(f, b, &fs[n]);
    return n;
}

static int newer(const sb_result *a, const sb_result *b)
{
    if (a->finished_epoch != b->finished_epoch)
        return a->finished_epoch > b->finished_epoch;
    return a->run_id > b->run_id;
}

/* The one SKU every run a side selects is on; NULL when none or several. */
static const char *single_sku(const sb_result_set *set, const sb_cmp_side *s, size_t *runs)
{
    const char *sku = NULL;
    int several = 0;
    *runs = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (!selects(s, &set->v[i]))
            continue;
        (*runs)++;
        if (!sku)
            sku = set->v[i].sku;
        else if (strcmp(sku, set->v[i].sku) != 0)
            several = 1;
    }
    return several ? NULL : sku;
}

static int add_commit(char ***v, size_t *n, const char *sha)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i], sha))
            return SB_OK;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return SB_ERR;
    *v = nv;
    if (!(nv[*n] = strdup(sha)))
        return SB_ERR;
    (*n)++;
    return SB_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int sb_cmp_wants_kernel(const sb_cmp_row *row)
{
    return row->a->session_id && row->b->session_id;
}

int sb_cmp_wants_samples(const sb_cmp_row *row, const sb_cmp_samples *s)
{
    return !(s->kernel_a && s->kernel_b) && !row->a->quantiles_only && !row->b->quantiles_only;
}

/* Two runs of measuring sessions are compared as `solbook noise` compares
 * them (report/sessions.h): by the round medians of their kernel times,
 * the held launch's, not by the call times of run_samples, which carry
 * the host's Python overhead. */
static int session_rounds(const sb_cmp_samples *s, double **x, size_t *nx, double **y, size_t *ny, sb_error *err)
{
    int rc = sb_round_medians(s->kernel_a, x, nx, err);
    if (rc == SB_OK)
        rc = sb_round_medians(s->kernel_b, y, ny, err);
    if (rc != SB_OK) {
        free(*x);
        *x = NULL;
        *nx = 0;
    }
    return rc;
}

int sb_cmp_judge(sb_cmp_result *r, size_t i, const sb_cmp_samples *s, const sb_cmp_opts *o, sb_error *err)
{
    sb_cmp_row *row = &r->v[i];
    const sb_result *a = row->a, *b = row->b;
    row->p = NAN;
    row->median_a = a->median_ms;
    row->median_b = b->median_ms;
    row->verdict = SB_CMP_INCONCLUSIVE;
    double *rx = NULL, *ry = NULL;
    const double *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    if (s->kernel_a && s->kernel_b) {
        if (session_rounds(s, &rx, &nx, &ry, &ny, err) != SB_OK)
            return SB_ERR;
        x = rx;
        y = ry;
    } else if (!a->quantiles_only && !b->quantiles_only) {
        x = s->x;
        nx = s->nx;
        y = s->y;
        ny = s->ny;
    }
    row->n_a = nx;
    row->n_b = ny;
    if (nx && ny) {
        row->median_a = sb_median(x, nx);
        row->median_b = sb_median(y, ny);
    }
    row->ratio = row->median_a > 0 && row->median_b >= 0 ? row->median_b / row->median_a : NAN;
    if (nx && ny) {
        sb_mw_result mw;
        int rc = sb_mann_whitney(x, nx, y, ny, &mw);
        if (rc != 0) {
            free(rx);
            free(ry);
            return sb_error_set(err, NULL, NULL, "out of memory in the Mann-Whitney test");
        }
        row->p = mw.p;
        if (mw.min_p < o->alpha) {
            if (mw.p < o->alpha && row->ratio >= 1 + row->threshold)
                row->verdict = SB_CMP_SLOWER;
            else if (mw.p < o->alpha && row->ratio <= 1 - row->threshold)
                row->verdict = SB_CMP_FASTER;
            else
                row->verdict = SB_CMP_SAME;
        }
    }
    free(rx);
    free(ry);
    return SB_OK;
}

/* The A/A noise and the cards the thresholds of the pairs need. */
typedef struct cmp_noise {
    const sb_rg_aa *aa;
    const sb_run_devices *dev;
} cmp_noise;

/* Sets row's threshold for a against b: the regression rule's within one
 * SKU, the floor across two. */
static void pair_threshold(const cmp_noise *cn, const sb_result *a, const sb_result *b, const sb_cmp_opts *o,
                           int across_skus, sb_cmp_row *row)
{
    memset(row, 0, sizeof *row);
    const char *ua = sb_run_device(cn->dev, a->run_id), *ub = sb_run_device(cn->dev, b->run_id);
    row->same_card = ua && ub ? strcmp(ua, ub) == 0 : -1;
    row->threshold = o->threshold;
    row->threshold_from = SB_RG_FROM_MIN_EFFECT;
    if (!across_skus) {
        row->threshold = sb_rg_threshold(cn->aa, a, b, row->same_card, o->threshold, &row->threshold_from);
    }
}

static int cmp_rows(const sb_result_set *set, const sb_cmp_side *a, const sb_cmp_side *b, const sb_cmp_opts *o,
                    const cmp_noise *cn, sb_cmp_result *out, sb_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < set->n;) {
        size_t j = i;
        while (j + 1 < set->n && !strcmp(set->v[j + 1].case_key, set->v[i].case_key) &&
               !strcmp(set->v[j + 1].provider, set->v[i].provider) &&
               (out->across_skus || !strcmp(set->v[j + 1].sku, set->v[i].sku)))
            j++;
        const sb_result *pa = NULL, *pb = NULL;
        for (size_t k = i; k <= j; k++) {
            const sb_result *r = &set->v[k];
            if (selects(a, r) && (!pa || newer(r, pa)))
                pa = r;
            if (selects(b, r) && (!pb || newer(r, pb)))
                pb = r;
        }
        i = j + 1;
        if (!pa && !pb)
            continue;
        if (!pa || !pb) {
            if (pa)
                out->only_a++;
            else
                out->only_b++;
            continue;
        }
        if (out->n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            sb_cmp_row *nv = realloc(out->v, nc * sizeof *nv);
            if (!nv)
                goto oom;
            out->v = nv;
            cap = nc;
        }
        sb_cmp_row *row = &out->v[out->n];
        pair_threshold(cn, pa, pb, o, out->across_skus, row);
        row->a = pa;
        row->b = pb;
        row->p = NAN;
        row->ratio = NAN;
        row->median_a = pa->median_ms;
        row->median_b = pb->median_ms;
        row->verdict = SB_CMP_INCONCLUSIVE;
        out->n++;
        if (add_commit(&out->commits_a, &out->ncommits_a, pa->git_sha) != SB_OK ||
            add_commit(&out->commits_b, &out->ncommits_b, pb->git_sha) != SB_OK)
            goto oom;
    }
    if (out->ncommits_a)
        qsort(out->commits_a, out->ncommits_a, sizeof *out->commits_a, cmp_str);
    if (out->ncommits_b)
        qsort(out->commits_b, out->ncommits_b, sizeof *out->commits_b, cmp_str);
    return SB_OK;
oom:
    sb_cmp_free(out);
    return sb_error_set(err, NULL, NULL, "out of memory");
}

int sb_cmp_pairs(const sb_result_set *set, const sb_cmp_side *a, const sb_cmp_side *b, const sb_cmp_opts *o,
                 const sb_rg_aa *aa, const sb_run_devices *dev, sb_cmp_result *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    out->geomean = NAN;
    const char *ska = single_sku(set, a, &out->runs_a), *skb = single_sku(set, b, &out->runs_b);
    out->across_skus = ska && skb && strcmp(ska, skb) != 0;
    cmp_noise cn = {aa, dev};
    return cmp_rows(set, a, b, o, &cn, out, err);
}

void sb_cmp_finish(sb_cmp_result *r)
{
    double log_sum = 0;
    size_t n_log = 0;
    memset(r->counts, 0, sizeof r->counts);
    for (size_t i = 0; i < r->n; i++) {
        const sb_cmp_row *row = &r->v[i];
        r->counts[row->verdict]++;
        if (row->ratio > 0 && isfinite(row->ratio)) {
            log_sum += log(row->ratio);
            n_log++;
        }
    }
    r->geomean = n_log ? exp(log_sum / (double)n_log) : NAN;
}

void sb_cmp_free(sb_cmp_result *r)
{
    for (size_t i = 0; i < r->ncommits_a; i++)
        free(r->commits_a[i]);
    for (size_t i = 0; i < r->ncommits_b; i++)
        free(r->commits_b[i]);
    free(r->commits_a);
    free(r->commits_b);
    free(r->v);
    memset(r, 0, sizeof *r);
}
