/* weekly_snapshot.c - freeing the weekly writeup's rows. */
#include "weekly_snapshot.h"

#include <string.h>

void sb_weekly_snapshot_free(sb_weekly_snapshot *s)
{
    sb_results_free(&s->week);
    sb_results_free(&s->before);
    sb_results_free(&s->spec);
    sb_results_free(&s->with_sessions);
    sb_results_free(&s->session_only);
    sb_training_free(&s->training);
    sb_results_free(&s->note_runs);
    sb_run_details_free(s->details);
    sb_results_free(&s->latest);
    memset(s, 0, sizeof *s);
}
