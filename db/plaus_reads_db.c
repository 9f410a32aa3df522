/* plaus_reads_db.c - the plausibility check's reads on a connection
 * (plaus_reads_db.h). */
#include "plaus_reads_db.h"

#include <string.h>

#include "results_query.h"
#include "run_devices.h"
#include "run_verdicts.h"
#include "session_query.h"

static int read_calibrations(void *ctx, const char *sku, sb_calibration **out, size_t *n, sb_error *err)
{
    return sb_calibrations_load(ctx, sku, out, n, err);
}

static int read_devices(void *ctx, const long long *ids, size_t n, sb_run_devices *out, sb_error *err)
{
    return ids ? sb_run_devices_load_ids(ctx, ids, n, out, err) : sb_run_devices_load(ctx, out, err);
}

static int read_digest(void *ctx, long long upto, char hex[65], long long *last, sb_error *err)
{
    return sb_verdicts_calibrations_digest(ctx, upto, hex, last, err);
}

static int read_basis(void *ctx, sb_verdict_basis *b, int *found, sb_error *err)
{
    return sb_verdicts_basis_read(ctx, b, found, err);
}

static int read_states_ids(void *ctx, const long long *ids, size_t n, sb_verdict_states *out, sb_error *err)
{
    return sb_verdict_states_load_ids(ctx, ids, n, out, err);
}

static int open_verdicts(void *ctx, void **out, sb_error *err)
{
    sb_verdict_reader *r = NULL;
    int rc = sb_verdict_reader_open(ctx, &r, err);
    *out = r;
    return rc;
}

static int read_verdict(void *reader, long long run_id, sb_plaus_verdict *v, int *found, sb_error *err)
{
    return sb_verdict_read(reader, run_id, v, found, err);
}

static void close_verdicts(void *reader)
{
    sb_verdict_reader_close(reader);
}

static int read_results(void *ctx, const sb_result_filter *f, sb_result_set *out, sb_error *err)
{
    return sb_results_load(ctx, f, out, err);
}

static int read_session_runs(void *ctx, const char *const *ids, size_t n, sb_session_runs *out, sb_error *err)
{
    return sb_session_runs_load(ctx, ids, n, out, err);
}

const sb_plaus_reads *sb_plaus_reads_db(sb_db *db, sb_plaus_reads *rd)
{
    memset(rd, 0, sizeof *rd);
    rd->ctx = db;
    rd->calibrations = read_calibrations;
    rd->devices = read_devices;
    rd->calibrations_digest = read_digest;
    rd->basis = read_basis;
    rd->states_ids = read_states_ids;
    rd->verdicts_open = open_verdicts;
    rd->verdict = read_verdict;
    rd->verdicts_close = close_verdicts;
    rd->results = read_results;
    rd->session_runs = read_session_runs;
    return rd;
}
