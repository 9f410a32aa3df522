/* plaus_snap.c - the plausibility snapshot and the stored verdicts'
 * states (plaus_snap.h). */
#include "plaus_snap.h"

#include <stdlib.h>
#include <string.h>

void sb_verdict_states_free(sb_verdict_states *s)
{
    free(s->run_id);
    free(s->state);
    memset(s, 0, sizeof *s);
}

static int id_cmp(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

int sb_verdict_state(const sb_verdict_states *s, long long run_id, sb_plaus_state *state)
{
    const long long *at = s->n ? bsearch(&run_id, s->run_id, s->n, sizeof *s->run_id, id_cmp) : NULL;
    if (!at)
        return 0;
    *state = s->state[at - s->run_id];
    return 1;
}

void sb_plaus_snap_free(sb_plaus_snap *s)
{
    sb_verdict_states_free(&s->states);
    free(s->verdict_run);
    free(s->verdict);
    sb_run_devices_free(&s->devices);
    sb_results_free(&s->session_results);
    for (size_t i = 0; i < s->ncals; i++) {
        free(s->cals[i].sku);
        sb_calibrations_free(s->cals[i].cals, s->cals[i].n);
    }
    free(s->cals);
    memset(s, 0, sizeof *s);
}

const sb_plaus_sku_cals *sb_plaus_snap_cals(const sb_plaus_snap *s, const char *sku)
{
    for (size_t i = 0; i < s->ncals; i++)
        if (!strcmp(s->cals[i].sku, sku))
            return &s->cals[i];
    return NULL;
}

const sb_plaus_verdict *sb_plaus_snap_verdict(const sb_plaus_snap *s, long long run_id)
{
    const long long *at =
        s->nverdicts ? bsearch(&run_id, s->verdict_run, s->nverdicts, sizeof *s->verdict_run, id_cmp) : NULL;
    return at ? &s->verdict[at - s->verdict_run] : NULL;
}
