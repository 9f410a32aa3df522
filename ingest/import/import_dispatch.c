/* import_dispatch.c - format detection and the file-level driver: each
 * file is converted whole by its format's converter (import_*.c), then
 * stored in one transaction. The converters' shared pieces are in
 * import_common.c. */
#include "import.h"
#include "import_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "canonical_json.h"
#include "csv_rows.h"
#include "file_name.h"
#include "home.h"
#include "json_file.h"
#include "run_store.h"
#include "sha256.h"

const char *const sb_import_formats[] = {"liger-csv",       "nvbench-json", "gbench-json",
                                         "pytest-benchmark-json", "hyperfine-json", "asv-json",
                                         "torch-benchmark-json", "triton-perf-csv", NULL};

/* What each JSON format's converter is, in the order of sb_import_formats
 * after liger-csv (the CSV formats are liger-csv, first, and
 * triton-perf-csv, last). */
typedef int (*json_converter)(sb_import_ctx *ctx, json_t *root, sb_error *err);
static const json_converter json_converters[] = {
    sb_import_nvbench_json, sb_import_gbench_json,  sb_import_pytest_benchmark_json, sb_import_hyperfine_json,
    sb_import_asv_json,     sb_import_torch_benchmark_json,
};

int sb_import_format_known(const char *name)
{
    if (!name)
        return 0;
    for (size_t i = 0; sb_import_formats[i]; i++)
        if (strcmp(name, sb_import_formats[i]) == 0)
            return 1;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}
/* ---- detection --------------------------------------------------------- */

static const char *detect_json(json_t *root)
{
    if (!json_is_object(root))
        return NULL;
    json_t *schema = json_object_get(root, "schema");
    if (json_is_string(schema) && strncmp(json_string_value(schema), "solbook.", 8) == 0)
        return "solbook";
    json_t *results = json_object_get(root, "results");
    json_t *first = json_array_get(results, 0);
    if (json_is_array(results) && json_is_string(json_object_get(first, "command")) &&
        (json_is_array(json_object_get(first, "times")) || json_is_number(json_object_get(first, "mean"))))
        return "hyperfine-json";
    if (json_is_object(results) && json_is_array(json_object_get(root, "result_columns")))
        return "asv-json";
    json_t *tb = json_object_get(root, "format");
    if (json_is_string(tb) && strcmp(json_string_value(tb), SB_IMPORT_TORCH_FORMAT) == 0)
        return "torch-benchmark-json";
    json_t *benches = json_object_get(root, "benchmarks");
    if (!json_is_array(benches))
        return NULL;
    if (json_is_object(json_object_get(root, "machine_info")) && json_is_object(json_object_get(root, "commit_info")))
        return "pytest-benchmark-json";
    if (json_is_object(json_object_get(root, "context")))
        return "gbench-json";
    size_t i;
    json_t *b;
    json_array_foreach(benches, i, b) {
        if (json_is_array(json_object_get(b, "states")))
            return "nvbench-json";
    }
    return NULL;
}

static int csv_header_is_liger(const char *buf, size_t len)
{
    const char *nl = memchr(buf, '\n', len);
    size_t n = nl ? (size_t)(nl - buf) : len;
    char line[4096];
    if (n >= sizeof line)
        return 0;
    memcpy(line, buf, n);
    line[n] = '\0';
    static const char *const need[] = {"kernel_name", "kernel_provider", "kernel_operation_mode",
                                       "metric_name", "y_value_50"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!strstr(line, need[i]))
            return 0;
    return 1;
}

static const char *skip_bom_ws(const char *buf, size_t len, size_t *off)
{
    size_t i = 0;
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF)
        i = 3;
    while (i < len && isspace((unsigned char)buf[i]))
        i++;
    *off = i;
    return buf + i;
}

static int detect_buffer(const char *path, const char *buf, size_t len, const char **format,
                         json_t **root_out, sb_error *err)
{
    size_t off = 0;
    const char *p = skip_bom_ws(buf, len, &off);
    if (off == len)
        return sb_error_set(err, path, NULL, "empty file: cannot tell its format");
    if (*p == '{' || *p == '[') {
        json_t *root = NULL;
        if (sb_json_load_buffer(buf, len, path, &root, err) != SB_OK)
            return SB_ERR;
        const char *f = detect_json(root);
        if (!f) {
            json_decref(root);
            return sb_error_set(err, path, NULL,
                                "JSON, but neither Google Benchmark (\"context\" and \"benchmarks\"), "
                                "nvbench (\"benchmarks\" with \"states\"), pytest-benchmark "
                                "(\"machine_info\", \"commit_info\", \"benchmarks\"), hyperfine "
                                "(\"results\" with \"command\"), asv (\"result_columns\"), the "
                                "torch.utils.benchmark shim's file nor a solbook file: cannot tell its format");
        }
        *format = f;
        if (root_out)
            *root_out = root;
        else
            json_decref(root);
        return SB_OK;
    }
    if (csv_header_is_liger(p, len - off)) {
        *format = "liger-csv";
        return SB_OK;
    }
    return sb_error_set(err, path, "line 1",
                        "not JSON, and the first line is not a Liger-Kernel benchmark CSV header "
                        "(kernel_name, kernel_provider, kernel_operation_mode, metric_name, y_value_50...): "
                        "cannot tell its format (a Triton perf_report CSV is named with --format triton-perf-csv)");
}

