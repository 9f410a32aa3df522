/* calibration.c - calibration runs as values, and which of their
 * ceilings a report may use (calibration.h). */
#include "calibration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_calibrations_free(sb_calibration *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].ceilings);
    free(v);
}

double sb_ceiling_datasheet(const sb_sku *row, const char *name)
{
    double x = 0;
    if (!row || !name)
        return 0;
    if (!strncmp(name, "bw.", 3))
        x = row->hbm_tbps * 1000.0;
    else if (!strncmp(name, "gemm.", 5))
        x = sb_sku_peak_tflops(row, name + 5);
    return isfinite(x) && x > 0 ? x : 0;
}

int sb_ceiling_credible(const sb_sku *row, const char *name, double value)
{
    if (!isfinite(value) || value <= 0)
        return 0;
    double sheet = sb_ceiling_datasheet(row, name);
    return sheet == 0 ||
           (value >= SB_CEILING_CREDIBLE_LOW * sheet && value <= SB_CEILING_CREDIBLE_HIGH * sheet);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const sb_ceiling *)a)->name, ((const sb_ceiling *)b)->name);
}

static int chosen_has(const sb_ceiling *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return 1;
    return 0;
}

int sb_ceilings_choose(const char *sku, const sb_sku *row, const sb_calibration *cals, size_t ncals,
                       sb_ceiling **chosen, size_t *nchosen, long long *newest,
                       sb_ceiling_aside **aside, size_t *naside)
{
    size_t total = 0;
    for (size_t i = 0; i < ncals; i++)
        total += cals[i].n;
    *chosen = NULL;
    *aside = NULL;
    *nchosen = *naside = 0;
    *newest = -1;
    if (total == 0)
        return 0;
    sb_ceiling *c = malloc(total * sizeof *c);
    sb_ceiling_aside *a = malloc(total * sizeof *a);
    if (!c || !a) {
        free(c);
        free(a);
        return -1;
    }
    size_t nc = 0, na = 0;
    for (size_t i = 0; i < ncals; i++)
        for (size_t j = 0; j < cals[i].n; j++) {
            sb_ceiling x = cals[i].ceilings[j];
            x.run_id = cals[i].run_id;
            if (!sb_ceiling_credible(row, x.name, x.value)) {
                sb_ceiling_aside *s = &a[na++];
                memset(s, 0, sizeof *s);
                snprintf(s->sku, sizeof s->sku, "%s", sku ? sku : "");
                s->ceiling = x;
                s->datasheet = sb_ceiling_datasheet(row, x.name);
            } else if (!chosen_has(c, nc, x.name)) {
                c[nc++] = x;
                if (*newest < 0)
                    *newest = x.run_id;
            }
        }
    if (nc)
        qsort(c, nc, sizeof *c, by_name);
    else {
        free(c);
        c = NULL;
    }
    if (!na) {
        free(a);
        a = NULL;
    }
    *chosen = c;
    *nchosen = nc;
    *aside = a;
    *naside = na;
    return 0;
}
