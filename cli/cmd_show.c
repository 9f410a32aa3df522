/* cmd_show.c - `solbook show RUN`: one stored run in full. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "encode.h"
#include "error.h"
#include "home.h"
#include "run_record.h"
#include "stats.h"
#include "store.h"

static const char *const show_usage[] = {
    "solbook show [<options>] RUN",
    "",
    "Prints one stored run whole: provenance, config and protocol, statistics,",
    "derived metrics, correctness, training or ceilings, stored sample count, the",
    "SM clock the samples ran at where the run stored it (its range, the samples",
    "under 99% of the top clock, their correlation with time) and Nsight Compute",
    "metrics. RUN is a run id (see 'solbook runs'), the producer's run_uuid, or a",
    "prefix (8+ hex digits) of the content sha256.",
    NULL,
};

/* Resolves RUN to an id. 0 ok, 1 not found or ambiguous (err filled), 2 db error. */
static int resolve(sb_db *db, const char *arg, long long *id, sb_error *err)
{
    size_t n = strlen(arg);
    int digits = n > 0 && n < 19 && strspn(arg, "0123456789") == n;
    int hex = n >= 8 && n <= 64 && strspn(arg, "0123456789abcdef") == n;
    if (!digits && !hex) {
        sb_error_set(err, sb_db_path(db), NULL,
                     "'%s' is not a run id, run_uuid or sha256 prefix (8+ lowercase hex digits)", arg);
        return 1;
    }
    long long ids[6];
    size_t found;
    if (sb_run_ids_matching(db, digits, digits ? strtoll(arg, NULL, 10) : 0, hex ? arg : NULL, ids, 6,
                            &found, err) != SB_OK)
        return 2;
    char list[128] = "";
    size_t len = 0;
    for (size_t i = 0; i < found && len < sizeof list; i++) {
        if (i < 5)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", i ? ", " : "", ids[i]);
        else
            len += (size_t)snprintf(list + len, sizeof list - len, ", ...");
    }
    if (found == 0) {
        sb_error_set(err, sb_db_path(db), NULL, "no run %s", arg);
        return 1;
    }
    if (found > 1) {
        sb_error_set(err, sb_db_path(db), NULL, "'%s' matches runs %s; give the run id", arg, list);
        return 1;
    }
    *id = ids[0];
    return 0;
}

/* Stored text to the terminal: encoded (sb_enc_terminal), cut at limit
 * characters. */
static void print_text(const char *s, size_t limit)
{
    sb_buf b = SB_BUF_INIT;
    sb_enc_terminal(&b, s ? s : "", limit);
    fputs(sb_buf_str(&b), stdout);
    sb_buf_free(&b);
}

static void print_value(const sb_column_value *v)
{
    switch (v->type) {
    case SB_VALUE_INTEGER: printf("%lld", v->i); break;
    case SB_VALUE_FLOAT: printf("%.10g", v->d); break;
    default: print_text(v->s, SB_TEXT_NOTE_MAX); break;
    }
}

typedef struct table_print {
    const char *title;
    int rows;
} table_print;

static int print_row(void *ctx, const sb_column_value *cols, size_t ncols, sb_error *err)
{
    (void)err;
    table_print *t = ctx;
    if (!t->rows++)
        printf("\n%s\n", t->title);
    for (size_t c = 0; c < ncols; c++) {
        if (strcmp(cols[c].name, "run_id") == 0 || cols[c].type == SB_VALUE_NULL)
            continue;
        printf("  %-24s ", cols[c].name);
        print_value(&cols[c]);
        printf("\n");
    }
    return SB_OK;
}

/* Every non-NULL column of the table's row(s) for the run, as "name value". */
static int print_table(sb_db *db, const char *title, const char *table, long long id, sb_error *err)
{
    table_print t = {title, 0};
    return sb_run_table_rows(db, table, id, print_row, &t, err);
}

static int print_ceiling(void *ctx, const char *name, double value, const char *unit, sb_error *err)
{
    (void)err;
    int *any = ctx;
    if (!(*any)++)
        printf("\nmeasured ceilings\n");
    sb_buf nm = SB_BUF_INIT;
    sb_enc_terminal(&nm, name, SB_TEXT_NAME_MAX);
    printf("  %-24s %.6g ", sb_buf_str(&nm), value);
    sb_buf_free(&nm);
    print_text(unit, SB_TEXT_NAME_MAX);
    printf("\n");
    return SB_OK;
}

static int print_ceilings(sb_db *db, long long id, sb_error *err)
{
    int any = 0;
    return sb_run_ceilings(db, id, print_ceiling, &any, err);
}