/* The whole of the file an import reads, which must be a regular file: a
 * FIFO among the names given (a glob over a folder of received results)
 * would wait for a writer forever, and the native ingest refuses one as
 * well. At most SB_JSON_MAX_BYTES are read. */
static int read_import(const char *path, char **buf, size_t *len, sb_error *err)
{
    *buf = NULL;
    *len = 0;
    int fd;
    if (sb_file_open_inside(path, NULL, 0, &fd, err) != SB_OK)
        return SB_ERR;
    size_t cap = 0;
    if (sb_file_read_fd_max(fd, path, SB_JSON_MAX_BYTES, buf, &cap, len, err) != SB_OK) {
        free(*buf);
        *buf = NULL;
        return SB_ERR;
    }
    if (*len > SB_JSON_MAX_BYTES) {
        free(*buf);
        *buf = NULL;
        return sb_error_set(err, path, NULL, "file is more than %u bytes: refused", SB_JSON_MAX_BYTES);
    }
    return SB_OK;
}

int sb_import_detect(const char *path, const char **format, sb_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    if (read_import(path, &buf, &len, err) != SB_OK)
        return SB_ERR;
    int rc = detect_buffer(path, buf, len, format, NULL, err);
    free(buf);
    return rc;
}

/* ---- convert and store ------------------------------------------------- */

/* Reads, detects and converts path; every document goes to ctx->sink when
 * set (and is released after), else to ctx->docs. */
static int convert(sb_import_ctx *ctx, const char *path, const char *format, const sb_import_options *opts,
                   sb_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    if (read_import(path, &buf, &len, err) != SB_OK)
        return SB_ERR;
    json_t *root = NULL;
    const char *found = NULL;
    int rc = SB_ERR;
    ctx->path = path;
    ctx->base = base_name(path);
    if (opts)
        ctx->opts = *opts;

    if (!format) {
        if (detect_buffer(path, buf, len, &found, &root, err) != SB_OK)
            goto out;
        if (!sb_import_format_known(found)) {
            sb_error_set(err, path, NULL, "a %s file, not one of the import formats; use `solbook ingest` without --format", found);
            goto out;
        }
        format = found;
    } else if (!sb_import_format_known(format)) {
        sb_error_set(err, path, NULL, "unknown import format \"%s\" (liger-csv, nvbench-json, gbench-json, "
                     "pytest-benchmark-json, hyperfine-json, asv-json, torch-benchmark-json, triton-perf-csv)", format);
        goto out;
    }
    ctx->format = format;
    if (opts && opts->dtype && !sb_import_dtype(opts->dtype)) {
        sb_error_set(err, path, NULL, "--dtype \"%s\" is not a dtype (fp32, tf32, fp16, bf16, fp64, fp8e4m3, fp8e5m2, int8)",
                     opts->dtype);
        goto out;
    }
    const char *ids[2][2] = {{"--provider", opts ? opts->provider : NULL}, {"--suite", opts ? opts->suite : NULL}};
    for (int k = 0; k < 2; k++) {
        char id[64];
        sb_import_id(ids[k][1], id, sizeof id);
        if (ids[k][1] && strcmp(id, ids[k][1]) != 0) {
            sb_error_set(err, path, NULL, "%s \"%s\" is not an id (lower case a-z, 0-9 and . _ + -, under 64 characters)",
                         ids[k][0], ids[k][1]);
            goto out;
        }
    }
    if (sb_sku_table_load(opts ? opts->skus_csv : NULL, &ctx->skus, err) != SB_OK)
        goto out;
    if (sb_import_load_op_names(ctx, err) != SB_OK)
        goto out;
    if (strcmp(format, "liger-csv") == 0) {
        rc = sb_import_liger_csv(ctx, buf, len, err);
    } else if (strcmp(format, "triton-perf-csv") == 0) {
        rc = sb_import_triton_perf_csv(ctx, buf, len, err);
    } else {
        if (!root && sb_json_load_buffer(buf, len, path, &root, err) != SB_OK)
            goto out;
        for (size_t k = 1; k <= sizeof json_converters / sizeof *json_converters; k++)
            if (strcmp(format, sb_import_formats[k]) == 0)
                rc = json_converters[k - 1](ctx, root, err);
    }
    if (rc == SB_OK && ctx->st->runs == 0) {
        sb_error_set(err, path, NULL, "no benchmark results in the file");
        rc = SB_ERR;
    }
    if (rc != SB_OK)
        sb_error_set_file(err, path);
out:
    if (rc != SB_OK)
        rc = SB_ERR;
    json_decref(root);
    sb_sku_table_free(ctx->skus);
    ctx->skus = NULL;
    free(ctx->ops);
    ctx->ops = NULL;
    ctx->n_ops = 0;
    free(buf);
    return rc;
}

