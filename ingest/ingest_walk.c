/* ingest_walk.c - files and directories into the database, in sorted
 * order, with symbolic-link loops caught by device and inode. */
#include "ingest.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <time.h>

#include "ingest_prepared.h"
#include "json_file.h"
#include "store.h"

typedef struct dev_ino {
    dev_t dev;
    ino_t ino;
} dev_ino;

/* One thing to do, in order: a file to ingest, or a problem the walk found. */
typedef struct entry {
    char *path;
    sb_error *problem;   /* non-NULL: report it, nothing to ingest */
} entry;

typedef struct walker {
    entry *entries;
    size_t n_entries, cap_entries;
    int oom;
    sb_ingest *ing;
    const sb_ingest_walk *w;
    sb_ingest_stats *stats;
    dev_ino *stack;   /* directories from the top of this walk down to here */
    size_t depth, cap;
    /* Group commit (outside a batch): files are stored under their own
     * savepoints in a transaction committed every GROUP_MS or GROUP_FILES. */
    int group_open;
    long group_files;
    long group_stored, group_dups, group_ncu;
    struct timespec group_start;
    dev_ino *seen;    /* every directory and file taken so far (hash set) */
    unsigned char *used;
    size_t n_seen, cap_seen;
} walker;

static void report(walker *wk, const sb_error *e)
{
    wk->stats->refused++;
    if (wk->w && wk->w->on_error)
        wk->w->on_error(wk->w->ctx, e);
}

static int add_entry(walker *wk, const char *path, const sb_error *problem)
{
    if (wk->n_entries == wk->cap_entries) {
        size_t cap = wk->cap_entries ? 2 * wk->cap_entries : 256;
        entry *e = realloc(wk->entries, cap * sizeof *e);
        if (!e)
            return SB_ERR;
        wk->entries = e;
        wk->cap_entries = cap;
    }
    entry *e = &wk->entries[wk->n_entries];
    e->path = strdup(path);
    e->problem = NULL;
    if (!e->path)
        return SB_ERR;
    if (problem) {
        e->problem = malloc(sizeof *e->problem);
        if (!e->problem) {
            free(e->path);
            return SB_ERR;
        }
        *e->problem = *problem;
    }
    wk->n_entries++;
    return SB_OK;
}

/* A problem found while walking, reported in walk order later. */
static void report_new(walker *wk, const char *file, const char *fmt, const char *arg)
{
    sb_error e;
    sb_error_clear(&e);
    sb_error_set(&e, file, NULL, fmt, arg);
    if (add_entry(wk, file, &e) != SB_OK)
        wk->oom = 1;
}

/* seen: an open-addressing hash set of (device, inode), so that a tree of
 * many files is walked in linear time. cap_seen is a power of two. */
static size_t hash_di(dev_t dev, ino_t ino)
{
    unsigned long long h = (unsigned long long)ino * 0x9E3779B97F4A7C15ull ^ (unsigned long long)dev;
    return (size_t)(h ^ (h >> 29));
}

static int seen_before(walker *wk, dev_t dev, ino_t ino)
{
    if (!wk->cap_seen)
        return 0;
    for (size_t i = hash_di(dev, ino) & (wk->cap_seen - 1);; i = (i + 1) & (wk->cap_seen - 1)) {
        if (!wk->used[i])
            return 0;
        if (wk->seen[i].dev == dev && wk->seen[i].ino == ino)
            return 1;
    }
}

static void insert_seen(dev_ino *seen, unsigned char *used, size_t cap, dev_t dev, ino_t ino)
{
    size_t i = hash_di(dev, ino) & (cap - 1);
    while (used[i])
        i = (i + 1) & (cap - 1);
    used[i] = 1;
    seen[i].dev = dev;
    seen[i].ino = ino;
}

