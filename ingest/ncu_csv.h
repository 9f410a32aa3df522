/* ncu_csv.h - Nsight Compute raw CSV (`ncu --csv --page raw`) parsing.
 *
 * Layout: a header row of column names ("ID", "Process ID", ..., "Kernel
 * Name", ..., then metric names such as gpu__time_duration.sum), a units
 * row (empty cells for the identification columns, "%", "byte", "nsecond",
 * ... for metrics), then one row per profiled kernel launch. Cells may be
 * quoted and numbers may carry thousands separators ("1,234.5").
 *
 * Lines before the header (ncu's ==PROF== messages and the application's
 * own output when stdout was redirected) are skipped. Metric columns are
 * the ones whose name has ncu's "unit__counter" form (contains "__"). A
 * cell that is empty or "n/a" has no value. A non-numeric cell in one of
 * the speed-of-light metrics (SB_NCU_SOL_METRICS) is an error; other
 * metrics with text values (cache config names and such) are left out.
 * Values and units are kept as ncu wrote them (no unit conversion).
 */
#ifndef SOLBOOK_INGEST_NCU_CSV_H
#define SOLBOOK_INGEST_NCU_CSV_H

#include <stddef.h>

#include "error.h"

/* The speed-of-light metrics solbook reads from every profile. */
extern const char *const SB_NCU_SOL_METRICS[];
#define SB_NCU_SOL_METRIC_COUNT 6

typedef struct sb_ncu_value {
    size_t kernel;   /* index into kernel_names: launch order, from 0 */
    size_t metric;   /* index into metric_names/metric_units */
    double value;
} sb_ncu_value;

typedef struct sb_ncu_profile {
    size_t n_kernels;
    char **kernel_names;
    long long *kernel_ids;   /* ncu's "ID" column */
    size_t n_metrics;
    char **metric_names;
    char **metric_units;     /* "" where the units row left it empty */
    size_t n_values;
    sb_ncu_value *values;    /* by kernel, then by column order */
} sb_ncu_profile;

/* One kernel row as sb_ncu_csv_each hands it out: valid during the call. */
typedef struct sb_ncu_row {
    size_t kernel;                   /* launch order, from 0 */
    long long kernel_id;             /* ncu's "ID" column */
    const char *kernel_name;
    size_t n_metrics;                /* every metric column of the header */
    const char *const *metric_names; /* by metric index */
    const char *const *metric_units; /* "" where the units row left it empty */
    size_t n_values;
    const sb_ncu_value *values;      /* this row's, in column order */
} sb_ncu_row;

/* Return SB_OK to go on, or SB_ERR with err filled to stop. */
typedef int (*sb_ncu_row_fn)(void *ctx, const sb_ncu_row *row, sb_error *err);

/* Reads buf record by record and calls fn for each kernel row, holding
 * one record at a time (memory does not grow with the rows: a sidecar is
 * stored as it is read, ingest.h). Errors as sb_ncu_csv_parse_buffer's;
 * one found after some rows comes after their calls. */
int sb_ncu_csv_each(const char *buf, size_t len, const char *name, sb_ncu_row_fn fn, void *ctx,
                    sb_error *err);

/* Parses a whole buffer; name is used in errors. Errors name the line (and
 * the CSV row) and leave *out NULL. */
int sb_ncu_csv_parse_buffer(const char *buf, size_t len, const char *name,
                            sb_ncu_profile **out, sb_error *err);
int sb_ncu_csv_parse_file(const char *path, sb_ncu_profile **out, sb_error *err);
void sb_ncu_profile_free(sb_ncu_profile *p);

/* The value of metric for kernel, or NULL when absent. */
const sb_ncu_value *sb_ncu_profile_find(const sb_ncu_profile *p, size_t kernel,
                                        const char *metric);

/* Parses an ncu number cell: optional sign, digits with optional thousands
 * separators, fraction, exponent. SB_OK with *out set, or SB_ERR. */
int sb_ncu_parse_number(const char *cell, double *out);

#endif