static void add_stats(sb_import_stats *to, const sb_import_stats *from)
{
    to->rows += from->rows;
    to->duplicate_rows += from->duplicate_rows;
    to->runs += from->runs;
    to->skipped_runs += from->skipped_runs;
    to->stored += from->stored;
    to->duplicates += from->duplicates;
}

int sb_import_convert(const char *path, const char *format, const sb_import_options *opts,
                      json_t **docs, sb_import_stats *st, sb_error *err)
{
    sb_import_stats local = {0};
    sb_import_ctx ctx = {.st = &local, .docs = json_array()};
    *docs = NULL;
    if (!ctx.docs)
        return sb_error_set(err, path, NULL, "out of memory");
    if (convert(&ctx, path, format, opts, err) != SB_OK) {
        json_decref(ctx.docs);
        return SB_ERR;
    }
    *docs = ctx.docs;
    if (st)
        add_stats(st, &local);
    return SB_OK;
}

/* Storing as the converter goes: the transaction (or savepoint) opens with
 * the first document, so a file refused before any document is stored
 * opens none, and one refused later is rolled back whole. */
typedef struct store_state {
    sb_ingest *ing;
    sb_run_store *rs;
    int savepoint;
    int open;
    /* adopt_stored_time's pairs of times of earlier imports of the file;
     * NULL until read */
    json_t *times;
} store_state;

static void store_abort(store_state *ss)
{
    if (!ss->open)
        return;
    if (ss->savepoint) {
        sb_run_store_rollback_savepoint(ss->rs);
    } else {
        sb_ingest_rollback(ss->ing);
    }
    ss->open = 0;
}

/* For formats without a recorded time (ctx->time_from_mtime): when a run
 * of the same file name and row is stored whose content equals doc's but
 * for provenance.started_at/finished_at, doc takes those times, so that the
 * content hash finds it as a duplicate. A run that differs in anything
 * else keeps its own (modification) time.
 * Such a run's times are those of an earlier import of the file: the
 * distinct pairs of times of the runs stored from it, read once a file
 * (a pair a version of the file imported). doc takes each pair in turn,
 * and its content hash is looked up through the index. Parsing and
 * comparing each stored run of the same row instead cost the square of
 * a Triton row's columns (its runs share the row's line): hours for an
 * 823 KB file, and over 300 s for a two-row file imported again.
 * Only runs stored before this file count: the file's own runs share its
 * one modification time, so one equal to doc is found by its hash. */
typedef struct time_pair_list {
    json_t *pairs; /* [[started_at, finished_at], ...] */
} time_pair_list;

static int add_time_pair(void *ctx, const char *started_at, const char *finished_at)
{
    time_pair_list *l = ctx;
    return json_array_append_new(l->pairs, json_pack("[s, s]", started_at, finished_at)) == 0 ? 0 : -1;
}