static int remember(walker *wk, dev_t dev, ino_t ino)
{
    if (2 * (wk->n_seen + 1) > wk->cap_seen) {
        size_t cap = wk->cap_seen ? 2 * wk->cap_seen : 1024;
        dev_ino *s = malloc(cap * sizeof *s);
        unsigned char *u = calloc(cap, 1);
        if (!s || !u) {
            free(s);
            free(u);
            return SB_ERR;
        }
        for (size_t i = 0; i < wk->cap_seen; i++)
            if (wk->used[i])
                insert_seen(s, u, cap, wk->seen[i].dev, wk->seen[i].ino);
        free(wk->seen);
        free(wk->used);
        wk->seen = s;
        wk->used = u;
        wk->cap_seen = cap;
    }
    insert_seen(wk->seen, wk->used, wk->cap_seen, dev, ino);
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

/* Result of reading and validating one file (the reader's half). */
typedef struct slot {
    int rc;
    sb_ingest_prepared p;
    sb_error err;
} slot;

static void prepare_one(const sb_ingest *ing, const char *path, slot *sl)
{
    json_t *doc;
    sb_error_clear(&sl->err);
    memset(&sl->p, 0, sizeof sl->p);
    sl->rc = sb_json_load_file(path, &doc, &sl->err);
    if (sl->rc != SB_OK)
        return;
    sl->rc = sb_ingest_prepare(ing, doc, path, &sl->p, &sl->err);
    json_decref(doc);
}

/* The storing half, on the thread that owns the database. */
static void store_one(walker *wk, const char *path, slot *sl)
{
    long long id;
    int dup;
    wk->stats->files_seen++;
    if (sl->rc != SB_OK ||
        sb_ingest_store_prepared(wk->ing, &sl->p, path, "solbook", &id, &dup, &sl->err) != SB_OK) {
        report(wk, &sl->err);
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
    sb_error e;
    sb_error_clear(&e);
    wk->stats->files_seen++;
    if (sb_ingest_attach_ncu(wk->ing, id, side, &rows, &e) != SB_OK) {
        report(wk, &e);
    } else {
        wk->stats->ncu_attached++;
        if (wk->w && wk->w->on_file)
            wk->w->on_file(wk->w->ctx, side, id, 0, rows);
    }
    free(side);
}

static void report_problem(walker *wk, const sb_error *e)
{
    wk->stats->files_seen++;
    report(wk, e);
}

#define GROUP_MS 100
#define GROUP_FILES 512

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* Commits the open group. If that fails, the group's files were not
 * stored after all: they move from stored to refused, with one line. */
static void group_commit(walker *wk)
{
    if (!wk->group_open)
        return;
    wk->group_open = 0;
    sb_error e;
    sb_error_clear(&e);
    if (sb_ingest_commit(wk->ing, &e) != SB_OK) {
        char msg[sizeof e.msg];
        snprintf(msg, sizeof msg, "%s", e.msg);
        sb_error_set(&e, sb_db_path(sb_ingest_db(wk->ing)), NULL,
                     "%s; the last %ld files were not stored", msg, wk->group_files);
        wk->stats->stored -= wk->group_stored;
        wk->stats->duplicates -= wk->group_dups;
        wk->stats->ncu_attached -= wk->group_ncu;
        wk->stats->refused += wk->group_files - 1; /* report() counts one */
        report(wk, &e);
    }
}

static void group_open(walker *wk)
{
    if (wk->group_open || sb_ingest_in_batch(wk->ing))
        return;
    sb_error e;
    sb_error_clear(&e);
    /* When the lock cannot be had, each file gets its own transaction and
     * reports its own error. */
    if (sb_ingest_begin(wk->ing, &e) != SB_OK)
        return;
    wk->group_open = 1;
    wk->group_files = wk->group_stored = wk->group_dups = wk->group_ncu = 0;
    clock_gettime(CLOCK_MONOTONIC, &wk->group_start);
}

/* Stores one file inside the group, committing when the group is due. */
static void store_grouped(walker *wk, const char *path, slot *sl)
{
    long stored = wk->stats->stored, dups = wk->stats->duplicates, ncu = wk->stats->ncu_attached;
    group_open(wk);
    store_one(wk, path, sl);
    if (!wk->group_open)
        return;
    wk->group_files++;
    wk->group_stored += wk->stats->stored - stored;
    wk->group_dups += wk->stats->duplicates - dups;
    wk->group_ncu += wk->stats->ncu_attached - ncu;
    if (wk->group_files >= GROUP_FILES || ms_since(&wk->group_start) >= GROUP_MS)
        group_commit(wk);
}

/* ---- the pipeline: a reader thread runs ahead of the storing thread by
 * at most RING files, so parsing and validation overlap with SQLite. ---- */

#define RING 32

typedef struct pipe {
    const sb_ingest *ing;
    const entry *entries;
    size_t n;
    slot ring[RING];
    size_t produced, consumed;   /* entries done by each side */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pipe_t;

static void *reader_main(void *arg)
{
    pipe_t *pp = arg;
    for (size_t i = 0; i < pp->n; i++) {
        pthread_mutex_lock(&pp->mu);
        while (i - pp->consumed >= RING && !pp->stop)
            pthread_cond_wait(&pp->cv, &pp->mu);
        int stop = pp->stop;
        pthread_mutex_unlock(&pp->mu);
        if (stop)
            break;
        slot *sl = &pp->ring[i % RING];
        /* What the slot held was stored by now; freed on this thread, which
         * allocated it (cheaper for malloc than freeing across threads). */
        sb_ingest_prepared_free(&sl->p);
        if (pp->entries[i].problem)
            sl->rc = SB_OK;
        else
            prepare_one(pp->ing, pp->entries[i].path, sl);
        pthread_mutex_lock(&pp->mu);
        pp->produced = i + 1;
        pthread_cond_broadcast(&pp->cv);
        pthread_mutex_unlock(&pp->mu);
    }
    return NULL;
}

static void process_entries(walker *wk)
{
    pipe_t *pp = calloc(1, sizeof *pp);
    int threaded = 0;
    if (pp && wk->n_entries > 1) {
        pp->ing = wk->ing;
        pp->entries = wk->entries;
        pp->n = wk->n_entries;
        pthread_mutex_init(&pp->mu, NULL);
        pthread_cond_init(&pp->cv, NULL);
        pthread_t th;
        threaded = pthread_create(&th, NULL, reader_main, pp) == 0;
        if (threaded) {
            for (size_t i = 0; i < wk->n_entries; i++) {
                pthread_mutex_lock(&pp->mu);
                while (pp->produced <= i)
                    pthread_cond_wait(&pp->cv, &pp->mu);
                pthread_mutex_unlock(&pp->mu);
                slot *sl = &pp->ring[i % RING];
                if (wk->entries[i].problem)
                    report_problem(wk, wk->entries[i].problem);
                else
                    store_grouped(wk, wk->entries[i].path, sl);
                pthread_mutex_lock(&pp->mu);
                pp->consumed = i + 1;
                pthread_cond_broadcast(&pp->cv);
                pthread_mutex_unlock(&pp->mu);
            }
            pthread_join(th, NULL);
            for (size_t k = 0; k < RING; k++)
                sb_ingest_prepared_free(&pp->ring[k].p);
        }
        pthread_cond_destroy(&pp->cv);
        pthread_mutex_destroy(&pp->mu);
    }
    if (!threaded) {
        slot *sl = pp ? &pp->ring[0] : malloc(sizeof *sl);
        for (size_t i = 0; i < wk->n_entries; i++) {
            if (wk->entries[i].problem) {
                report_problem(wk, wk->entries[i].problem);
                continue;
            }
            if (!sl) {
                sb_error e;
                sb_error_clear(&e);
                sb_error_set(&e, wk->entries[i].path, NULL, "out of memory");
                wk->stats->files_seen++;
                report(wk, &e);
                continue;
            }
            prepare_one(wk->ing, wk->entries[i].path, sl);
            store_grouped(wk, wk->entries[i].path, sl);
            sb_ingest_prepared_free(&sl->p);
        }
        if (!pp)
            free(sl);
    }
    group_commit(wk);
    free(pp);
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
    if (remember(wk, st.st_dev, st.st_ino) != SB_OK || add_entry(wk, path, NULL) != SB_OK)
        wk->oom = 1;
}

int sb_ingest_paths(sb_ingest *ing, char *const *paths, size_t n_paths,
                    const sb_ingest_walk *w, sb_ingest_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    walker wk = {.ing = ing, .w = w, .stats = stats};
    int strict = w && w->strict;
    sb_error e;
    sb_error_clear(&e);
    for (size_t i = 0; i < n_paths && !wk.oom; i++)
        walk(&wk, paths[i], 1);
    free(wk.stack);
    free(wk.seen);
    free(wk.used);
    if (wk.oom) {
        sb_error_set(&e, n_paths ? paths[0] : "", NULL, "out of memory while listing files");
        report(&wk, &e);
    } else if (strict && sb_ingest_begin(ing, &e) != SB_OK) {
        report(&wk, &e);
    } else {
        process_entries(&wk);
        if (strict) {
            if (stats->refused) {
                sb_ingest_rollback(ing);
                stats->stored = 0;
                stats->ncu_attached = 0;
            } else if (sb_ingest_commit(ing, &e) != SB_OK) {
                report(&wk, &e);
                stats->stored = 0;
                stats->ncu_attached = 0;
            }
        }
    }
    for (size_t i = 0; i < wk.n_entries; i++) {
        free(wk.entries[i].path);
        free(wk.entries[i].problem);
    }
    free(wk.entries);
    return stats->refused ? SB_ERR : SB_OK;
}
