/* cmd_show.c - `solbook show RUN`: one stored run in full. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "encode.h"
#include "error.h"
#include "home.h"
#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook show [--db PATH] [--json] RUN\n\n"
            "Prints one stored run whole: provenance, config and protocol, statistics,\n"
            "derived metrics, correctness, training or ceilings, stored sample count and\n"
            "Nsight Compute metrics. RUN is a run id (see 'solbook runs'), the producer's\n"
            "run_uuid, or a prefix (8+ hex digits) of the content sha256.\n\n"
            "  --db PATH        database (default: $SOLBOOK_DB, else ./solbook.db)\n"
            "  --json           the stored JSON document, plus the ncu metrics\n"
            "  -h, --help       this help\n");
}

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
    sqlite3_stmt *st;
    const char *sql = "SELECT id FROM runs WHERE (?1 IS NOT NULL AND id = ?1) OR run_uuid = ?2 "
                      "OR (length(?2) >= 8 AND substr(content_sha256, 1, length(?2)) = ?2) ORDER BY id LIMIT 6";
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK) {
        sb_db_fail(db, err, "cannot query runs");
        return 2;
    }
    if (digits)
        sqlite3_bind_int64(st, 1, strtoll(arg, NULL, 10));
    if (hex)
        sqlite3_bind_text(st, 2, arg, -1, SQLITE_STATIC);
    int found = 0, rc;
    char ids[128] = "";
    size_t len = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long v = sqlite3_column_int64(st, 0);
        if (found++ == 0)
            *id = v;
        if (found <= 5 && len < sizeof ids)
            len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%lld", found > 1 ? ", " : "", v);
        else if (found == 6 && len < sizeof ids)
            len += (size_t)snprintf(ids + len, sizeof ids - len, ", ...");
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_db_fail(db, err, "cannot query runs");
        return 2;
    }
    if (found == 0) {
        sb_error_set(err, sb_db_path(db), NULL, "no run %s", arg);
        return 1;
    }
    if (found > 1) {
        sb_error_set(err, sb_db_path(db), NULL, "'%s' matches runs %s; give the run id", arg, ids);
        return 1;
    }
    return 0;
}

/* Stored text to the terminal: encoded (sb_enc_terminal), cut at limit
 * characters. */
static void print_text(const unsigned char *s, size_t limit)
{
    sb_buf b = SB_BUF_INIT;
    sb_enc_terminal(&b, s ? (const char *)s : "", limit);
    fputs(sb_buf_str(&b), stdout);
    sb_buf_free(&b);
}

static void print_value(sqlite3_stmt *st, int c)
{
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: printf("%lld", (long long)sqlite3_column_int64(st, c)); break;
    case SQLITE_FLOAT: printf("%.10g", sqlite3_column_double(st, c)); break;
    default: print_text(sqlite3_column_text(st, c), SB_TEXT_NOTE_MAX); break;
    }
}

/* Every non-NULL column of the table's row(s) for the run, as "name value". */
static int print_table(sb_db *db, const char *title, const char *table, long long id, sb_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE run_id = ?", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query");
    sqlite3_bind_int64(st, 1, id);
    int rc, any = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!any++)
            printf("\n%s\n", title);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            if (strcmp(sqlite3_column_name(st, c), "run_id") == 0 ||
                sqlite3_column_type(st, c) == SQLITE_NULL)
                continue;
            printf("  %-24s ", sqlite3_column_name(st, c));
            print_value(st, c);
            printf("\n");
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sb_db_fail(db, err, "cannot read");
    return SB_OK;
}

static int print_ceilings(sb_db *db, long long id, sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db), "SELECT name, value, unit FROM ceilings WHERE run_id = ? ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query ceilings");
    sqlite3_bind_int64(st, 1, id);
    int rc, any = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!any++)
            printf("\nmeasured ceilings\n");
        sb_buf name = SB_BUF_INIT;
        sb_enc_terminal(&name, (const char *)sqlite3_column_text(st, 0), SB_TEXT_NAME_MAX);
        printf("  %-24s %.6g ", sb_buf_str(&name), sqlite3_column_double(st, 1));
        sb_buf_free(&name);
        print_text(sqlite3_column_text(st, 2), SB_TEXT_NAME_MAX);
        printf("\n");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(db, err, "cannot read ceilings");
}

static int print_samples(sb_db *db, long long id, sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT count(*), count(DISTINCT rep), min(value_ms), max(value_ms) FROM samples "
                           "WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query samples");
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot read samples");
    }
    long long n = sqlite3_column_int64(st, 0);
    printf("\nsamples\n  %-24s %lld", "stored", n);
    if (n)
        printf(" in %lld repeat%s (%.6g .. %.6g ms)", (long long)sqlite3_column_int64(st, 1),
               sqlite3_column_int64(st, 1) == 1 ? "" : "s", sqlite3_column_double(st, 2),
               sqlite3_column_double(st, 3));
    printf("\n");
    sqlite3_finalize(st);
    return SB_OK;
}

static const char *PROF_SQL = "SELECT kernel_index, kernel_name, metric, unit, value, source_path "
                              "FROM profiler_metrics WHERE run_id = ? ORDER BY kernel_index, metric";

