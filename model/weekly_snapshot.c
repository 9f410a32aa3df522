/* weekly_snapshot.c - the weekly writeup's rows: finding a verdict,
 * freeing them. */
#include "weekly_snapshot.h"

#include <stdlib.h>
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
    free(s->verdict_run);
    free(s->verdict);
    sb_session_runs_free(&s->sessions);
    sb_plaus_snap_free(&s->plaus);
    memset(s, 0, sizeof *s);
}

const sb_plaus_verdict *sb_weekly_snapshot_verdict(const sb_weekly_snapshot *s, long long run_id)
{
    size_t lo = 0, hi = s->nverdicts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->verdict_run[mid] < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nverdicts && s->verdict_run[lo] == run_id ? &s->verdict[lo] : NULL;
}
