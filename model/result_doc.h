/* result_doc.h - the one writer of solbook.result.v1
 * (data/schemas/solbook.result.v1.json): solbench (bench/result.c), forge
 * (forge/bench.c) and the importers (ingest/import_common.c) each fill an
 * sb_result_doc with what they know, and the document, its timing object
 * and the statistics of its samples (stats.h, sb_sample_stats_of) come
 * from here, so that the same samples give the same numbers whoever
 * measured them. Nothing here reads or writes a file.
 */
#ifndef SOLBOOK_MODEL_RESULT_DOC_H
#define SOLBOOK_MODEL_RESULT_DOC_H

#include <jansson.h>
#include <stddef.h>

#include "stats.h"

#define SB_RESULT_SCHEMA "solbook.result.v1"

/* The schema's stats object of s: every field, repeat_median_rel_spread
 * null where s has none. NULL when out of memory. */
json_t *sb_result_stats_json(const sb_sample_stats *s);

/* The timing object of samples in ms laid out repeat after repeat
 * (per_repeat[r] in repeat r, as sb_sample_stats_of takes them): unit
 * "ms", samples as one array a repeat, and their stats. The median goes
 * to *median_ms when that is not NULL. NULL when there are no samples or
 * memory runs out. */
json_t *sb_result_timing(const double *samples, const size_t *per_repeat, size_t repeats,
                         double *median_ms);

/* Adds to timing the SM clock each sample ran at, in MHz, laid out as
 * its samples are (timing.sample_sm_clock_mhz, parallel to samples).
 * -1 when memory runs out, 0 otherwise. */
int sb_result_timing_add_clocks(json_t *timing, const double *mhz, const size_t *per_repeat, size_t repeats);

/* The timing object of a samples array as JSON holds it (one array of
 * numbers a repeat, the harness output of forge). NULL when samples is
 * not such an array, holds no number, or memory runs out. */
json_t *sb_result_timing_of_json(const json_t *samples, double *median_ms);

/* The statistics of a timing whose source kept summaries only, no
 * samples (an importer's aggregates), in ms: NAN where the source gave
 * none, count -1. sb_summary_stats_none() has none of them. */
typedef struct sb_summary_stats {
    long long count;
    double mean, median, min, max, p20, p80, stdev;
    double rel_noise; /* the spread over the mean as the source gave it */
} sb_summary_stats;

sb_summary_stats sb_summary_stats_none(void);

/* The timing object of such a source: unit "ms", quantiles_only, and a
 * stats object of the statistics s has. NULL when memory runs out. */
json_t *sb_result_timing_summary(const sb_summary_stats *s);

/* One result as its writers know it. The json_t members belong to the
 * document once sb_result_doc_json has it; a NULL member is left out
 * (config, protocol and provenance are required). */
typedef struct sb_result_doc {
    const char *run_uuid; /* NULL: left out (an imported run gets one when stored) */
    const char *status;   /* passed | failed | skipped */
    const char *reason;   /* NULL: left out */
    json_t *config, *protocol;
    json_t *timing;       /* sb_result_timing's, with any keys the writer adds */
    json_t *metrics, *memory, *correctness, *determinism;
    const char *notes;    /* NULL or "": left out */
    json_t *source, *provenance;
} sb_result_doc;

/* The document, its keys in the schema's order. Takes every json_t
 * member of d, also when it fails. NULL when config, protocol,
 * provenance or status is missing, or memory runs out. */
json_t *sb_result_doc_json(sb_result_doc *d);

#endif
