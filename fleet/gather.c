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
#include "file_name.h"
#include "json_file.h"
#include "shape_key.h"
#include "strbuf.h"
#include "task_status.h"
#include "term.h"

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

struct seen_task;

typedef struct walk_ctx {
    sb_gather *g;
    size_t cap;
    sb_error *err;
    struct seen_task *tasks;
    size_t n_tasks, cap_tasks;
    const char *root;      /* the folder given being walked */
    const char *root_real; /* it resolved when its walk began; NULL: unresolved */
} walk_ctx;

/* The folder path lies in as the walk reached it: the folder given,
 * resolved when its walk began, then the folders under it as walked
 * (sb_gather_file.folder). NULL where that cannot be said. */
static char *walked_folder(const walk_ctx *w, const char *path)
{
    size_t k = strlen(w->root);
    if (!w->root_real || strncmp(path, w->root, k) != 0 || path[k] != '/')
        return NULL;
    const char *rest = path + k + 1, *slash = strrchr(rest, '/');
    size_t nreal = strlen(w->root_real), nrest = slash ? (size_t)(slash - rest) : 0;
    char *f = malloc(nreal + (slash ? 1 + nrest : 0) + 1);
    if (!f)
        return NULL;
    memcpy(f, w->root_real, nreal);
    if (slash) {
        f[nreal] = '/';
        memcpy(f + nreal + 1, rest, nrest);
    }
    f[nreal + (slash ? 1 + nrest : 0)] = '\0';
    return f;
}

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
    f->folder = walked_folder(w, path);
    if (!f->path || (why && !f->why)) {
        free(f->path);
        free(f->why);
        free(f->folder);
        free(key);
        return sb_error_set(w->err, path, NULL, "out of memory");
    }
    g->n++;
    return SB_OK;
}

static int classify(walk_ctx *w, const char *path, const char *name, const struct stat *st)
{
    if (strstr(name, ".tmp."))
        return add(w, path, SB_GATHER_PARTIAL, NULL, "temporary file left by an interrupted write");
    if (!sb_name_ends_with(name, ".json"))
        return SB_OK; /* logs, ncu sidecars (they go with their .json) */
    if (st->st_size == 0)
        return add(w, path, SB_GATHER_PARTIAL, NULL, "empty file (zero length)");
    json_t *doc = NULL;
    sb_error e;
    sb_error_clear(&e);
    /* as a plain file: the name was a regular file when the folder was
     * read, but may be a link or a FIFO (whose opening would wait for a
     * writer) by now */
    if (sb_json_load_plain_file(path, &doc, &e) != SB_OK) {
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

/* ------------------------------------------------------------ task records */

/* A task record (solbook-task.json) seen in the walk: which run directory
 * it belongs to, and the record (its index and the run's cases). */
typedef struct seen_task {
    char *run_dir;
    sb_task_record rec;
} seen_task;

static const char *state_words(sb_task_state state)
{
    if (state == SB_TASK_FAILED)
        return "failed";
    if (state == SB_TASK_CANCELLED)
        return "cancelled (SIGTERM: scancel, the time limit or preemption)";
    return "running: still running, or stopped without a word (killed, node lost)";
}

static size_t count_files(const char *dir, int depth)
{
    DIR *d = depth < 64 ? opendir(dir) : NULL;
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            strcmp(de->d_name, SB_TASK_RECORD_FILE) == 0)
            continue;
        char path[4096];
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path || lstat(path, &st) != 0)
            continue;
        n += S_ISDIR(st.st_mode) ? count_files(path, depth + 1) : 1;
    }
    closedir(d);
    return n;
}

/* Reads DIR/solbook-task.json with the one reader of task records
 * (task_status.h), as `submit --status` does. SB_OK with *done set when
 * the task finished (its files are gathered); otherwise the directory is
 * one unfinished task, added with its reason: a record that is refused,
 * or is another case's (the task writes OUT/CASE_ID/solbook-task.json),
 * keeps every file of its directory out. */
