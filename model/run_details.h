/* run_details.h - what a report reads of a few runs beyond their stored
 * row: the values of named profiler metrics of each run, launch by
 * launch; the values of named columns of its metrics row; the SM clock
 * recorded after each repeat with the throttle reasons; and how many runs
 * were made on cards of each named arch. A report names what it reads in
 * an ask (sb_details_ask; report/gate.h, note.h and evidence.h fill one),
 * db/run_details_read.h reads that into an sb_run_details, and the report
 * takes it from its caller instead of querying. Nothing here reads the
 * database.
 */
#ifndef SOLBOOK_MODEL_RUN_DETAILS_H
#define SOLBOOK_MODEL_RUN_DETAILS_H

#include <stddef.h>

#include "error.h"

/* What to read: the runs (each once), the profiler metrics and the
 * metrics columns of each run, whether their repeat clocks, and the
 * archs whose runs to count (each once).
 * Zero-initialise; free with sb_details_ask_free. */
typedef struct sb_details_ask {
    long long *runs;
    size_t nruns, cap_runs;
    const char *const *metrics; /* a static list, nmetrics long */
    size_t nmetrics;
    const char *const *columns; /* a static list of metrics columns, ncolumns long */
    size_t ncolumns;
    int clocks;
    char **archs;
    size_t narchs, cap_archs;
} sb_details_ask;

int sb_details_ask_run(sb_details_ask *a, long long run_id, sb_error *err);
int sb_details_ask_arch(sb_details_ask *a, const char *arch, sb_error *err);
void sb_details_ask_free(sb_details_ask *a);

/* The clocks of one run's repeats: "1335/1335/..." ("?" for a repeat
 * without one; "" when none were recorded), the distinct throttle
 * reasons ", "-separated, whether one is a power reason, and the card's
 * power limit (NAN when not recorded). */
typedef struct sb_run_clocks {
    char *clocks, *reasons;
    int power_capped;
    double power_limit_w;
} sb_run_clocks;

typedef struct sb_run_details sb_run_details;

/* Filling: an empty set of details (NULL: out of memory). */
sb_run_details *sb_run_details_new(void);
/* One value of metric for run_id, after the run's earlier values of it
 * (launch order); unit may be NULL. */
int sb_run_details_add_value(sb_run_details *d, long long run_id, const char *metric,
                             double value, const char *unit, sb_error *err);
/* The value of a metrics column of run_id (NAN: NULL). */
int sb_run_details_set_column(sb_run_details *d, long long run_id, const char *column, double value,
                              sb_error *err);
/* The clocks of run_id, which d owns from then on (also when this fails). */
int sb_run_details_set_clocks(sb_run_details *d, long long run_id, sb_run_clocks c, sb_error *err);
int sb_run_details_set_arch_runs(sb_run_details *d, const char *arch, long long n, sb_error *err);
void sb_run_details_free(sb_run_details *d); /* accepts NULL */

/* Reading: the values of metric for run_id in launch order, their number
 * returned (0: none read), with *unit the unit of the last ("" when none
 * was stored). Valid until sb_run_details_free. */
size_t sb_run_details_values(const sb_run_details *d, long long run_id, const char *metric,
                             const double **v, const char **unit);
/* The value of a metrics column of run_id; NAN when NULL or not read. */
double sb_run_details_column(const sb_run_details *d, long long run_id, const char *column);
/* The clocks of run_id; NULL when they were not read. */
const sb_run_clocks *sb_run_details_clocks(const sb_run_details *d, long long run_id);
/* How many runs were made on cards of arch; -1 when it was not read. */
long long sb_run_details_arch_runs(const sb_run_details *d, const char *arch);

#endif
