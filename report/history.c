/* history.c - the steps of a case's history in run id order (history.h). */
#include "history.h"

#include <stdlib.h>

static int cmp_step(const void *x, const void *y)
{
    long long a = (*(const sb_rg_row *const *)x)->new_run->run_id;
    long long b = (*(const sb_rg_row *const *)y)->new_run->run_id;
    return (a > b) - (a < b);
}

void sb_history_sort_steps(const sb_rg_row **steps, size_t n)
{
    qsort(steps, n, sizeof *steps, cmp_step);
}
