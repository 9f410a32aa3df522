/* import_common.c - the pieces the converters share: files a document
 * names, parsing, names, devices, timing and the result document each
 * converter emits. Detection and the file-level driver, which call the
 * converters, are in import_dispatch.c, so no converter calls back into
 * the file that calls it. */
#include "import.h"
#include "import_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "csv_rows.h"
#include "encode.h"
#include "file_name.h"
#include "home.h"
#include "json_file.h"
#include "run_store.h"

/* ---- files a document names ------------------------------------------- */

/* Opens one part of a name below dir without following a link; says which
 * refusal applies. 1: opened (*fd), 0: not there, -1: refused (err). */
static int open_part(const sb_import_ctx *ctx, int dir, const char *part, int last, const char *name,
                     const char *where, int *fd, sb_error *err)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (last ? O_NONBLOCK : O_DIRECTORY);
    *fd = openat(dir, part, flags);
    if (*fd >= 0)
        return 1;
    int e = errno;
    struct stat st;
    if (fstatat(dir, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        sb_error_set(err, ctx->path, where, "\"%s\" is a symbolic link: refused (only files inside the document's folder are read)",
                     name);
        return -1;
    }
    if (e == ENOENT)
        return 0;
    sb_error_set(err, ctx->path, where, "cannot open \"%s\": %s", name, strerror(e));
    return -1;
}

/* Reads name below the folder of ctx->path, or below that folder's parent
 * when up is set (the name stays the document's or the importer's; only the
 * starting folder moves). */
static int read_below(const sb_import_ctx *ctx, int up, const char *name, const char *where, size_t max_bytes,
                      char **data, size_t *len, sb_error *err)
{
    *data = NULL;
    *len = 0;
    if (!name[0] || name[0] == '/')
        return sb_error_set(err, ctx->path, where, "\"%s\" is not a name relative to the document's folder: refused", name);
    char parts[4096];
    if (strlen(name) >= sizeof parts)
        return sb_error_set(err, ctx->path, where, "file name too long: refused");
    memcpy(parts, name, strlen(name) + 1);
    for (char *save = NULL, *p = strtok_r(parts, "/", &save); p; p = strtok_r(NULL, "/", &save))
        if (strcmp(p, "..") == 0)
            return sb_error_set(err, ctx->path, where,
                                "\"%s\" has a \"..\" part: refused (only files inside the document's folder are read)", name);
    const char *slash = strrchr(ctx->path, '/');
    char folder[4096];
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else if (slash == ctx->path)
        snprintf(folder, sizeof folder, "/");
    else
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - ctx->path), ctx->path);
    if (up) {
        size_t fl = strlen(folder);
        if (fl + 4 >= sizeof folder)
            return sb_error_set(err, ctx->path, where, "file name too long: refused");
        memcpy(folder + fl, "/..", 4);
    }
    int dir = open(folder, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
    if (dir < 0)
        return sb_error_set(err, ctx->path, where, "cannot open the document's folder: %s", strerror(errno));
    memcpy(parts, name, strlen(name) + 1);
    char *save = NULL, *p = strtok_r(parts, "/", &save);
    int rc = SB_OK;
    while (p) {
        char *next = strtok_r(NULL, "/", &save);
        int fd = -1;
        int got = strcmp(p, ".") == 0 && next ? (fd = dup(dir), fd >= 0)
                                               : open_part(ctx, dir, p, next == NULL, name, where, &fd, err);
        close(dir);
        dir = -1;
        if (got <= 0) {
            rc = got < 0 ? SB_ERR : SB_OK;
            break;
        }
        if (next) {
            dir = fd;
            p = next;
            continue;
        }
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            rc = sb_error_set(err, ctx->path, where, "\"%s\" is not a regular file: refused", name);
            break;
        }
        /* A hard link is a name in the folder for a file that may lie
         * anywhere on the file system (any file its maker could read, as
         * root or without fs.protected_hardlinks): its bytes would be
         * stored as samples and shipped in packets. */
        if (st.st_nlink > 1) {
            close(fd);
            rc = sb_error_set(err, ctx->path, where,
                              "\"%s\" is a hard link (%ju names): refused (only files inside the document's folder are read)",
                              name, (uintmax_t)st.st_nlink);
            break;
        }
        if ((size_t)st.st_size > max_bytes) {
            close(fd);
            rc = sb_error_set(err, ctx->path, where, "\"%s\" is larger than %zu bytes: refused", name, max_bytes);
            break;
        }
        char *buf = malloc((size_t)st.st_size + 1);
        size_t have = 0;
        while (buf && have < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + have, (size_t)st.st_size - have);
            if (r <= 0)
                break;
            have += (size_t)r;
        }
        close(fd);
        if (!buf || have != (size_t)st.st_size) {
            free(buf);
            rc = sb_error_set(err, ctx->path, where, "cannot read \"%s\"", name);
            break;
        }
        buf[have] = '\0';
        *data = buf;
        *len = have;
        break;
    }
    if (dir >= 0)
        close(dir);
    return rc;
}