static int print_samples(sb_db *db, long long id, sb_error *err)
{
    sb_samples_summary s;
    if (sb_run_samples_summary(db, id, &s, err) != SB_OK)
        return SB_ERR;
    printf("\nsamples\n  %-24s %lld", "stored", s.count);
    if (s.count)
        printf(" in %lld repeat%s (%.6g .. %.6g ms)", s.repeats, s.repeats == 1 ? "" : "s",
               s.min_ms, s.max_ms);
    printf("\n");
    return SB_OK;
}

/* The clock statistics of the run's samples (sb_clock_stats_of); SB_OK
 * with *has 0 when the run stored no clock per sample. */
static int sample_clock_stats(sb_db *db, long long id, sb_clock_stats *cs, int *has, sb_error *err)
{
    sb_sample_clocks c;
    *has = 0;
    if (sb_run_sample_clocks(db, id, &c, err) != SB_OK)
        return SB_ERR;
    if (c.n) {
        if (sb_clock_stats_of(c.ms, c.mhz, c.n, cs) != 0) {
            free(c.ms);
            free(c.mhz);
            return sb_error_set(err, sb_db_path(db), NULL, "out of memory");
        }
        *has = 1;
    }
    free(c.ms);
    free(c.mhz);
    return SB_OK;
}

/* Whether slow samples ran throttled: the clock range, the samples well
 * under the top clock with their median time, and how time follows the
 * clock. */
static int print_sample_clocks(sb_db *db, long long id, sb_error *err)
{
    sb_clock_stats cs;
    int has;
    if (sample_clock_stats(db, id, &cs, &has, err) != SB_OK)
        return SB_ERR;
    if (!has)
        return SB_OK;
    printf("  %-24s %.6g .. %.6g, median %.6g\n", "SM clock (MHz)", cs.min_mhz, cs.max_mhz, cs.median_mhz);
    printf("  %-24s %zu of %zu", "under 99% of top clock", cs.below, cs.count);
    if (cs.below && cs.below < cs.count)
        printf(" (median %.6g ms, the others %.6g ms)", cs.median_ms_below, cs.median_ms_top);
    printf("\n  %-24s ", "time-clock correlation");
    if (isnan(cs.time_clock_r))
        printf("none (%s constant)\n", cs.min_mhz == cs.max_mhz ? "clock" : "time");
    else
        printf("r = %.3f\n", cs.time_clock_r);
    return SB_OK;
}

static int print_profile_row(void *ctx, const sb_profiler_row *r, sb_error *err)
{
    (void)err;
    long long *kernel = ctx;
    if (*kernel == -1) {
        printf("\nNsight Compute metrics (");
        print_text(r->source_path, SB_TEXT_NOTE_MAX);
        printf(")\n");
    }
    if (r->kernel_index != *kernel) {
        printf("  kernel %lld: ", r->kernel_index);
        print_text(r->kernel_name, SB_TEXT_NOTE_MAX);
        printf("\n");
        *kernel = r->kernel_index;
    }
    sb_buf metric = SB_BUF_INIT;
    sb_enc_terminal(&metric, r->metric, SB_TEXT_NAME_MAX);
    printf("    %-66s %.10g%s", sb_buf_str(&metric), r->value, r->unit ? " " : "");
    sb_buf_free(&metric);
    print_text(r->unit, SB_TEXT_NAME_MAX);
    printf("\n");
    return SB_OK;
}

static int print_profile(sb_db *db, long long id, sb_error *err)
{
    long long kernel = -1;
    return sb_run_profiler_rows(db, id, print_profile_row, &kernel, err);
}

static int print_record(void *ctx, const sb_run_record *r, sb_error *err)
{
    (void)err;
    printf("run %lld (", *(const long long *)ctx);
    print_text(r->schema, SB_TEXT_NAME_MAX);
    printf(")\n");
    const struct {
        const char *name, *value;
    } fields[] = {{"status", r->status},           {"reason", r->reason},
                  {"run_uuid", r->run_uuid},       {"content_sha256", r->content_sha256},
                  {"source_path", r->source_path}, {"source_format", r->source_format},
                  {"ingested_at", r->ingested_at}, {"notes", r->notes}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].value) {
            printf("  %-24s ", fields[i].name);
            print_text(fields[i].value, SB_TEXT_NOTE_MAX);
            printf("\n");
        }
    return SB_OK;
}

