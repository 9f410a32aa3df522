/* session_run.c - the round medians and the freeing of the runs of
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
