/* session_run.c - freeing the runs of measuring sessions (session_run.h). */
#include "session_run.h"

#include <stdlib.h>
#include <string.h>

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
