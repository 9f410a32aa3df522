/* session_run.c - the round medians, the copying and the freeing of the runs of
 * measuring sessions (session_run.h). */
#include "session_run.h"

#include <stdlib.h>
#include <string.h>

#include "paired.h"

void sb_session_run_free(sb_session_run *r)
{
    char **strs[] = {&r->session_id, &r->timing_method, &r->check_version, &r->gpu_uuid, &r->status,
                     &r->op, &r->mode, &r->dtype, &r->shape_key, &r->params_json, &r->provider,
                     &r->case_key, &r->sku, &r->arch, &r->git_sha, &r->started_at, &r->kernel_samples,
                     &r->call_samples, &r->suite, &r->finished_at};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
    free(r->kernel_medians);
    free(r->call_medians);
    r->kernel_medians = r->call_medians = NULL;
    r->kernel_rounds = r->call_rounds = 0;
    r->medians_read = 0;
}

void sb_session_runs_medians(sb_session_runs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        sb_session_run *x = &r->v[i];
        if (x->medians_read || strcmp(x->status, "passed") != 0)
            continue;
        sb_error e;
        double *k = NULL, *c = NULL;
        size_t nk = 0, nc = 0;
        if ((x->kernel_samples && sb_round_medians(x->kernel_samples, &k, &nk, &e) != SB_OK) ||
            (x->call_samples && sb_round_medians(x->call_samples, &c, &nc, &e) != SB_OK)) {
            free(k);
            free(c);
            continue;
        }
        x->kernel_medians = k;
        x->call_medians = c;
        x->kernel_rounds = nk;
        x->call_rounds = nc;
        x->medians_read = 1;
    }
}

void sb_session_runs_keep_suite(sb_session_runs *r, const char *suite)
{
    if (!suite)
        return;
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->v[i].suite, suite) == 0)
            r->v[m++] = r->v[i];
        else
            sb_session_run_free(&r->v[i]);
    }
    r->n = m;
}

void sb_session_runs_free(sb_session_runs *r)
{
    for (size_t i = 0; i < r->n; i++)
        sb_session_run_free(&r->v[i]);
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

static int dup_str(char **dst, const char *src)
{
    if (!src) {
        *dst = NULL;
        return 0;
    }
    size_t n = strlen(src) + 1;
    if (!(*dst = malloc(n)))
        return -1;
    memcpy(*dst, src, n);
    return 0;
}

static int dup_doubles(double **dst, const double *src, size_t n)
{
    if (!src) {
        *dst = NULL;
        return 0;
    }
    if (!(*dst = malloc((n ? n : 1) * sizeof **dst)))
        return -1;
    if (n)
        memcpy(*dst, src, n * sizeof **dst);
    return 0;
}

int sb_session_runs_copy(const sb_session_runs *from, sb_session_runs *to)
{
    memset(to, 0, sizeof *to);
    if (from->n == 0)
        return 0;
    if (!(to->v = calloc(from->n, sizeof *to->v)))
        return -1;
    for (size_t i = 0; i < from->n; i++) {
        const sb_session_run *a = &from->v[i];
        sb_session_run *b = &to->v[i];
        *b = *a;
        char **dst[] = {&b->session_id, &b->timing_method, &b->check_version, &b->gpu_uuid, &b->status,
                        &b->op, &b->mode, &b->dtype, &b->shape_key, &b->params_json, &b->provider,
                        &b->case_key, &b->sku, &b->arch, &b->git_sha, &b->started_at, &b->kernel_samples,
                        &b->call_samples, &b->suite, &b->finished_at};
        const char *src[] = {a->session_id, a->timing_method, a->check_version, a->gpu_uuid, a->status,
                             a->op, a->mode, a->dtype, a->shape_key, a->params_json, a->provider,
                             a->case_key, a->sku, a->arch, a->git_sha, a->started_at, a->kernel_samples,
                             a->call_samples, a->suite, a->finished_at};
        for (size_t k = 0; k < sizeof dst / sizeof dst[0]; k++)
            *dst[k] = NULL;
        b->kernel_medians = b->call_medians = NULL;
        to->n = i + 1;
        int bad = 0;
        for (size_t k = 0; k < sizeof dst / sizeof dst[0]; k++)
            bad |= dup_str(dst[k], src[k]);
        bad |= dup_doubles(&b->kernel_medians, a->kernel_medians, a->kernel_rounds);
        bad |= dup_doubles(&b->call_medians, a->call_medians, a->call_rounds);
        if (bad) {
            sb_session_runs_free(to);
            return -1;
        }
    }
    return 0;
}
