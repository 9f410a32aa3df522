/* compare.c - two sets of runs side by side (compare.h). */
#include "compare.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "paired.h"
#include "report_json.h"
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

/* ---- rendering ---- */

static void fmt_num(char *buf, size_t size, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, fmt, v);
}

static void md_commits(sb_buf *out, char **v, size_t n)
{
    if (!n) {
        sb_buf_puts(out, "none");
        return;
    }
    for (size_t i = 0; i < n && i < 8; i++) {
        /* the short form of a SHA, through the span encoder like all data */
        char shortsha[13];
        size_t k = strnlen(v[i], sizeof shortsha - 1);
        memcpy(shortsha, v[i], k);
        shortsha[k] = '\0';
        sb_buf_puts(out, i ? ", " : "");
        sb_enc_md_code_span(out, shortsha, 0);
    }
    if (n > 8)
        sb_buf_printf(out, " and %zu more", n - 8);
}

static void md_table(const sb_cmp_result *r, sb_cmp_verdict want, sb_buf *out)
{
    static const char *const heads[] = {"Slower in B", "Faster in B", "Same", "Inconclusive"};
    sb_buf_printf(out, "### %s (%zu)\n\n", heads[want], r->counts[want]);
    if (!r->counts[want]) {
        sb_buf_puts(out, "None.\n\n");
        return;
    }
    sb_buf_puts(out, "| op | mode | dtype | shape | params | provider | SKU | A median ms | "
                     "B median ms | B/A | threshold | p | samples A/B | card | A commit (run) | B commit (run) |\n"
                     "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: "
                     "| --- | --- | --- |\n");
    for (size_t i = 0; i < r->n; i++) {
        const sb_cmp_row *w = &r->v[i];
        if (w->verdict != want)
            continue;
        const sb_result *b = w->b;
        const char *params = strcmp(b->params_json, "{}") ? b->params_json : "";
        const char *sku = r->across_skus ? NULL : b->sku;
        const char *cells[] = {b->op, b->mode, b->dtype, b->shape_key, params, b->provider};
        sb_buf_puts(out, "|");
        for (size_t k = 0; k < sizeof cells / sizeof *cells; k++) {
            sb_buf_puts(out, " ");
            sb_enc_md_text(out, cells[k], cells[k] == params ? SB_TEXT_NOTE_MAX : SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " |");
        }
        sb_buf_puts(out, " ");
        if (sku) {
            sb_enc_md_text(out, sku, SB_TEXT_NAME_MAX);
        } else {
            sb_enc_md_text(out, w->a->sku, SB_TEXT_NAME_MAX);
            sb_buf_puts(out, " / ");
            sb_enc_md_text(out, b->sku, SB_TEXT_NAME_MAX);
        }
        char ma[32], mb[32], ra[32], p[32];
        fmt_num(ma, sizeof ma, "%.4f", w->median_a);
        fmt_num(mb, sizeof mb, "%.4f", w->median_b);
        fmt_num(ra, sizeof ra, "%.3f", w->ratio);
        fmt_num(p, sizeof p, "%.2g", w->p);
        sb_buf_printf(out, " | %s | %s | %s | %.1f%% (%s) | %s | %zu/%zu | %s | %.12s (run %lld) | %.12s (run %lld) |\n",
                      ma, mb, ra, w->threshold * 100.0,
                      sb_rg_threshold_from_name(w->threshold_from), p, w->n_a, w->n_b,
                      w->same_card == 1 ? "same" : w->same_card == 0 ? "two cards" : "not recorded",
                      w->a->git_sha, w->a->run_id, b->git_sha, b->run_id);
    }
    sb_buf_puts(out, "\n");
}