/* The experiment, arch and run id a task folder's place names
 * (ROOT/EXPERIMENT/ARCH/RUN_ID/CASE_ID, resolved); SB_ERR when it has too
 * few parts to say. */
static int folder_run(const char *dir, char run[3][256])
{
    char *real = realpath(dir, NULL);
    if (!real)
        return SB_ERR;
    char *end = strrchr(real, '/'); /* before CASE_ID */
    int rc = SB_OK;
    for (int k = 2; k >= 0 && rc == SB_OK; k--) {
        if (!end || end == real) {
            rc = SB_ERR;
            break;
        }
        *end = '\0';
        char *slash = strrchr(real, '/');
        snprintf(run[k], sizeof run[k], "%s", slash ? slash + 1 : real);
        end = slash;
    }
    free(real);
    return rc;
}

static int task_record(walk_ctx *w, const char *dir, int *done)
{
    char path[4096], why[2048]; /* room for an error's where and msg */
    *done = 0;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, SB_TASK_RECORD_FILE) >= sizeof path)
        return sb_error_set(w->err, dir, NULL, "path too long");
    sb_task_record rec;
    sb_error e;
    sb_error_clear(&e);
    size_t files = count_files(dir, 0);
    const char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    char run_of_folder[3][256];
    if (sb_task_record_read(path, &rec, &e) == SB_OK && strcmp(rec.case_id, base) != 0) {
        sb_error_set(&e, path, NULL, "the record of case %s in the folder of another", rec.case_id);
        sb_task_record_free(&rec);
    } else if (rec.doc && folder_run(dir, run_of_folder) == SB_OK &&
               (strcmp(rec.experiment, run_of_folder[0]) != 0 || strcmp(rec.arch, run_of_folder[1]) != 0 ||
                strcmp(rec.run_id, run_of_folder[2]) != 0)) {
        /* a task writes ROOT/EXPERIMENT/ARCH/RUN_ID/CASE_ID: a record of
         * another run says nothing of the files beside it */
        sb_error_set(&e, path, NULL, "the record of run %s of %s on %s in a folder of run %s of %s on %s",
                     rec.run_id, rec.experiment, rec.arch, run_of_folder[2], run_of_folder[0], run_of_folder[1]);
        sb_task_record_free(&rec);
    }
    if (!rec.doc) {
        snprintf(why, sizeof why, "task record " SB_TASK_RECORD_FILE " refused (%s%s%s); its %zu file%s are not stored",
                 e.where, e.where[0] ? ": " : "", e.msg, files, files == 1 ? "" : "s");
        return add(w, dir, SB_GATHER_UNFINISHED, NULL, why);
    }
    /* Remember it, for the tasks of the run that left no record. */
    if (w->n_tasks == w->cap_tasks) {
        size_t nc = w->cap_tasks ? 2 * w->cap_tasks : 16;
        seen_task *v = realloc(w->tasks, nc * sizeof *v);
        if (!v) {
            sb_task_record_free(&rec);
            return sb_error_set(w->err, dir, NULL, "out of memory");
        }
        w->tasks = v;
        w->cap_tasks = nc;
    }
    seen_task *t = &w->tasks[w->n_tasks];
    t->run_dir = slash ? strndup(dir, (size_t)(slash - dir)) : strdup(".");
    t->rec = rec;
    if (!t->run_dir) {
        sb_task_record_free(&t->rec);
        return sb_error_set(w->err, dir, NULL, "out of memory");
    }
    w->n_tasks++;
    if (rec.state == SB_TASK_DONE) {
        *done = 1;
        return SB_OK;
    }
    char status_text[40] = "";
    if (rec.state != SB_TASK_RUNNING)
        snprintf(status_text, sizeof status_text, " with exit status %d", rec.exit_status);
    snprintf(why, sizeof why, "task %zu (case %s) of %s job %s on %s: %s%s; its %zu file%s are not stored",
             rec.index, rec.case_id, rec.engine, rec.job_id, rec.host, state_words(rec.state), status_text, files,
             files == 1 ? "" : "s");
    return add(w, dir, SB_GATHER_UNFINISHED, NULL, why);
}

