/* training_run.c - freeing training runs (training_run.h). */
#include "training_run.h"

#include <stdlib.h>

void sb_training_run_free(sb_training *t)
{
    char **strs[] = {&t->status, &t->model_name, &t->dtype, &t->strategy, &t->patch_name,
                     &t->sku, &t->arch, &t->gpu_name, &t->git_sha, &t->driver, &t->cuda,
                     &t->finished_at, &t->source_path, &t->reason, &t->patch_kernels_json,
                     &t->scope, &t->mode, &t->peaks_json, &t->run_uuid, &t->against_run_uuid,
                     &t->gpu_uuid, &t->session_id, &t->timer};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
}

void sb_training_free(sb_training_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        sb_training_run_free(&s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
