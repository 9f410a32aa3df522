/* run_reader_db.c - a run reader on a database connection
 * (run_reader_db.h). */
#include "run_reader_db.h"

#include <string.h>

#include "results_query.h"
#include "run_query.h"

static int read_samples(void *ctx, long long run_id, double **v, size_t *n, sb_error *err)
{
    return sb_samples_load(ctx, run_id, v, n, err);
}

static int read_kernel_samples(void *ctx, long long run_id, char **json, sb_error *err)
{
    return sb_kernel_samples_text(ctx, run_id, json, err);
}

static int read_raw_json(void *ctx, long long run_id, sb_buf *out, sb_error *err)
{
    return sb_run_raw_json(ctx, run_id, out, err);
}

void sb_run_reader_db(sb_db *db, sb_run_reader *rd)
{
    memset(rd, 0, sizeof *rd);
    rd->ctx = db;
    rd->samples = read_samples;
    rd->kernel_samples = read_kernel_samples;
    rd->raw_json = read_raw_json;
}