/* The tasks of each run that left no record (every record of a run lists
 * its cases). */
static int missing_tasks(walk_ctx *w)
{
    for (size_t i = 0; i < w->n_tasks; i++) {
        int first = 1;
        for (size_t k = 0; k < i && first; k++)
            first = strcmp(w->tasks[k].run_dir, w->tasks[i].run_dir) != 0;
        if (!first)
            continue;
        size_t n = w->tasks[i].rec.n_cases;
        for (size_t c = 0; c < n; c++) {
            int seen = 0;
            for (size_t k = i; k < w->n_tasks && !seen; k++)
                seen = w->tasks[k].rec.index == c && strcmp(w->tasks[k].run_dir, w->tasks[i].run_dir) == 0;
            if (seen)
                continue;
            const char *id = sb_task_record_case_at(&w->tasks[i].rec, c);
            char path[4096], why[600];
            snprintf(path, sizeof path, "%s/%s", w->tasks[i].run_dir, id);
            snprintf(why, sizeof why, "task %zu (case %s) left no record: not started yet, cancelled before it "
                     "started, or lost with its node", c, id);
            if (add(w, path, SB_GATHER_UNFINISHED, NULL, why) != SB_OK)
                return SB_ERR;
        }
    }
    return SB_OK;
}

static int walk(walk_ctx *w, const char *dir, int depth)
{
    if (depth > 64)
        return sb_error_set(w->err, dir, NULL, "directories nested deeper than 64");
    DIR *d = opendir(dir);
    if (!d && depth > 0 && errno == ENOENT)
        return SB_OK; /* gone since its parent was read */
    if (!d)
        return sb_error_set(w->err, dir, NULL, "cannot open directory: %s", strerror(errno));
    char **names;
    size_t n;
    int rc = sb_dir_read_names(d, dir, &names, &n, w->err);
    closedir(d);
    for (size_t i = 0; i < n && rc == SB_OK; i++)
        if (strcmp(names[i], SB_TASK_RECORD_FILE) == 0) {
            int done = 0;
            rc = task_record(w, dir, &done);
            if (rc != SB_OK || !done) {
                sb_dir_names_free(names, n);
                return rc;
            }
        }
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char path[4096];
        if (strcmp(names[i], SB_TASK_RECORD_FILE) == 0)
            continue;
        if (strcmp(names[i], SB_GATHER_SUPERSEDED) == 0) {
            char sup[4096];
            snprintf(sup, sizeof sup, "%s/%s", dir, names[i]);
            DIR *sd = opendir(sup);
            for (struct dirent *de; sd && (de = readdir(sd));)
                w->g->superseded += de->d_name[0] != '.';
            if (sd)
                closedir(sd);
            continue;
        }
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= sizeof path) {
            rc = sb_error_set(w->err, dir, NULL, "path too long: %s", names[i]);
            break;
        }
        struct stat st, lst;
        if (lstat(path, &lst) != 0) {
            if (errno == ENOENT)
                continue; /* gone since the folder was read: a temporary file renamed into place */
            rc = sb_error_set(w->err, path, NULL, "cannot stat: %s", strerror(errno));
            break;
        }
        if (S_ISLNK(lst.st_mode)) {
            /* A link is never followed: what a task wrote is a file of its
             * folder, and a link could put any file of this machine into
             * the database. Links to directories are passed over. */
            if (stat(path, &st) != 0)
                rc = add(w, path, SB_GATHER_INVALID, NULL, "dangling symbolic link");
            else if (S_ISREG(st.st_mode))
                rc = add(w, path, SB_GATHER_INVALID, NULL, "symbolic link: not followed");
            continue;
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
    walk_ctx w = {out, 0, err, NULL, 0, 0, NULL, NULL};
    for (size_t i = 0; i < n_dirs; i++) {
        struct stat st;
        int rc = SB_OK;
        if (stat(dirs[i], &st) != 0)
            rc = sb_error_set(err, dirs[i], NULL, "cannot read: %s", strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            rc = sb_error_set(err, dirs[i], NULL, "not a directory (give the output tree of a fleet run)");
        else
        {
            char *real = realpath(dirs[i], NULL);
            w.root = dirs[i];
            w.root_real = real;
            rc = walk(&w, dirs[i], 0);
            w.root_real = NULL;
            free(real);
        }
        if (rc == SB_OK && i + 1 == n_dirs)
            rc = missing_tasks(&w);
        if (rc != SB_OK) {
            for (size_t k = 0; k < w.n_tasks; k++) {
                free(w.tasks[k].run_dir);
                sb_task_record_free(&w.tasks[k].rec);
            }
            free(w.tasks);
            sb_gather_free(out);
            return SB_ERR;
        }
    }
    for (size_t k = 0; k < w.n_tasks; k++) {
        free(w.tasks[k].run_dir);
        sb_task_record_free(&w.tasks[k].rec);
    }
    free(w.tasks);
    if (out->n)
        qsort(out->files, out->n, sizeof *out->files, cmp_file);
    /* A file reached twice (overlapping directories given) counts once. */
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (kept && strcmp(out->files[kept - 1].path, out->files[i].path) == 0) {
            free(out->files[i].path);
            free(out->files[i].key);
            free(out->files[i].why);
            free(out->files[i].folder);
            continue;
        }
        out->files[kept++] = out->files[i];
    }
    out->n = kept;
    for (size_t i = 0; i < out->n;) {
        sb_gather_file *f = &out->files[i];
        if (!f->key) {
            if (f->state == SB_GATHER_UNFINISHED)
                out->unfinished++;
            else if (f->state == SB_GATHER_PARTIAL)
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
        free(g->files[i].folder);
    }
    free(g->files);
    memset(g, 0, sizeof *g);
}

size_t sb_gather_problems(const sb_gather *g)
{
    return g->partial + g->invalid + g->duplicate_files + g->unfinished;
}

char **sb_gather_accepted_folders(const sb_gather *g, size_t *n)
{
    *n = 0;
    char **v = malloc((g->accepted ? g->accepted : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < g->n; i++)
        if (g->files[i].state == SB_GATHER_ACCEPTED)
            v[(*n)++] = g->files[i].folder;
    return v;
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
        if (f->state == SB_GATHER_UNFINISHED) {
            sb_term_append(&t, "unfinished: %s: %s", f->path, f->why);
        } else if (f->state == SB_GATHER_PARTIAL || f->state == SB_GATHER_INVALID) {
            sb_term_append(&t, "%s: %s: %s", f->state == SB_GATHER_PARTIAL ? "partial" : "invalid", f->path,
                           f->why);
        } else if (f->state == SB_GATHER_DUPLICATE) {
            size_t j = i;
            while (j < g->n && g->files[j].key && strcmp(g->files[j].key, f->key) == 0)
                j++;
            for (size_t k = i; k < j; k++)
                sb_term_append(&t, "duplicate: %s: %zu final results for one case, provider and arch (%s)",
                               g->files[k].path, j - i, f->key);
            i = j - 1;
        }
    }
    sb_buf_printf(&t, "gather: %zu accepted, %zu duplicate file%s in %zu group%s, %zu partial, %zu invalid",
                   g->accepted, g->duplicate_files, g->duplicate_files == 1 ? "" : "s", g->duplicate_groups,
                   g->duplicate_groups == 1 ? "" : "s", g->partial, g->invalid);
    if (g->unfinished || g->superseded)
        sb_buf_printf(&t, ", %zu unfinished task%s, %zu superseded attempt%s", g->unfinished,
                      g->unfinished == 1 ? "" : "s", g->superseded, g->superseded == 1 ? "" : "s");
    sb_buf_puts(&t, "\n");
    return sb_buf_take(&t);
}
