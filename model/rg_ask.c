/* rg_ask.c - freeing an answer to an update's ask (rg_ask.h). */
#include "rg_ask.h"

#include <stdlib.h>
#include <string.h>

void sb_rg_answer_free(sb_rg_answer *a)
{
    sb_results_free(&a->runs);
    free(a->ids);
    sb_commit_ordinals_free(&a->git);
    free(a->last);
    free(a->found);
    sb_run_devices_free(&a->cards);
    sb_run_samples_free(&a->samples);
    memset(a, 0, sizeof *a);
}
