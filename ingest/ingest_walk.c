/* ingest_walk.c - files and directories into the database, in sorted
 * order, with symbolic-link loops caught by device and inode. */
#include "ingest.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"

typedef struct dev_ino {
    dev_t dev;
    ino_t ino;
} dev_ino;

typedef struct walker {
    sb_ingest *ing;
    const sb_ingest_walk *w;
    sb_ingest_stats *stats;
    dev_ino *stack;   /* directories from the top of this walk down to here */
    size_t depth, cap;
    dev_ino *seen;    /* every directory and file taken so far */
    size_t n_seen, cap_seen;
} walker;

static void report(walker *wk, const sb_error *e)
{
    wk->stats->refused++;
    if (wk->w && wk->w->on_error)
        wk->w->on_error(wk->w->ctx, e);
}

static void report_new(walker *wk, const char *file, const char *fmt, const char *arg)
{
    sb_error e;
    sb_error_clear(&e);
    sb_error_set(&e, file, NULL, fmt, arg);
    wk->stats->files_seen++;
    report(wk, &e);
}

static int seen_before(walker *wk, dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < wk->n_seen; i++)
        if (wk->seen[i].dev == dev && wk->seen[i].ino == ino)
            return 1;
    return 0;
}

static int remember(walker *wk, dev_t dev, ino_t ino)
{
    if (wk->n_seen == wk->cap_seen) {
        size_t cap = wk->cap_seen ? 2 * wk->cap_seen : 256;
        dev_ino *s = realloc(wk->seen, cap * sizeof *s);
        if (!s)
            return SB_ERR;
        wk->seen = s;
        wk->cap_seen = cap;
    }
    wk->seen[wk->n_seen].dev = dev;
    wk->seen[wk->n_seen].ino = ino;
    wk->n_seen++;
    return SB_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* NAME.json -> NAME.ncu.csv when that file exists. */
static char *sidecar_of(const char *path)
{
    if (!ends_with(path, ".json"))
        return NULL;
    size_t base = strlen(path) - 5;
    char *s = malloc(base + sizeof ".ncu.csv");
    if (!s)
        return NULL;
    memcpy(s, path, base);
    memcpy(s + base, ".ncu.csv", sizeof ".ncu.csv");
    struct stat st;
    if (stat(s, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(s);
        return NULL;
    }
    return s;
}

static void ingest_one(walker *wk, const char *path)
{
    sb_error e;
    sb_error_clear(&e);
    long long id;
    int dup;
    wk->stats->files_seen++;
    if (sb_ingest_file(wk->ing, path, &id, &dup, &e) != SB_OK) {
        report(wk, &e);
        return;
    }
    if (dup)
        wk->stats->duplicates++;
    else
        wk->stats->stored++;
    if (wk->w && wk->w->on_file)
        wk->w->on_file(wk->w->ctx, path, id, dup, 0);
    char *side = sidecar_of(path);
    if (!side)
        return;
    long rows = 0;
    wk->stats->files_seen++;
    sb_error_clear(&e);
    if (sb_ingest_attach_ncu(wk->ing, id, side, &rows, &e) != SB_OK) {
        report(wk, &e);
    } else {
        wk->stats->ncu_attached++;
        if (wk->w && wk->w->on_file)
            wk->w->on_file(wk->w->ctx, side, id, 0, rows);
    }
    free(side);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(walker *wk, const char *path, int top);

static void walk_dir(walker *wk, const char *path, const struct stat *st)
{
    for (size_t i = 0; i < wk->depth; i++)
        if (wk->stack[i].dev == st->st_dev && wk->stack[i].ino == st->st_ino) {
            report_new(wk, path, "%s", "symbolic link loop: this directory contains itself; not followed");
            return;
        }
    if (seen_before(wk, st->st_dev, st->st_ino))
        return; /* reached again through another link: already walked */
    DIR *d = opendir(path);
    if (!d) {
        report_new(wk, path, "cannot read directory: %s", strerror(errno));
        return;
    }
    if (remember(wk, st->st_dev, st->st_ino) != SB_OK) {
        closedir(d);
        report_new(wk, path, "%s", "out of memory");
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    int oom = 0;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                oom = 1;
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(de->d_name))) {
            oom = 1;
            break;
        }
        n++;
    }
    int read_errno = errno;
    closedir(d);
    if (oom || (de == NULL && read_errno)) {
        report_new(wk, path, "cannot read directory: %s", oom ? "out of memory" : strerror(read_errno));
    } else {
        qsort(names, n, sizeof *names, cmp_name);
        if (wk->depth == wk->cap) {
            size_t c2 = wk->cap ? 2 * wk->cap : 32;
            dev_ino *s = realloc(wk->stack, c2 * sizeof *s);
            if (!s) {
                report_new(wk, path, "%s", "out of memory");
                goto out;
            }
            wk->stack = s;
            wk->cap = c2;
        }
        wk->stack[wk->depth].dev = st->st_dev;
        wk->stack[wk->depth].ino = st->st_ino;
        wk->depth++;
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(path) + strlen(names[i]) + 2;
            char *child = malloc(len);
            if (!child) {
                report_new(wk, path, "%s", "out of memory");
                break;
            }
            int slash = path[strlen(path) - 1] == '/';
            snprintf(child, len, "%s%s%s", path, slash ? "" : "/", names[i]);
            walk(wk, child, 0);
            free(child);
        }
        wk->depth--;
    }
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void walk(walker *wk, const char *path, int top)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        struct stat lst;
        if (errno == ELOOP || (errno == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)))
            report_new(wk, path, "%s",
                       errno == ELOOP ? "symbolic link loop: cannot be resolved" : "dangling symbolic link");
        else
            report_new(wk, path, "cannot read: %s", strerror(errno));
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        walk_dir(wk, path, &st);
        return;
    }
    if (!top && !ends_with(path, ".json"))
        return;
    if (!S_ISREG(st.st_mode)) {
        if (top)
            report_new(wk, path, "%s", "not a regular file or directory");
        return;
    }
    if (seen_before(wk, st.st_dev, st.st_ino))
        return; /* the same file named twice (links, overlapping arguments) */
    if (remember(wk, st.st_dev, st.st_ino) != SB_OK) {
        report_new(wk, path, "%s", "out of memory");
        return;
    }
    ingest_one(wk, path);
}

int sb_ingest_paths(sb_ingest *ing, char *const *paths, size_t n_paths,
                    const sb_ingest_walk *w, sb_ingest_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    walker wk = {.ing = ing, .w = w, .stats = stats};
    int strict = w && w->strict;
    if (strict) {
        sb_error e;
        sb_error_clear(&e);
        if (sb_ingest_begin(ing, &e) != SB_OK) {
            report(&wk, &e);
            return SB_ERR;
        }
    }
    for (size_t i = 0; i < n_paths; i++)
        walk(&wk, paths[i], 1);
    free(wk.stack);
    free(wk.seen);
    if (strict) {
        if (stats->refused) {
            sb_ingest_rollback(ing);
            stats->stored = 0;
            stats->ncu_attached = 0;
        } else {
            sb_error e;
            sb_error_clear(&e);
            if (sb_ingest_commit(ing, &e) != SB_OK) {
                report(&wk, &e);
                stats->stored = 0;
                stats->ncu_attached = 0;
            }
        }
    }
    return stats->refused ? SB_ERR : SB_OK;
}
