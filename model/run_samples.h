/* run_samples.h - the stored samples of a few runs, by run id, as a
 * report takes them from its caller: the claims check computes a cited
 * step again from them (report/claims.h). Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_RUN_SAMPLES_H
#define SOLBOOK_MODEL_RUN_SAMPLES_H

#include <stddef.h>

#include "error.h"

typedef struct sb_run_samples {
    long long *run_id; /* ascending, each once */
    double **v;        /* the samples of run_id[i], n[i] of them */
    size_t *n;
    size_t count;
} sb_run_samples;

void sb_run_samples_free(sb_run_samples *s); /* leaves it empty */
/* Adds run_id's samples, taking v over (freed on error too); run ids come
 * in ascending order. */
int sb_run_samples_add(sb_run_samples *s, long long run_id, double *v, size_t n, sb_error *err);
/* 1 with the samples of run_id in *v and *n; 0 when they were not read. */
int sb_run_samples_of(const sb_run_samples *s, long long run_id, const double **v, size_t *n);

#endif