static int print_profile(sb_db *db, long long id, sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db), PROF_SQL, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query profiler_metrics");
    sqlite3_bind_int64(st, 1, id);
    int rc;
    long long kernel = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long k = sqlite3_column_int64(st, 0);
        if (kernel == -1) {
            printf("\nNsight Compute metrics (");
            print_text(sqlite3_column_text(st, 5), SB_TEXT_NOTE_MAX);
            printf(")\n");
        }
        if (k != kernel) {
            printf("  kernel %lld: ", k);
            print_text(sqlite3_column_text(st, 1), SB_TEXT_NOTE_MAX);
            printf("\n");
            kernel = k;
        }
        const unsigned char *unit = sqlite3_column_text(st, 3);
        sb_buf metric = SB_BUF_INIT;
        sb_enc_terminal(&metric, (const char *)sqlite3_column_text(st, 2), SB_TEXT_NAME_MAX);
        printf("    %-66s %.10g%s", sb_buf_str(&metric), sqlite3_column_double(st, 4),
               unit ? " " : "");
        sb_buf_free(&metric);
        print_text(unit, SB_TEXT_NAME_MAX);
        printf("\n");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(db, err, "cannot read profiler_metrics");
}

static int show_text(sb_db *db, long long id, sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT id, schema, status, reason, run_uuid, content_sha256, source_path, "
                           "source_format, ingested_at, notes FROM runs WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query runs");
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot read the run");
    }
    printf("run %lld (", id);
    print_text(sqlite3_column_text(st, 1), SB_TEXT_NAME_MAX);
    printf(")\n");
    static const char *const names[] = {NULL,          NULL,          "status",     "reason",
                                        "run_uuid",    "content_sha256", "source_path", "source_format",
                                        "ingested_at", "notes"};
    for (int c = 2; c < 10; c++)
        if (sqlite3_column_type(st, c) != SQLITE_NULL)
        {
            printf("  %-24s ", names[c]);
            print_text(sqlite3_column_text(st, c), SB_TEXT_NOTE_MAX);
            printf("\n");
        }
    sqlite3_finalize(st);
    if (print_table(db, "provenance", "provenance", id, err) != SB_OK ||
        print_table(db, "config and protocol", "configs", id, err) != SB_OK ||
        print_table(db, "statistics (ms) and metrics", "metrics", id, err) != SB_OK ||
        print_table(db, "correctness", "correctness", id, err) != SB_OK ||
        print_table(db, "training", "training", id, err) != SB_OK || print_ceilings(db, id, err) != SB_OK ||
        print_samples(db, id, err) != SB_OK || print_profile(db, id, err) != SB_OK)
        return SB_ERR;
    return SB_OK;
}

static int show_json(sb_db *db, long long id, sb_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT raw_json, content_sha256, source_path, source_format, ingested_at, "
                           "(SELECT count(*) FROM samples WHERE run_id = runs.id) FROM runs WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(db, err, "cannot query runs");
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sb_db_fail(db, err, "cannot read the run");
    }
    json_error_t je;
    json_t *doc = json_loads((const char *)sqlite3_column_text(st, 0), 0, &je);
    if (!doc) {
        sqlite3_finalize(st);
        return sb_error_set(err, sb_db_path(db), NULL, "run %lld: stored JSON does not parse: %s", id, je.text);
    }
    json_t *out = json_object();
    json_object_set_new(out, "id", json_integer(id));
    json_object_set_new(out, "content_sha256", json_string((const char *)sqlite3_column_text(st, 1)));
    json_object_set_new(out, "source_path", json_string((const char *)sqlite3_column_text(st, 2)));
    json_object_set_new(out, "source_format", json_string((const char *)sqlite3_column_text(st, 3)));
    json_object_set_new(out, "ingested_at", json_string((const char *)sqlite3_column_text(st, 4)));
    json_object_set_new(out, "stored_sample_count", json_integer(sqlite3_column_int64(st, 5)));
    json_object_set_new(out, "document", doc);
    sqlite3_finalize(st);

    json_t *prof = json_array();
    json_object_set_new(out, "profiler_metrics", prof);
    int rc = SQLITE_DONE;
    if (sqlite3_prepare_v2(sb_db_handle(db), PROF_SQL, -1, &st, NULL) != SQLITE_OK) {
        json_decref(out);
        return sb_db_fail(db, err, "cannot query profiler_metrics");
    }
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *unit = sqlite3_column_text(st, 3);
        json_array_append_new(
            prof, json_pack("{s:I, s:s, s:s, s:o, s:f, s:s}", "kernel_index", (json_int_t)sqlite3_column_int64(st, 0),
                            "kernel_name", (const char *)sqlite3_column_text(st, 1), "metric",
                            (const char *)sqlite3_column_text(st, 2), "unit",
                            unit ? json_string((const char *)unit) : json_null(), "value",
                            sqlite3_column_double(st, 4), "source_path",
                            (const char *)sqlite3_column_text(st, 5)));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        json_decref(out);
        return sb_db_fail(db, err, "cannot read profiler_metrics");
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
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db_path = sb_default_db_path();
    int json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            sb_cli_bad_option(stderr, "show", argv[optind - 1], opts);
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "solbook show: give exactly one RUN\n");
        usage(stderr);
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
    int rc = resolve(db, argv[optind], &id, &err);
    if (rc == 0)
        rc = (json ? show_json(db, id, &err) : show_text(db, id, &err)) == SB_OK ? 0 : 2;
    if (rc)
        sb_error_print(&err, stderr);
    sb_db_close(db);
    return rc;
}
