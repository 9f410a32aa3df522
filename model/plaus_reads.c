/* plaus_reads.c - the stored verdicts' states (plaus_reads.h). */
#include "plaus_reads.h"

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