static int adopt_stored_time(store_state *ss, sb_import_ctx *ctx, json_t *doc, sb_error *err)
{
    json_t *prov = json_object_get(doc, "provenance");
    if (!json_is_object(prov) || !json_is_integer(json_object_get(json_object_get(doc, "source"), "row")))
        return SB_OK;
    sb_error qerr;
    sb_error_clear(&qerr);
    if (!ss->times) {
        long long before = 0;
        time_pair_list l = {json_array()};
        if (!l.pairs)
            return sb_error_set(err, ctx->path, NULL, "out of memory");
        if (sb_run_store_last_id(ss->rs, &before, &qerr) != SB_OK ||
            sb_run_store_import_times(ss->rs, ctx->format, ctx->base, before, add_time_pair, &l, &qerr) != SB_OK) {
            json_decref(l.pairs);
            return sb_error_set(err, ctx->path, NULL, "cannot look for earlier imports: %s", qerr.msg);
        }
        ss->times = l.pairs;
    }
    if (json_array_size(ss->times) == 0)
        return SB_OK;
    json_t *mine_start = json_incref(json_object_get(prov, "started_at"));
    json_t *mine_end = json_incref(json_object_get(prov, "finished_at"));
    int found = 0, rc = SB_OK;
    size_t i;
    json_t *pair;
    json_array_foreach(ss->times, i, pair) {
        json_object_set(prov, "started_at", json_array_get(pair, 0));
        json_object_set(prov, "finished_at", json_array_get(pair, 1));
        size_t len;
        char *text = sb_canonical_json(doc, &len);
        char sha[SB_SHA256_HEX_LEN + 1];
        long long id = 0;
        if (!text || sb_sha256_hex(text, len, sha, &qerr) != SB_OK ||
            sb_run_store_find(ss->rs, sha, &id, &qerr) != SB_OK) {
            free(text);
            rc = sb_error_set(err, ctx->path, NULL, "cannot look for earlier imports: %s",
                              qerr.msg[0] ? qerr.msg : "out of memory");
            break;
        }
        free(text);
        if (id > 0) {
            found = 1;
            break;
        }
    }
    if (!found) {
        json_object_set(prov, "started_at", mine_start);
        json_object_set(prov, "finished_at", mine_end);
    }
    json_decref(mine_start);
    json_decref(mine_end);
    return rc;
}

static int store_doc(sb_import_ctx *ctx, json_t *doc, sb_error *err)
{
    store_state *ss = ctx->sink_data;
    if (ctx->time_from_mtime && adopt_stored_time(ss, ctx, doc, err) != SB_OK)
        return SB_ERR;
    if (!ss->open) {
        if (ss->savepoint ? sb_run_store_savepoint(ss->rs, err) != SB_OK
                          : sb_ingest_begin(ss->ing, err) != SB_OK) {
            snprintf(err->file, sizeof err->file, "%s", ctx->path);
            return SB_ERR;
        }
        ss->open = 1;
    }
    if (ctx->opts.commit) { /* the formats carry no commit: the caller names it */
        json_t *git = json_object_get(json_object_get(doc, "provenance"), "git");
        json_object_set_new(git, "sha", json_string(ctx->opts.commit));
        if (ctx->opts.branch)
            json_object_set_new(git, "branch", json_string(ctx->opts.branch));
    }
    char source[4200];
    long long row = (long long)json_integer_value(json_object_get(json_object_get(doc, "source"), "row"));
    snprintf(source, sizeof source, "%s:%lld", ctx->path, row);
    long long run_id = 0;
    int dup = 0;
    if (sb_ingest_document(ss->ing, doc, source, ctx->format, &run_id, &dup, err) != SB_OK) {
        const char *unit = strstr(ctx->format, "-csv") ? "line" : "entry";
        if (!err->where[0]) {
            snprintf(err->where, sizeof err->where, "%s %lld", unit, row);
        } else {
            char where[sizeof err->where];
            snprintf(where, sizeof where, "%s %lld: %.400s", unit, row, err->where);
            memcpy(err->where, where, sizeof where);
        }
        snprintf(err->file, sizeof err->file, "%s", ctx->path);
        return SB_ERR;
    }
    if (dup)
        ctx->st->duplicates++;
    else
        ctx->st->stored++;
    return SB_OK;
}

int sb_import_file_opts(sb_ingest *ing, const char *path, const char *format,
                        const sb_import_options *opts, sb_import_stats *st, sb_error *err)
{
    sb_import_stats local = {0};
    store_state ss = {.ing = ing, .rs = sb_ingest_run_store(ing), .savepoint = opts && opts->in_batch};
    sb_import_ctx ctx = {.st = &local, .sink = store_doc, .sink_data = &ss};
    int rc = convert(&ctx, path, format, opts, err);
    json_decref(ss.times);
    if (rc != SB_OK) {
        store_abort(&ss);
        return SB_ERR;
    }
    if (ss.savepoint) {
        if (ss.open && sb_run_store_release(ss.rs, err) != SB_OK) {
            snprintf(err->file, sizeof err->file, "%s", path);
            store_abort(&ss);
            return SB_ERR;
        }
    } else if (sb_ingest_commit(ing, err) != SB_OK) {
        sb_ingest_rollback(ing);
        sb_error_set_file(err, path);
        return SB_ERR;
    }
    if (st)
        add_stats(st, &local);
    return SB_OK;
}

int sb_import_file(sb_ingest *ing, const char *path, const char *format,
                   sb_import_stats *st, sb_error *err)
{
    return sb_import_file_opts(ing, path, format, NULL, st, err);
}
