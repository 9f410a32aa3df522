/* gather.c - one final result per case, provider and arch. */
#include "gather.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dir_names.h"
#include "json_file.h"
#include "shape_key.h"
#include "strbuf.h"

static const char *str_at(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

char *sb_gather_key(const void *json_doc, char *why, size_t why_size)
{
    json_t *doc = (json_t *)json_doc;
    const char *schema = str_at(doc, "schema");
    json_t *dev = json_object_get(json_object_get(doc, "provenance"), "device");
    const char *arch = str_at(dev, "arch");
    if (!schema) {
        snprintf(why, why_size, "not a solbook file: no \"schema\" field");
        return NULL;
    }
    if (strcmp(schema, "solbook.calibration.v1") == 0) {
        const char *sku = str_at(dev, "sku");
        if (!arch || !sku) {
            snprintf(why, why_size, "calibration without provenance.device.arch and .sku");
            return NULL;
        }
        sb_buf t = SB_BUF_INIT;
        sb_buf_printf(&t, "calibration|%s|%s", sku, arch);
        return sb_buf_take(&t);
    }
    if (strcmp(schema, "solbook.result.v1") != 0) {
        if (strncmp(schema, "solbook.", 8) != 0) {
            snprintf(why, why_size, "not a solbook file: schema \"%.200s\"", schema);
            return NULL;
        }
        return strdup(""); /* keyed by path by the caller */
    }
    json_t *cfg = json_object_get(doc, "config");
    static const char *const parts[] = {"suite", "op", "mode", "dtype", "provider"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (!str_at(cfg, parts[i])) {
            snprintf(why, why_size, "result without config.%s", parts[i]);
            return NULL;
        }
    json_t *shape = json_object_get(cfg, "shape");
    if (!json_is_object(shape) || json_object_size(shape) == 0) {
        snprintf(why, why_size, "result without config.shape");
        return NULL;
    }
    if (!arch) {
        snprintf(why, why_size, "result without provenance.device.arch");
        return NULL;
    }
    json_t *params = json_object_get(cfg, "params");
    char *skey = sb_shape_key(shape);
    char *pjson = params ? json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17) |
                                                  JSON_ENCODE_ANY)
                         : strdup("{}");
    char *key = NULL;
    if (skey && pjson) {
        sb_buf t = SB_BUF_INIT;
        sb_buf_printf(&t, "%s|%s|%s|%s|%s|%s|%s|%s", str_at(cfg, "suite"), str_at(cfg, "op"), str_at(cfg, "mode"),
                       str_at(cfg, "dtype"), skey, pjson, str_at(cfg, "provider"), arch);
        key = sb_buf_take(&t);
    }
    free(skey);
    free(pjson);
    if (!key)
        snprintf(why, why_size, "out of memory");
    return key;
}

typedef struct walk_ctx {
    sb_gather *g;
    size_t cap;
    sb_error *err;
} walk_ctx;

static int add(walk_ctx *w, const char *path, sb_gather_state st, char *key, const char *why)
{
    sb_gather *g = w->g;
    if (g->n == w->cap) {
        size_t nc = w->cap ? 2 * w->cap : 64;
        sb_gather_file *v = realloc(g->files, nc * sizeof *v);
        if (!v) {
            free(key);
            return sb_error_set(w->err, path, NULL, "out of memory");
        }
        g->files = v;
        w->cap = nc;
    }
    sb_gather_file *f = &g->files[g->n];
    f->path = strdup(path);
    f->state = st;
    f->key = key;
    f->why = why ? strdup(why) : NULL;
    if (!f->path || (why && !f->why)) {
        free(f->path);
        free(f->why);
        free(key);
        return sb_error_set(w->err, path, NULL, "out of memory");
    }
    g->n++;
    return SB_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int classify(walk_ctx *w, const char *path, const char *name, const struct stat *st)
{
    if (strstr(name, ".tmp."))
        return add(w, path, SB_GATHER_PARTIAL, NULL, "temporary file left by an interrupted write");
    if (!ends_with(name, ".json"))
        return SB_OK; /* logs, ncu sidecars (they go with their .json) */
    if (st->st_size == 0)
        return add(w, path, SB_GATHER_PARTIAL, NULL, "empty file (zero length)");
    json_t *doc = NULL;
    sb_error e;
    sb_error_clear(&e);
    if (sb_json_load_file(path, &doc, &e) != SB_OK) {
        char why[1600];
        snprintf(why, sizeof why, "not one whole JSON document (truncated?): %s%s%s", e.where,
                 e.where[0] ? ": " : "", e.msg);
        return add(w, path, SB_GATHER_PARTIAL, NULL, why);
    }
    char why[512] = "";
    char *key = sb_gather_key(doc, why, sizeof why);
    json_decref(doc);
    if (!key)
        return add(w, path, SB_GATHER_INVALID, NULL, why);
    if (!*key) {
        free(key);
        sb_buf t = SB_BUF_INIT;
        sb_buf_printf(&t, "path|%s", path);
        key = sb_buf_take(&t);
        if (!key)
            return sb_error_set(w->err, path, NULL, "out of memory");
    }
    return add(w, path, SB_GATHER_ACCEPTED, key, NULL);
}

static int walk(walk_ctx *w, const char *dir, int depth)
{
    if (depth > 64)
        return sb_error_set(w->err, dir, NULL, "directories nested deeper than 64");
    DIR *d = opendir(dir);
    if (!d)
        return sb_error_set(w->err, dir, NULL, "cannot open directory: %s", strerror(errno));
    char **names;
    size_t n;
    int rc = sb_dir_read_names(d, dir, &names, &n, w->err);
    closedir(d);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= sizeof path) {
            rc = sb_error_set(w->err, dir, NULL, "path too long: %s", names[i]);
            break;
        }
        struct stat st, lst;
        if (lstat(path, &lst) != 0) {
            rc = sb_error_set(w->err, path, NULL, "cannot stat: %s", strerror(errno));
            break;
        }
        if (S_ISLNK(lst.st_mode)) {
            if (stat(path, &st) != 0)
                rc = add(w, path, SB_GATHER_INVALID, NULL, "dangling symbolic link");
            else if (S_ISREG(st.st_mode))
                rc = classify(w, path, names[i], &st);
            continue; /* links to directories are not followed */
        }
        if (S_ISDIR(lst.st_mode))
            rc = walk(w, path, depth + 1);
        else if (S_ISREG(lst.st_mode))
            rc = classify(w, path, names[i], &lst);
    }
    sb_dir_names_free(names, n);
    return rc;
}

