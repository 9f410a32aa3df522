/* result_doc.c - the solbook.result.v1 document and its statistics
 * (result_doc.h). */
#include "result_doc.h"

#include <math.h>
#include <stdlib.h>

json_t *sb_result_stats_json(const sb_sample_stats *s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "count", json_integer((json_int_t)s->count));
    json_object_set_new(o, "min", json_real(s->min));
    json_object_set_new(o, "p20", json_real(s->p20));
    json_object_set_new(o, "median", json_real(s->median));
    json_object_set_new(o, "p80", json_real(s->p80));
    json_object_set_new(o, "max", json_real(s->max));
    json_object_set_new(o, "mean", json_real(s->mean));
    json_object_set_new(o, "stdev", json_real(s->stdev));
    json_object_set_new(o, "rel_noise", json_real(s->rel_noise));
    json_object_set_new(o, "repeat_median_rel_spread",
                        isnan(s->repeat_spread) ? json_null() : json_real(s->repeat_spread));
    return o;
}

/* values laid out repeat after repeat as one array a repeat; NULL when
 * memory runs out. */
static json_t *repeat_rows(const double *values, const size_t *per_repeat, size_t repeats)
{
    json_t *rows = json_array();
    for (size_t r = 0, k = 0; rows && r < repeats; r++) {
        json_t *row = json_array();
        for (size_t i = 0; row && i < per_repeat[r]; i++)
            json_array_append_new(row, json_real(values[k++]));
        if (!row || json_array_append_new(rows, row) != 0) {
            json_decref(rows);
            rows = NULL;
        }
    }
    return rows;
}

json_t *sb_result_timing(const double *samples, const size_t *per_repeat, size_t repeats,
                         double *median_ms)
{
    sb_sample_stats st;
    if (sb_sample_stats_of(samples, per_repeat, repeats, &st) != 0)
        return NULL;
    json_t *rows = repeat_rows(samples, per_repeat, repeats);
    json_t *stats = sb_result_stats_json(&st);
    json_t *timing = json_object();
    if (!rows || !stats || !timing) {
        json_decref(rows);
        json_decref(stats);
        json_decref(timing);
        return NULL;
    }
    json_object_set_new(timing, "unit", json_string("ms"));
    json_object_set_new(timing, "samples", rows);
    json_object_set_new(timing, "stats", stats);
    if (median_ms)
        *median_ms = st.median;
    return timing;
}

int sb_result_timing_add_clocks(json_t *timing, const double *mhz, const size_t *per_repeat, size_t repeats)
{
    json_t *rows = repeat_rows(mhz, per_repeat, repeats);
    return rows && json_object_set_new(timing, "sample_sm_clock_mhz", rows) == 0 ? 0 : -1;
}

sb_summary_stats sb_summary_stats_none(void)
{
    return (sb_summary_stats){-1, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
}

json_t *sb_result_timing_summary(const sb_summary_stats *s)
{
    json_t *stats = json_object();
    if (!stats)
        return NULL;
    if (s->count >= 0)
        json_object_set_new(stats, "count", json_integer((json_int_t)s->count));
    const struct {
        const char *key;
        double v;
    } given[] = {{"mean", s->mean}, {"median", s->median}, {"min", s->min}, {"max", s->max},
                 {"p20", s->p20},   {"p80", s->p80},       {"stdev", s->stdev}, {"rel_noise", s->rel_noise}};
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (!isnan(given[i].v))
            json_object_set_new(stats, given[i].key, json_real(given[i].v));
    return json_pack("{s:s, s:b, s:o}", "unit", "ms", "quantiles_only", 1, "stats", stats);
}

json_t *sb_result_timing_of_json(const json_t *samples, double *median_ms)
{
    if (!json_is_array(samples))
        return NULL;
    size_t repeats = json_array_size(samples), n = 0, r, i;
    json_t *rep, *x;
    json_array_foreach(samples, r, rep) {
        if (!json_is_array(rep))
            return NULL;
        n += json_array_size(rep);
    }
    double *v = malloc((n ? n : 1) * sizeof *v);
    size_t *per = malloc((repeats ? repeats : 1) * sizeof *per);
    json_t *timing = NULL;
    if (v && per) {
        size_t k = 0;
        int numbers = 1;
        json_array_foreach(samples, r, rep) {
            per[r] = json_array_size(rep);
            json_array_foreach(rep, i, x) {
                numbers &= json_is_number(x);
                v[k++] = json_number_value(x);
            }
        }
        if (numbers)
            timing = sb_result_timing(v, per, repeats, median_ms);
    }
    free(v);
    free(per);
    return timing;
}

/* Sets key to v (taken) unless v is NULL. */
static void put(json_t *doc, const char *key, json_t *v)
{
    if (v)
        json_object_set_new(doc, key, v);
}

json_t *sb_result_doc_json(sb_result_doc *d)
{
    json_t *doc = d->config && d->protocol && d->provenance && d->status ? json_object() : NULL;
    json_t **parts[] = {&d->config, &d->protocol, &d->timing, &d->metrics, &d->memory,
                        &d->correctness, &d->determinism, &d->source, &d->provenance};
    if (!doc) {
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            json_decref(*parts[i]);
            *parts[i] = NULL;
        }
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string(SB_RESULT_SCHEMA));
    if (d->run_uuid)
        json_object_set_new(doc, "run_uuid", json_string(d->run_uuid));
    json_object_set_new(doc, "status", json_string(d->status));
    if (d->reason)
        json_object_set_new(doc, "reason", json_string(d->reason));
    put(doc, "config", d->config);
    put(doc, "protocol", d->protocol);
    put(doc, "timing", d->timing);
    put(doc, "metrics", d->metrics);
    put(doc, "memory", d->memory);
    put(doc, "correctness", d->correctness);
    put(doc, "determinism", d->determinism);
    if (d->notes && *d->notes)
        json_object_set_new(doc, "notes", json_string(d->notes));
    put(doc, "source", d->source);
    put(doc, "provenance", d->provenance);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        *parts[i] = NULL;
    return doc;
}
