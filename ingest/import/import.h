/* import.h - other tools' benchmark results as solbook.result.v1 runs.
 *
 * Formats (docs/IMPORT.md says field by field what becomes what):
 *   liger-csv     Liger-Kernel benchmark CSV (benchmark/data/ in its repository)
 *   nvbench-json  NVIDIA nvbench --json output
 *   gbench-json   Google Benchmark --benchmark_format=json output
 *   pytest-benchmark-json  pytest --benchmark-json output
 *   hyperfine-json         hyperfine --export-json output
 *   asv-json               asv results, file version 2
 *   torch-benchmark-json   bench/scripts/torch_benchmark_dump.py output
 *   triton-perf-csv        the CSV triton.testing.perf_report writes (lossy:
 *                          one rounded figure a case; never told by content)
 *
 * Each file is stored in one transaction (sb_ingest_begin/commit), the
 * documents going in as they are made: a malformed row refuses the file
 * with an error naming its line (CSV) or JSON pointer, the transaction is
 * rolled back, and nothing from the file is stored.
 */
#ifndef SOLBOOK_INGEST_IMPORT_H
#define SOLBOOK_INGEST_IMPORT_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "ingest.h"

typedef struct sb_import_stats {
    long rows;            /* CSV records / JSON entries read */
    long duplicate_rows;  /* rows repeating an earlier row exactly (ignored) */
    long runs;            /* result documents made from the file */
    long skipped_runs;    /* of those, status "skipped" */
    long stored;          /* new runs written */
    long duplicates;      /* runs whose content was already stored */
} sb_import_stats;

/* What the file cannot say for itself. Every field may be NULL. */
typedef struct sb_import_options {
    const char *suite;        /* config.suite; default per format: liger-bench, nvbench, gbench */
    const char *provider;     /* nvbench/gbench config.provider; default nvbench / gbench */
    const char *dtype;        /* dtype when the file gives none (fp32, bf16, ...) */
    const char *skus_csv;     /* SKU table; NULL: SOLBOOK_HOME/data/skus.csv */
    const char *op_names_csv; /* op-name table; NULL: SOLBOOK_HOME/data/import_op_names.csv */
    const char *commit;       /* provenance.git.sha of every run (40 hex digits): the
                               * commit the results were measured at; NULL: unknown */
    const char *branch;       /* provenance.git.branch, with commit; NULL: none */
    /* triton-perf-csv: what its figures are, which the file does not say:
     * y_unit "ms", "us", "s" or "ns"; y_stat "median" or "mean" (both
     * required); x_cols the number of x columns before the providers'
     * (0: 1). */
    const char *y_unit, *y_stat;
    int x_cols;
    int in_batch;             /* 1: the caller holds a batch (sb_ingest_begin, as
                               * `ingest --strict` does): the file goes into a
                               * savepoint inside it instead of its own transaction */
} sb_import_options;

/* The format names, NULL-terminated, in the order above. */
extern const char *const sb_import_formats[];

/* 1 when name is one of sb_import_formats. */
int sb_import_format_known(const char *name);

/* Tells the format of path by its content: a CSV whose header has Liger's
 * columns; JSON with "context" and "benchmarks" (Google Benchmark); JSON
 * whose "benchmarks" entries have "states" (nvbench); JSON with a "schema"
 * of "solbook.*" gives "solbook" (a native file, for sb_ingest). *format
 * points to a static string. Fails, naming the file, when it cannot tell. */
int sb_import_detect(const char *path, const char **format, sb_error *err);

/* Converts path to a JSON array of solbook.result.v1 documents without
 * storing anything (also used by tests and for inspection). opts may be
 * NULL. st may be NULL; it receives rows, duplicate_rows, runs and
 * skipped_runs. */
int sb_import_convert(const char *path, const char *format,
                      const sb_import_options *opts, json_t **docs,
                      sb_import_stats *st, sb_error *err);

/* Converts path and stores every document through sb_ingest_document in
 * one transaction (opts->in_batch: one savepoint in the caller's batch).
 * format NULL: detected. On error nothing from the file is stored. st may
 * be NULL; its counters are added to, not reset. */
int sb_import_file(sb_ingest *ing, const char *path, const char *format,
                   sb_import_stats *st, sb_error *err);
int sb_import_file_opts(sb_ingest *ing, const char *path, const char *format,
                        const sb_import_options *opts, sb_import_stats *st,
                        sb_error *err);

#endif
