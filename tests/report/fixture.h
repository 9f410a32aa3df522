/* fixture.h - crafted solbook databases for the report tests: the real
 * migrations (every .sql file of SOLBOOK_HOME/db/migrations) applied to a new SQLite
 * file, then rows inserted exactly as a test describes them. */
#ifndef SOLBOOK_TESTS_REPORT_FIXTURE_H
#define SOLBOOK_TESTS_REPORT_FIXTURE_H

#include <stddef.h>

#include "store.h"

typedef struct fx_result {
    const char *suite, *op, *mode, *provider, *dtype, *shape_key; /* defaults: adhoc gemm fwd - fp16 - */
    const char *status;        /* default "passed" */
    int failed_correctness;    /* 1: correctness.passed = 0 */
    const char *sku, *arch, *gpu, *git_sha, *finished_at, *driver;
    double median_ms;          /* 0: median of samples */
    double flops, bytes;       /* 0: NULL */
    const double *samples;
    size_t nsamples;
    int quantiles_only;
    long long warmup, iters, repeats; /* 0: 10, 50, 5 */
    const char *tool;          /* default "solbench" */
    const char *profiler;      /* configs.profiler; default NULL (a plain timing) */
    const char *gpu_uuid;      /* provenance.device.uuid of the stored document; default none */
    const char *packages;      /* provenance.packages_json; default "{}" */
} fx_result;

/* Creates path (removed first) with every migration applied. Aborts the
 * test process with a message on failure. The handle is db/'s, as the
 * report functions take it; the fixture writes through its connection. */
sb_db *fx_create(const char *path);
/* Opens a database fx_create made, to add rows to it (no checks, no
 * migrations); aborts the test process on failure. */
sb_db *fx_open(const char *path);
long long fx_add_result(sb_db *db, const fx_result *r);
/* Attaches n of the six SOL metrics (in SB_NCU_SOL_METRICS order). */
void fx_add_ncu(sb_db *db, long long run_id, int n);
long long fx_add_calibration(sb_db *db, const char *sku, const char *arch,
                             const char *finished_at, double copy_gbps, double gemm_fp16_tflops);
long long fx_add_training(sb_db *db, const char *sku, const char *arch, const char *finished_at,
                          double tokens_per_s, double step_ms);
/* A new directory for a test's files, /tmp/sb-PREFIX-XXXXXX, into dir
 * (room for size); and its removal with everything in it. 0 or -1, as
 * cmocka's group setup and teardown return. */
int fx_tmpdir_make(char *dir, size_t size, const char *prefix);
int fx_tmpdir_remove(const char *dir);
/* Runs one SQL statement; aborts the test process with a message on
 * failure. */
void fx_exec(sb_db *db, const char *sql);
/* "K=4096,M=4096,N=4096" -> {"K":4096,...} canonical JSON (malloc'd). */
char *fx_shape_json(const char *shape_key);

/* A standard data set used by several tests and the CLI script test:
 * see fixture.c (fx_standard) for exactly what it holds. */
void fx_standard(sb_db *db);

#endif