static int cmp_file(const void *a, const void *b)
{
    const sb_gather_file *x = a, *y = b;
    if (!x->key || !y->key) {
        if (x->key != y->key)
            return x->key ? 1 : -1;
        return strcmp(x->path, y->path);
    }
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->path, y->path);
}

int sb_gather_scan(const char *dir, sb_gather *out, sb_error *err)
{
    char *dirs[] = {(char *)dir};
    return sb_gather_scan_dirs(dirs, 1, out, err);
}

int sb_gather_scan_dirs(char *const *dirs, size_t n_dirs, sb_gather *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    walk_ctx w = {out, 0, err};
    for (size_t i = 0; i < n_dirs; i++) {
        struct stat st;
        int rc = SB_OK;
        if (stat(dirs[i], &st) != 0)
            rc = sb_error_set(err, dirs[i], NULL, "cannot read: %s", strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            rc = sb_error_set(err, dirs[i], NULL, "not a directory (give the output tree of a fleet run)");
        else
            rc = walk(&w, dirs[i], 0);
        if (rc != SB_OK) {
            sb_gather_free(out);
            return SB_ERR;
        }
    }
    if (out->n)
        qsort(out->files, out->n, sizeof *out->files, cmp_file);
    /* A file reached twice (overlapping directories given) counts once. */
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (kept && strcmp(out->files[kept - 1].path, out->files[i].path) == 0) {
            free(out->files[i].path);
            free(out->files[i].key);
            free(out->files[i].why);
            continue;
        }
        out->files[kept++] = out->files[i];
    }
    out->n = kept;
    for (size_t i = 0; i < out->n;) {
        sb_gather_file *f = &out->files[i];
        if (!f->key) {
            if (f->state == SB_GATHER_PARTIAL)
                out->partial++;
            else
                out->invalid++;
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < out->n && strcmp(out->files[j].key, f->key) == 0)
            j++;
        if (j - i > 1) {
            out->duplicate_groups++;
            out->duplicate_files += j - i;
            for (size_t k = i; k < j; k++)
                out->files[k].state = SB_GATHER_DUPLICATE;
        } else {
            out->accepted++;
        }
        i = j;
    }
    return SB_OK;
}

void sb_gather_free(sb_gather *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->files[i].path);
        free(g->files[i].key);
        free(g->files[i].why);
    }
    free(g->files);
    memset(g, 0, sizeof *g);
}

size_t sb_gather_problems(const sb_gather *g)
{
    return g->partial + g->invalid + g->duplicate_files;
}

char **sb_gather_accepted_paths(const sb_gather *g, size_t *n)
{
    *n = 0;
    char **v = malloc((g->accepted ? g->accepted : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < g->n; i++)
        if (g->files[i].state == SB_GATHER_ACCEPTED)
            v[(*n)++] = g->files[i].path;
    return v;
}

char *sb_gather_describe(const sb_gather *g)
{
    sb_buf t = SB_BUF_INIT;
    for (size_t i = 0; i < g->n; i++) {
        const sb_gather_file *f = &g->files[i];
        if (f->state == SB_GATHER_PARTIAL || f->state == SB_GATHER_INVALID) {
            sb_buf_printf(&t, "%s: %s: %s\n", f->state == SB_GATHER_PARTIAL ? "partial" : "invalid", f->path,
                           f->why);
        } else if (f->state == SB_GATHER_DUPLICATE) {
            size_t j = i;
            while (j < g->n && g->files[j].key && strcmp(g->files[j].key, f->key) == 0)
                j++;
            for (size_t k = i; k < j; k++)
                sb_buf_printf(&t, "duplicate: %s: %zu final results for one case, provider and arch (%s)\n",
                               g->files[k].path, j - i, f->key);
            i = j - 1;
        }
    }
    sb_buf_printf(&t, "gather: %zu accepted, %zu duplicate file%s in %zu group%s, %zu partial, %zu invalid\n",
                   g->accepted, g->duplicate_files, g->duplicate_files == 1 ? "" : "s", g->duplicate_groups,
                   g->duplicate_groups == 1 ? "" : "s", g->partial, g->invalid);
    return sb_buf_take(&t);
}