int sb_import_read_beside(const sb_import_ctx *ctx, const char *name, const char *where, size_t max_bytes,
                          char **data, size_t *len, sb_error *err)
{
    return read_below(ctx, 0, name, where, max_bytes, data, len, err);
}

int sb_import_read_above(const sb_import_ctx *ctx, const char *name, const char *where, size_t max_bytes,
                         char **data, size_t *len, sb_error *err)
{
    return read_below(ctx, 1, name, where, max_bytes, data, len, err);
}

/* ---- small text helpers ------------------------------------------------ */

int sb_import_parse_double(const char *text, double *out)
{
    if (!text)
        return SB_ERR;
    while (isspace((unsigned char)*text))
        text++;
    if (!*text)
        return SB_ERR;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    while (end && isspace((unsigned char)*end))
        end++;
    if (errno || !end || *end || !isfinite(v))
        return SB_ERR;
    *out = v;
    return SB_OK;
}

int sb_import_parse_ll(const char *text, long long *out)
{
    if (!text)
        return SB_ERR;
    while (isspace((unsigned char)*text))
        text++;
    if (!*text)
        return SB_ERR;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    while (end && isspace((unsigned char)*end))
        end++;
    if (errno || !end || *end)
        return SB_ERR;
    *out = v;
    return SB_OK;
}

double sb_import_count(double v)
{
    double r = floor(v + 0.5);
    return r > 0 && fabs(v - r) <= r * 1e-6 ? r : v;
}

void sb_import_id(const char *text, char *out, size_t size)
{
    size_t n = 0;
    int dash = 0;
    if (size == 0)
        return;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p && n + 1 < size; p++) {
        unsigned char c = (unsigned char)tolower(*p);
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';
        if (ok && !(n == 0 && (c == '.' || c == '_' || c == '+' || c == '-'))) {
            if (dash && n > 0 && n + 2 < size)
                out[n++] = '-';
            dash = 0;
            out[n++] = (char)c;
        } else if (!ok || n == 0) {
            dash = n > 0;
        }
    }
    while (n > 0 && strchr("-._+", out[n - 1]))
        n--;
    out[n] = '\0';
}

void sb_import_key(const char *text, char *out, size_t size)
{
    size_t n = 0;
    if (size == 0)
        return;
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    if (isdigit(*p) && n + 1 < size)
        out[n++] = '_';
    for (; *p && n + 1 < size; p++)
        out[n++] = (char)(isalnum(*p) || *p == '_' ? *p : '_');
    out[n] = '\0';
}

