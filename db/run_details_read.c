/* run_details_read.c - a report's run details, filled from the database
 * (run_details_read.h). */
#include "run_details_read.h"

#include <stdlib.h>
#include <string.h>

#include "results_query.h"
#include "run_query.h"

typedef struct value_ctx {
    sb_run_details *d;
    long long run_id;
    const char *const *metrics;
    int rc;
    sb_error *err;
} value_ctx;

static void add_value(void *ctx, size_t metric, double value, const char *unit)
{
    value_ctx *c = ctx;
    if (c->rc == SB_OK)
        c->rc = sb_run_details_add_value(c->d, c->run_id, c->metrics[metric], value, unit, c->err);
}

static int run_read(sb_db *db, const sb_details_ask *ask, long long run_id, sb_run_details *d,
                    sb_error *err)
{
    value_ctx c = {d, run_id, ask->metrics, SB_OK, err};
    if (ask->nmetrics && sb_run_profiler_values(db, run_id, ask->metrics, ask->nmetrics, add_value,
                                                &c, err) != SB_OK)
        return SB_ERR;
    if (c.rc != SB_OK)
        return c.rc;
    for (size_t i = 0; i < ask->ncolumns; i++)
        if (sb_run_details_set_column(d, run_id, ask->columns[i],
                                      sb_run_metric(db, run_id, ask->columns[i]), err) != SB_OK)
            return SB_ERR;
    if (!ask->clocks)
        return SB_OK;
    sb_buf clocks = SB_BUF_INIT, reasons = SB_BUF_INIT;
    sb_run_clocks rc = {0};
    if (sb_repeat_clocks(db, run_id, &clocks, &reasons, &rc.power_capped, &rc.power_limit_w,
                         err) != SB_OK) {
        sb_buf_free(&clocks);
        sb_buf_free(&reasons);
        return SB_ERR;
    }
    rc.clocks = strdup(sb_buf_str(&clocks));
    rc.reasons = strdup(sb_buf_str(&reasons));
    sb_buf_free(&clocks);
    sb_buf_free(&reasons);
    return sb_run_details_set_clocks(d, run_id, rc, err);
}

int sb_run_details_read(sb_db *db, const sb_details_ask *ask, sb_run_details **out, sb_error *err)
{
    *out = NULL;
    sb_run_details *d = sb_run_details_new();
    if (!d)
        return sb_error_set(err, sb_db_path(db), NULL, "out of memory reading the runs' details");
    for (size_t i = 0; i < ask->nruns; i++)
        if (run_read(db, ask, ask->runs[i], d, err) != SB_OK) {
            sb_run_details_free(d);
            return SB_ERR;
        }
    for (size_t i = 0; i < ask->narchs; i++) {
        long long n = 0;
        if (sb_runs_on_arch(db, ask->archs[i], &n, err) != SB_OK ||
            sb_run_details_set_arch_runs(d, ask->archs[i], n, err) != SB_OK) {
            sb_run_details_free(d);
            return SB_ERR;
        }
    }
    *out = d;
    return SB_OK;
}
