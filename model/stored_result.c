/* stored_result.c - freeing stored result runs (stored_result.h). */
#include "stored_result.h"

#include <stdlib.h>

void sb_result_free(sb_result *r)
{
    char **strs[] = {&r->status, &r->reason, &r->source_path, &r->source_format, &r->run_uuid,
                     &r->suite, &r->op, &r->mode, &r->provider, &r->backend, &r->dtype,
                     &r->shape_key, &r->shape_json, &r->params_json, &r->run_params_json, &r->case_key, &r->timer,
                     &r->l2, &r->git_sha, &r->tool_name, &r->tool_version, &r->driver, &r->cuda,
                     &r->cublas, &r->gpu_name, &r->arch, &r->sku, &r->hostname, &r->finished_at,
                     &r->kernel_method, &r->packages_json, &r->profiler, &r->git_branch, &r->session_id};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
}

void sb_results_free(sb_result_set *s)
{
    for (size_t i = 0; !s->borrowed && i < s->n; i++)
        sb_result_free(&s->v[i]);
    for (size_t i = 0; !s->borrowed && i < s->n_left_out; i++)
        sb_result_free(&s->left_out[i]);
    free(s->v);
    free(s->left_out);
    s->v = NULL;
    s->n = 0;
    s->left_out = NULL;
    s->n_left_out = 0;
    s->borrowed = 0;
}