const char *sb_import_dtype(const char *text)
{
    static const struct { const char *name, *dtype; } table[] = {
        {"float32", "fp32"}, {"fp32", "fp32"}, {"float", "fp32"}, {"f32", "fp32"},
        {"float64", "fp64"}, {"fp64", "fp64"}, {"double", "fp64"}, {"f64", "fp64"},
        {"float16", "fp16"}, {"fp16", "fp16"}, {"half", "fp16"}, {"__half", "fp16"}, {"f16", "fp16"},
        {"bfloat16", "bf16"}, {"bf16", "bf16"}, {"__nv_bfloat16", "bf16"}, {"nv_bfloat16", "bf16"},
        {"tf32", "tf32"},
        {"float8_e4m3fn", "fp8e4m3"}, {"float8_e4m3", "fp8e4m3"}, {"fp8e4m3", "fp8e4m3"},
        {"__nv_fp8_e4m3", "fp8e4m3"}, {"e4m3", "fp8e4m3"},
        {"float8_e5m2", "fp8e5m2"}, {"fp8e5m2", "fp8e5m2"}, {"__nv_fp8_e5m2", "fp8e5m2"}, {"e5m2", "fp8e5m2"},
        {"int8", "int8"}, {"int8_t", "int8"}, {"i8", "int8"}, {"s8", "int8"},
    };
    if (!text)
        return NULL;
    if (strncmp(text, "torch.", 6) == 0)
        text += 6;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(text, table[i].name) == 0)
            return table[i].dtype;
    return NULL;
}

static int is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int sb_import_time_utc(const char *text, char *out, size_t size)
{
    int Y, M, D, h, m, s, used = 0;
    if (!text || sscanf(text, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &Y, &M, &D, &h, &m, &s, &used) != 6)
        return SB_ERR;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (M < 1 || M > 12 || D < 1 || D > mdays[M - 1] + (M == 2 && is_leap(Y)) || h > 23 || m > 59 || s > 60 || Y < 1970)
        return SB_ERR;
    const char *p = text + used;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return SB_ERR;
        while (isdigit((unsigned char)*p))
            p++;
    }
    long offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om, n2 = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n2) != 2 || n2 != 5 || oh > 23 || om > 59)
            return SB_ERR;
        offset = (oh * 3600L + om * 60L) * (*p == '-' ? -1 : 1);
        p += 1 + n2;
    }
    if (*p)
        return SB_ERR;
    struct tm tm = {0};
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = s;
    time_t t = timegm(&tm) - offset;
    struct tm u;
    if (!gmtime_r(&t, &u))
        return SB_ERR;
    if (strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &u) == 0)
        return SB_ERR;
    return SB_OK;
}

/* ---- op-name table ----------------------------------------------------- */

typedef struct op_csv {
    sb_import_ctx *ctx;
    const char *path; /* the table, for errors */
    int header_done;
} op_csv;

static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* One row of the table: format, name, op and an optional default_dtype;
 * the header and rows of fewer than three fields are not entries. */
static int op_record(void *data, const char *const *fields, size_t nf, size_t line, sb_error *err)
{
    op_csv *o = data;
    (void)line;
    if (!o->header_done) {
        o->header_done = 1;
        return SB_OK;
    }
    if (nf < 3)
        return SB_OK;
    sb_import_ctx *ctx = o->ctx;
    sb_import_op_name *grown = realloc(ctx->ops, (ctx->n_ops + 1) * sizeof *grown);
    if (!grown)
        return sb_error_set(err, o->path, NULL, "out of memory");
    ctx->ops = grown;
    sb_import_op_name *r = &ctx->ops[ctx->n_ops++];
    memset(r, 0, sizeof *r);
    copy_text(r->format, sizeof r->format, fields[0]);
    copy_text(r->name, sizeof r->name, fields[1]);
    copy_text(r->op, sizeof r->op, fields[2]);
    if (nf > 3)
        copy_text(r->default_dtype, sizeof r->default_dtype, fields[3]);
    return SB_OK;
}

