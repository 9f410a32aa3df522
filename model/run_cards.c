/* run_cards.c - freeing and looking up the cards of runs (run_cards.h). */
#include "run_cards.h"

#include <stdlib.h>
#include <string.h>

void sb_run_devices_free(sb_run_devices *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->uuid[i]);
    free(d->uuid);
    free(d->run_id);
    memset(d, 0, sizeof *d);
}

const char *sb_run_device(const sb_run_devices *d, long long run_id)
{
    /* Run ids are mostly dense, and a walk over a million runs asks for
     * each: where the ids from the first one have no gap up to run_id,
     * it sits at its offset, with no search. */
    if (d->n && run_id >= d->run_id[0] && (unsigned long long)(run_id - d->run_id[0]) < d->n &&
        d->run_id[run_id - d->run_id[0]] == run_id)
        return d->uuid[run_id - d->run_id[0]];
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->run_id[mid] < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->n && d->run_id[lo] == run_id ? d->uuid[lo] : NULL;
}