static int show_text(sb_db *db, long long id, sb_error *err)
{
    if (sb_run_record_get(db, id, print_record, &id, err) != SB_OK ||
        print_table(db, "provenance", "provenance", id, err) != SB_OK ||
        print_table(db, "config and protocol", "configs", id, err) != SB_OK ||
        print_table(db, "statistics (ms) and metrics", "metrics", id, err) != SB_OK ||
        print_table(db, "correctness", "correctness", id, err) != SB_OK ||
        print_table(db, "training", "training", id, err) != SB_OK || print_ceilings(db, id, err) != SB_OK ||
        print_samples(db, id, err) != SB_OK || print_sample_clocks(db, id, err) != SB_OK ||
        print_profile(db, id, err) != SB_OK)
        return SB_ERR;
    return SB_OK;
}

typedef struct json_show {
    sb_db *db;
    long long id;
    json_t *out;
} json_show;

static int record_json(void *ctx, const sb_run_record *r, sb_error *err)
{
    json_show *j = ctx;
    json_error_t je;
    json_t *doc = json_loads(r->raw_json, 0, &je);
    if (!doc)
        return sb_error_set(err, sb_db_path(j->db), NULL, "run %lld: stored JSON does not parse: %s",
                            j->id, je.text);
    json_t *out = json_object();
    json_object_set_new(out, "id", json_integer(j->id));
    json_object_set_new(out, "content_sha256", json_string(r->content_sha256));
    json_object_set_new(out, "source_path", json_string(r->source_path));
    json_object_set_new(out, "source_format", json_string(r->source_format));
    json_object_set_new(out, "ingested_at", json_string(r->ingested_at));
    json_object_set_new(out, "stored_sample_count", json_integer(r->stored_samples));
    json_object_set_new(out, "document", doc);
    j->out = out;
    return SB_OK;
}

static int profile_json(void *ctx, const sb_profiler_row *r, sb_error *err)
{
    (void)err;
    json_array_append_new(
        ctx, json_pack("{s:I, s:s, s:s, s:o, s:f, s:s}", "kernel_index", (json_int_t)r->kernel_index,
                       "kernel_name", r->kernel_name, "metric", r->metric, "unit",
                       r->unit ? json_string(r->unit) : json_null(), "value", r->value,
                       "source_path", r->source_path));
    return SB_OK;
}

static int show_json(sb_db *db, long long id, sb_error *err)
{
    json_show j = {db, id, NULL};
    if (sb_run_record_get(db, id, record_json, &j, err) != SB_OK)
        return SB_ERR;
    json_t *out = j.out;
    json_t *prof = json_array();
    json_object_set_new(out, "profiler_metrics", prof);
    if (sb_run_profiler_rows(db, id, profile_json, prof, err) != SB_OK) {
        json_decref(out);
        return SB_ERR;
    }
    sb_clock_stats cs;
    int has;
    if (sample_clock_stats(db, id, &cs, &has, err) != SB_OK) {
        json_decref(out);
        return SB_ERR;
    }
    if (has) {
        json_t *c = json_pack("{s:I, s:f, s:f, s:f, s:I}", "count", (json_int_t)cs.count, "min_mhz", cs.min_mhz,
                              "median_mhz", cs.median_mhz, "max_mhz", cs.max_mhz, "below_top_clock",
                              (json_int_t)cs.below);
        json_object_set_new(c, "median_ms_below", isnan(cs.median_ms_below) ? json_null() : json_real(cs.median_ms_below));
        json_object_set_new(c, "median_ms_top", isnan(cs.median_ms_top) ? json_null() : json_real(cs.median_ms_top));
        json_object_set_new(c, "time_clock_r", isnan(cs.time_clock_r) ? json_null() : json_real(cs.time_clock_r));
        json_object_set_new(out, "sample_clocks", c);
    }
    /* ASCII only: no stored character reaches the terminal raw */
    char *s = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17) |
                                  JSON_ENSURE_ASCII);
    json_decref(out);
    if (!s)
        return sb_error_set(err, sb_db_path(db), NULL, "out of memory");
    printf("%s\n", s);
    free(s);
    return SB_OK;
}

int cmd_show(int argc, char **argv)
{
    const char *db_path = sb_default_db_path();
    int json = 0, exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('d', "db", &db_path, "path", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_BOOL('j', "json", &json, "the stored JSON document, plus the ncu metrics and sample clocks"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "show", options, show_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc != 1) {
        fprintf(stderr, "solbook show: give exactly one RUN; see 'solbook show --help'\n");
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_db *db;
    if (sb_db_open(db_path, SB_DB_READ, &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    long long id = 0;
    int rc = resolve(db, argv[0], &id, &err);
    if (rc == 0)
        rc = (json ? show_json(db, id, &err) : show_text(db, id, &err)) == SB_OK ? 0 : 2;
    if (rc)
        sb_error_print(&err, stderr);
    sb_db_close(db);
    return rc;
}
