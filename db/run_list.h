/* run_list.h - selecting stored runs by filters, newest first within a
 * limit and handed back oldest first: the rows of `solbook runs`. */
#ifndef SOLBOOK_DB_RUN_LIST_H
#define SOLBOOK_DB_RUN_LIST_H

#include <stddef.h>

#include "error.h"
#include "store.h"

/* NULL fields match anything. */
typedef struct sb_run_filter {
    const char *arch, *sku, *op, *provider, *status, *mode, *dtype, *suite;
    const char *sha;        /* a prefix of provenance.git_sha */
    const char *shape_key;  /* configs.shape_key, names in byte order */
    /* Each params_json NAME must equal its VALUE: a number compares as a
     * number, true/false as 1/0, anything else as text. NAMEs hold no
     * JSON path characters (the caller checks). At most SB_RUN_FILTER_PARAMS. */
    const char *const *param_names, *const *param_values;
    size_t nparams;
    long limit;             /* only the newest N; 0: all */
} sb_run_filter;

#define SB_RUN_FILTER_PARAMS 16

/* One run; text is NULL where the run has no value (a calibration has no
 * op, a result no model). Valid until the next sb_run_list_next. */
typedef struct sb_run_row {
    long long id;
    const char *finished_at, *arch, *sku, *git_sha, *schema, *op, *mode, *provider, *dtype,
        *shape_key, *status, *model_name, *suite, *params_json, *profiler, *git_branch;
    int has_median;          /* median_ms: metrics.median_ms, else training.median_step_ms */
    double median_ms;
    int has_sample_count;
    long long sample_count;
} sb_run_row;

typedef struct sb_run_list sb_run_list;

/* Prepares the selection ("cannot query runs" on failure). */
int sb_run_list_open(sb_db *db, const sb_run_filter *f, sb_run_list **out, sb_error *err);
/* 1 and *row filled for the next run, 0 at the end, SB_ERR on a failed
 * read ("cannot read runs"). */
int sb_run_list_next(sb_run_list *l, sb_run_row *row, sb_error *err);
void sb_run_list_close(sb_run_list *l);   /* accepts NULL */

#endif