void sb_cmp_render_md(const sb_cmp_result *r, const sb_cmp_side *a, const sb_cmp_side *b,
                      const sb_cmp_opts *o, sb_buf *out)
{
    sb_buf_puts(out, "# Compare\n\n- A: ");
    sb_enc_md_code_span(out, a->text, SB_TEXT_NAME_MAX);
    sb_buf_printf(out, ": %zu passing run(s), commit(s) ", r->runs_a);
    md_commits(out, r->commits_a, r->ncommits_a);
    sb_buf_puts(out, "\n- B: ");
    sb_enc_md_code_span(out, b->text, SB_TEXT_NAME_MAX);
    sb_buf_printf(out, ": %zu passing run(s), commit(s) ", r->runs_b);
    md_commits(out, r->commits_b, r->ncommits_b);
    sb_buf_printf(out,
                  "\n\nEvidence level: op-level microbenchmark. The newest passing run of each case, "
                  "provider and SKU on each side (runs timed under a profiler left out); cases "
                  "paired on case and provider%s. Two-sided Mann-Whitney U on the stored samples, "
                  "alpha %.4g; a change of the median under its threshold is the same: the case's "
                  "A/A noise on one card or across two where the stored A/A sessions measured it, "
                  "else the SKU's cross-card A/A noise across cards, never below %.1f%% (the rule "
                  "of report regressions).\n\n",
                  r->across_skus ? " across the two SKUs" : " and SKU", o->alpha,
                  o->threshold * 100.0);
    char g[32];
    fmt_num(g, sizeof g, "%.4f", r->geomean);
    sb_buf_printf(out,
                  "**%zu case(s) compared: %zu slower, %zu faster, %zu same, %zu inconclusive; "
                  "geomean B/A %s** (below 1: B is faster). %zu case(s) only in A, %zu only in "
                  "B.\n\n",
                  r->n, r->counts[SB_CMP_SLOWER], r->counts[SB_CMP_FASTER], r->counts[SB_CMP_SAME],
                  r->counts[SB_CMP_INCONCLUSIVE], g, r->only_a, r->only_b);
    md_table(r, SB_CMP_SLOWER, out);
    md_table(r, SB_CMP_FASTER, out);
    md_table(r, SB_CMP_INCONCLUSIVE, out);
    md_table(r, SB_CMP_SAME, out);
}

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *side_json(const sb_cmp_side *s, size_t runs, char **commits, size_t n)
{
    json_t *j = json_object(), *c = json_array();
    json_object_set_new(j, "selector", json_string(s->text));
    json_object_set_new(j, "runs", json_integer((json_int_t)runs));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(c, json_string(commits[i]));
    json_object_set_new(j, "commits", c);
    return j;
}

int sb_cmp_render_json(const sb_cmp_result *r, const sb_cmp_side *a, const sb_cmp_side *b,
                       const sb_cmp_opts *o, sb_buf *out, sb_error *err)
{
    json_t *rows = NULL, *counts = json_object();
    json_t *root = sb_report_json_new("op-level microbenchmark", "cases", &rows);
    if (!root || !counts) {
        json_decref(root);
        json_decref(counts);
        return sb_error_set(err, NULL, NULL, "out of memory");
    }
    json_object_set_new(root, "alpha", json_real(o->alpha));
    json_object_set_new(root, "threshold", json_real(o->threshold));
    json_object_set_new(root, "a", side_json(a, r->runs_a, r->commits_a, r->ncommits_a));
    json_object_set_new(root, "b", side_json(b, r->runs_b, r->commits_b, r->ncommits_b));
    json_object_set_new(root, "across_skus", json_boolean(r->across_skus));
    json_object_set_new(root, "geomean_ratio", num_or_null(r->geomean));
    for (int v = 0; v < 4; v++)
        json_object_set_new(counts, sb_cmp_verdict_name((sb_cmp_verdict)v),
                            json_integer((json_int_t)r->counts[v]));
    json_object_set_new(root, "counts", counts);
    json_object_set_new(root, "only_a", json_integer((json_int_t)r->only_a));
    json_object_set_new(root, "only_b", json_integer((json_int_t)r->only_b));
    for (size_t i = 0; i < r->n; i++) {
        const sb_cmp_row *w = &r->v[i];
        json_t *j = json_object();
        json_object_set_new(j, "case_key", json_string(w->b->case_key));
        json_object_set_new(j, "op", json_string(w->b->op));
        json_object_set_new(j, "mode", json_string(w->b->mode));
        json_object_set_new(j, "dtype", json_string(w->b->dtype));
        json_object_set_new(j, "shape", json_string(w->b->shape_key));
        json_object_set_new(j, "params", json_string(w->b->params_json));
        json_object_set_new(j, "provider", json_string(w->b->provider));
        json_object_set_new(j, "sku_a", json_string(w->a->sku));
        json_object_set_new(j, "sku_b", json_string(w->b->sku));
        json_object_set_new(j, "verdict", json_string(sb_cmp_verdict_name(w->verdict)));
        json_object_set_new(j, "median_a_ms", num_or_null(w->median_a));
        json_object_set_new(j, "median_b_ms", num_or_null(w->median_b));
        json_object_set_new(j, "ratio", num_or_null(w->ratio));
        json_object_set_new(j, "p", num_or_null(w->p));
        json_object_set_new(j, "threshold", num_or_null(w->threshold));
        json_object_set_new(j, "threshold_from",
                            json_string(sb_rg_threshold_from_name(w->threshold_from)));
        json_object_set_new(j, "same_card", w->same_card < 0 ? json_null() : json_boolean(w->same_card));
        json_object_set_new(j, "samples_a", json_integer((json_int_t)w->n_a));
        json_object_set_new(j, "samples_b", json_integer((json_int_t)w->n_b));
        json_object_set_new(j, "commit_a", json_string(w->a->git_sha));
        json_object_set_new(j, "commit_b", json_string(w->b->git_sha));
        json_object_set_new(j, "run_a", json_integer(w->a->run_id));
        json_object_set_new(j, "run_b", json_integer(w->b->run_id));
        json_array_append_new(rows, j);
    }
    return sb_report_json_finish(root, out, err);
}