int sb_import_load_op_names(sb_import_ctx *ctx, sb_error *err)
{
    char path[4096];
    if (ctx->opts.op_names_csv)
        snprintf(path, sizeof path, "%s", ctx->opts.op_names_csv);
    else if (sb_data_path(path, sizeof path, "import_op_names.csv", err) != SB_OK)
        return SB_ERR;
    op_csv o = {.ctx = ctx, .path = path};
    if (sb_csv_read_file(path, NULL, op_record, &o, err) != SB_OK)
        return SB_ERR;
    for (size_t i = 0; i < ctx->n_ops; i++) {
        char id[64];
        sb_import_id(ctx->ops[i].op, id, sizeof id);
        if (!ctx->ops[i].op[0] || strcmp(id, ctx->ops[i].op) != 0)
            return sb_error_set(err, path, NULL, "row %zu: op \"%s\" is not a valid op id ([a-z0-9._+-])",
                                i + 2, ctx->ops[i].op);
        if (ctx->ops[i].default_dtype[0] && !sb_import_dtype(ctx->ops[i].default_dtype))
            return sb_error_set(err, path, NULL, "row %zu: default_dtype \"%s\" is not a dtype",
                                i + 2, ctx->ops[i].default_dtype);
    }
    return SB_OK;
}

const sb_import_op_name *sb_import_op_lookup(const sb_import_ctx *ctx, const char *tool_name)
{
    for (size_t i = 0; i < ctx->n_ops; i++)
        if (strcmp(ctx->ops[i].format, ctx->format) == 0 && strcmp(ctx->ops[i].name, tool_name) == 0)
            return &ctx->ops[i];
    return NULL;
}

const sb_import_op_name *sb_import_op_named(const sb_import_ctx *ctx, const char *tool_name, char *op,
                                            size_t size)
{
    const sb_import_op_name *row = sb_import_op_lookup(ctx, tool_name);
    if (row)
        snprintf(op, size, "%s", row->op);
    else
        sb_import_id(tool_name, op, size);
    return row;
}

/* ---- document pieces --------------------------------------------------- */

static json_t *str_or_unknown(const char *s)
{
    return json_string(s && *s ? s : "unknown");
}

json_t *sb_import_gpu_device(const sb_import_ctx *ctx, const char *name, long long memory_bytes,
                             long long sm_count, long long l2_bytes, const char *cc)
{
    char unknown_id[128], unknown_arch[32];
    unknown_id[0] = unknown_arch[0] = '\0';
    const sb_sku *sku = sb_sku_identify(ctx->skus, name, NULL, memory_bytes > 0 ? memory_bytes : 0,
                                        unknown_id, sizeof unknown_id, unknown_arch, sizeof unknown_arch);
    /* A card outside the table and without an arch word in its name is
     * labelled by its compute capability: "8.9" -> "sm89". */
    if (!sku && cc && (!unknown_arch[0] || strcmp(unknown_arch, "unknown") == 0)) {
        int major = 0, minor = 0;
        if (sscanf(cc, "%d.%d", &major, &minor) == 2 && major > 0 && minor >= 0)
            snprintf(unknown_arch, sizeof unknown_arch, "sm%d%d", major, minor);
    }
    json_t *d = json_object();
    json_object_set_new(d, "kind", json_string("gpu"));
    json_object_set_new(d, "index", json_null());
    json_object_set_new(d, "name", json_string(name));
    json_object_set_new(d, "arch", json_string(sku ? sku->arch : (unknown_arch[0] ? unknown_arch : "unknown")));
    json_object_set_new(d, "sku", json_string(sku ? sku->id : (unknown_id[0] ? unknown_id : "unknown")));
    json_object_set_new(d, "compute_capability", json_string(cc ? cc : "unknown"));
    json_object_set_new(d, "sm_count", sm_count >= 0 ? json_integer(sm_count) : json_null());
    json_object_set_new(d, "memory_bytes", memory_bytes > 0 ? json_integer(memory_bytes) : json_null());
    json_object_set_new(d, "l2_bytes", l2_bytes >= 0 ? json_integer(l2_bytes) : json_null());
    return d;
}

json_t *sb_import_cpu_device(const char *name, long long ncpu)
{
    json_t *d = json_object();
    json_object_set_new(d, "kind", json_string("cpu"));
    json_object_set_new(d, "index", json_null());
    json_object_set_new(d, "name", json_string(name && *name ? name : "unknown"));
    json_object_set_new(d, "arch", json_string("cpu"));
    json_object_set_new(d, "sku", json_string("cpu"));
    json_object_set_new(d, "compute_capability", json_string("unknown"));
    json_object_set_new(d, "sm_count", ncpu >= 0 ? json_integer(ncpu) : json_null());
    json_object_set_new(d, "memory_bytes", json_null());
    json_object_set_new(d, "l2_bytes", json_null());
    return d;
}

json_t *sb_import_timing_seconds(const double *seconds, size_t n, double *median_ms)
{
    if (n == 0)
        return NULL;
    double *ms = malloc(n * sizeof *ms);
    if (!ms)
        return NULL;
    for (size_t i = 0; i < n; i++)
        ms[i] = seconds[i] * 1e3;
    size_t per[1] = {n};
    json_t *timing = sb_result_timing(ms, per, 1, median_ms);
    free(ms);
    return timing;
}

/* The schema bounds a shape or params name to 64 characters and a text
 * value to 256. A longer one (pytest-benchmark writes an object it cannot
 * serialise as "UNSERIALIZABLE[" and its whole repr) is cut at a
 * character's edge and 12 hex digits of sb_name_hash48 of the whole text
 * follow, so two long texts that share their start stay two cases: a value
 * ends " [cut: N bytes, fnv HASH]", a name "_HASH" (a shape name stays an
 * identifier). limit is in bytes, which bounds the characters too. */
static void fit_text(const char *text, size_t limit, int is_name, char *out, size_t size)
{
    size_t n = strlen(text);
    if (n <= limit) {
        snprintf(out, size, "%s", text);
        return;
    }
    unsigned long long h = (unsigned long long)sb_name_hash48(text);
    char tail[80];
    int tn = is_name ? snprintf(tail, sizeof tail, "_%012llx", h)
                     : snprintf(tail, sizeof tail, " [cut: %zu bytes, fnv %012llx]", n, h);
    size_t tl = tn > 0 ? (size_t)tn : 0;
    if (tl >= sizeof tail)
        tl = sizeof tail - 1;
    size_t room = (limit < size ? limit : size - 1);
    size_t keep = room > tl ? room - tl : 0;
    /* back to the first byte of a UTF-8 character */
    while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
        keep--;
    if (keep + tl >= size) /* a tail longer than out: only what fits */
        tl = size - 1 - keep;
    memcpy(out, text, keep);
    memcpy(out + keep, tail, tl);
    out[keep + tl] = '\0';
}

void sb_import_case_params(json_t *given, json_t *shape, json_t *params, const char **dtype)
{
    const char *name;
    json_t *v;
    json_object_foreach(given, name, v) {
        char raw_key[1024], key[72], pname[72], text[272];
        sb_import_key(name, raw_key, sizeof raw_key);
        fit_text(raw_key, 64, 1, key, sizeof key);
        fit_text(name, 64, 1, pname, sizeof pname);
        if (json_is_integer(v) && json_integer_value(v) >= 0 && key[0]) {
            json_object_set(shape, key, v);
        } else if (json_is_string(v)) {
            if (dtype && !*dtype)
                *dtype = sb_import_dtype(json_string_value(v));
            if (json_string_length(v) <= 256) {
                json_object_set(params, pname, v);
            } else {
                fit_text(json_string_value(v), 256, 0, text, sizeof text);
                json_object_set_new(params, pname, json_string(text));
            }
        } else if (json_is_number(v) || json_is_boolean(v) || json_is_null(v)) {
            json_object_set(params, pname, v);
        } else {
            char *dump = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            if (dump) {
                fit_text(dump, 256, 0, text, sizeof text);
                json_object_set_new(params, pname, json_string(text));
            }
            free(dump);
        }
    }
}

int sb_import_file_time(sb_import_ctx *ctx, char *out, size_t size, sb_error *err)
{
    ctx->time_from_mtime = 1;
    struct stat st;
    struct tm tm;
    if (stat(ctx->path, &st) != 0)
        return sb_error_set(err, ctx->path, NULL, "cannot stat the file");
    time_t mt = st.st_mtime;
    if (!gmtime_r(&mt, &tm) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return sb_error_set(err, ctx->path, NULL, "cannot format the file's modification time");
    return SB_OK;
}

json_t *sb_import_provenance(const char *tool_name, const char *tool_version,
                             const char *hostname, json_t *device,
                             const char *started_at, const char *finished_at)
{
    json_t *p = json_object();
    json_object_set_new(p, "git", json_pack("{s:s, s:n}", "sha", "unknown", "dirty"));
    json_object_set_new(p, "tool", json_pack("{s:s, s:o}", "name", tool_name, "version",
                                             str_or_unknown(tool_version)));
    json_object_set_new(p, "host", json_pack("{s:o, s:s, s:s}", "hostname", str_or_unknown(hostname),
                                             "os", "unknown", "cpu", "unknown"));
    json_object_set_new(p, "software", json_pack("{s:s, s:s, s:s}", "driver_version", "unknown",
                                                 "cuda_runtime_version", "unknown",
                                                 "cublas_version", "unknown"));
    json_object_set_new(p, "device", device);
    json_object_set_new(p, "started_at", json_string(started_at));
    json_object_set_new(p, "finished_at", json_string(finished_at));
    return p;
}

json_t *sb_import_protocol(const char *l2)
{
    return json_pack("{s:s, s:n, s:n, s:n, s:n, s:s, s:n, s:n}", "timer", "imported",
                     "warmup_iters", "warmup_ms", "iters", "repeats", "l2", l2,
                     "input_sets", "graph");
}

json_t *sb_import_metrics(double bytes, double median_ms)
{
    json_t *m = json_pack("{s:n, s:n, s:n, s:n, s:s, s:n, s:n}", "flops", "bytes", "tflops", "gbps",
                          "bound", "unknown", "pct_datasheet_peak", "pct_measured_ceiling");
    if (bytes >= 0) {
        json_object_set_new(m, "bytes", json_real(bytes));
        if (median_ms > 0)
            json_object_set_new(m, "gbps", json_real(bytes / (median_ms * 1e-3) / 1e9));
    }
    return m;
}

int sb_import_text_cut(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    return (int)sb_utf8_valid_len(s, n);
}

int sb_import_emit(sb_import_ctx *ctx, const char *status, const char *reason,
                   json_t *config, json_t *protocol, json_t *timing,
                   json_t *metrics, json_t *memory, json_t *provenance,
                   const char *notes, long long row, sb_error *err)
{
    int passed = strcmp(status, "passed") == 0;
    if (!passed || !timing) {
        json_decref(timing);
        json_decref(metrics);
        timing = metrics = NULL;
    } else if (!metrics) {
        metrics = sb_import_metrics(-1, 0);
    }
    /* The source tools check no correctness: say so (passed null) rather
     * than claim a verdict; reports mark these cases as not re-checked. */
    sb_result_doc d = {
        .status = status, .reason = reason, .config = config, .protocol = protocol,
        .timing = timing, .metrics = metrics, .memory = memory,
        .correctness = json_pack("{s:s, s:o}", "reference", SB_IMPORT_REFERENCE, "passed", json_null()),
        .notes = notes,
        .source = json_pack("{s:s, s:s, s:I}", "format", ctx->format, "file", ctx->base, "row", (json_int_t)row),
        .provenance = provenance,
    };
    json_t *doc = sb_result_doc_json(&d); /* NULL: a part missing, which only memory running out gives */
    if (!doc)
        return sb_error_set(err, ctx->path, NULL, "out of memory");
    ctx->st->runs++;
    if (ctx->sink) {
        int rc = ctx->sink(ctx, doc, err);
        json_decref(doc);
        if (rc != SB_OK)
            return SB_ERR;
    } else if (json_array_append_new(ctx->docs, doc) != 0) {
        return sb_error_set(err, ctx->path, NULL, "out of memory");
    }
    if (!passed)
        ctx->st->skipped_runs++;
    return SB_OK;
}
