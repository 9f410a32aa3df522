/* ingest_list.c - the paths of an ingest listed in walk order. */
#include "ingest_list.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_name.h"
#include "ingest_archive.h"

typedef struct dev_ino {
    dev_t dev;
    ino_t ino;
} dev_ino;

typedef struct lister {
    sb_ingest_list *out;
    size_t cap_entries;
    dev_ino *stack;   /* directories from the top of this walk down to here */
    size_t depth, cap;
    dev_ino *seen;    /* every directory and file taken so far (hash set) */
    unsigned char *used;
    size_t n_seen, cap_seen;
    char *top_real;   /* the folder named on the command line, resolved: no link leads out of it
                       * (owned by out->tops); NULL while a file named itself is listed */
} lister;

static int add_entry(lister *wk, const char *path, const sb_error *problem, unsigned absent)
{
    sb_ingest_list *l = wk->out;
    if (l->n == wk->cap_entries) {
        size_t cap = wk->cap_entries ? 2 * wk->cap_entries : 256;
        sb_ingest_entry *e = realloc(l->v, cap * sizeof *e);
        if (!e)
            return SB_ERR;
        l->v = e;
        wk->cap_entries = cap;
    }
    sb_ingest_entry *e = &l->v[l->n];
    e->path = strdup(path);
    e->problem = NULL;
    e->absent = absent;
    e->inside = wk->top_real;
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
    l->n++;
    return SB_OK;
}

/* A problem found while walking, reported in walk order later. */
static void report_new(lister *wk, const char *file, const char *fmt, const char *arg)
{
    sb_error e;
    sb_error_clear(&e);
    sb_error_set(&e, file, NULL, fmt, arg);
    if (add_entry(wk, file, &e, 0) != SB_OK)
        wk->out->oom = 1;
}

/* seen: an open-addressing hash set of (device, inode), so that a tree of
 * many files is walked in linear time. cap_seen is a power of two. */
static size_t hash_di(dev_t dev, ino_t ino)
{
    unsigned long long h = (unsigned long long)ino * 0x9E3779B97F4A7C15ull ^ (unsigned long long)dev;
    return (size_t)(h ^ (h >> 29));
}

static int seen_before(lister *wk, dev_t dev, ino_t ino)
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

static int remember(lister *wk, dev_t dev, ino_t ino)
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

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the last component of path has a dot after its first
 * character (notes.txt, run.ncu.csv; not data or .cache). */
static int has_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return base[0] != '\0' && strchr(base + 1, '.') != NULL;
}

static void walk(lister *wk, const char *path, int top, unsigned absent);

/* Whether the sorted names hold name with its ".json" replaced by sfx. */
static int listed(char *const *names, size_t n, const char *name, const char *sfx)
{
    char *side = sb_name_resuffixed(name, ".json", sfx);
    if (!side)
        return 1; /* unknown: looked up beside the file later */
    int found = bsearch(&side, names, n, sizeof *names, cmp_name) != NULL;
    free(side);
    return found;
}

/* The sidecars of names[i] that the directory does not hold. A listing
 * read once spares every result file two failed lookups. */
static unsigned absent_sidecars(char *const *names, size_t n, size_t i)
{
    if (!sb_name_ends_with(names[i], ".json"))
        return 0;
    unsigned absent = 0;
    if (!listed(names, n, names[i], ".ncu.csv"))
        absent |= SB_INGEST_NO_NCU;
    if (!listed(names, n, names[i], ".nsys.csv"))
        absent |= SB_INGEST_NO_NSYS;
    return absent;
}

static void walk_dir(lister *wk, const char *path, const struct stat *st)
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
        if (n) /* qsort(NULL, 0, ...) is undefined: an empty folder has no names */
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
            walk(wk, child, 0, absent_sidecars(names, n, i));
            free(child);
        }
        wk->depth--;
    }
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* 1 when path, a symbolic link met inside the folder being walked, leads
 * out of it: a folder's results are read from inside it only, so a link
 * to another file of the machine never puts that file's bytes into the
 * database. */
static int link_leads_out(const lister *wk, const char *path)
{
    struct stat lst;
    if (!wk->top_real || lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode))
        return 0;
    char *real = realpath(path, NULL);
    if (!real)
        return 0; /* dangling or a loop: stat below says which */
    size_t n = strlen(wk->top_real);
    int inside = strncmp(real, wk->top_real, n) == 0 && (real[n] == '/' || real[n] == '\0' ||
                                                         (n == 1 && wk->top_real[0] == '/'));
    free(real);
    return !inside;
}

static void walk(lister *wk, const char *path, int top, unsigned absent)
{
    struct stat st;
    if (!top && link_leads_out(wk, path)) {
        /* said of what the walk would take (a folder, a result, an
         * archive); a sidecar's link is its document's to refuse */
        if ((stat(path, &st) == 0 && S_ISDIR(st.st_mode)) || sb_name_ends_with(path, ".json") ||
            sb_archive_named(path))
            report_new(wk, path, "%s", "symbolic link out of the folder given: not followed");
        return;
    }
    if (stat(path, &st) != 0) {
        /* A name the walk would pass over if it could be read (notes.txt,
         * a sidecar, which its document reads) is passed over when it
         * cannot: a dangling link or a file removed since the listing
         * refuses nothing. A result, an archive or a name without an
         * extension (a folder, maybe) is said. */
        if (!top && !sb_name_ends_with(path, ".json") && !sb_archive_named(path) && has_extension(path))
            return;
        struct stat lst;
        if (errno == ELOOP || (errno == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)))
            report_new(wk, path, "%s",
                       errno == ELOOP ? "symbolic link loop: cannot be resolved" : "dangling symbolic link");
        else
            report_new(wk, path, "cannot read: %s", strerror(errno));
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        if (top) {
            char *real = realpath(path, NULL);
            if (!real) {
                report_new(wk, path, "cannot resolve: %s", strerror(errno));
                return;
            }
            char **tops = realloc(wk->out->tops, (wk->out->n_tops + 1) * sizeof *tops);
            if (!tops) {
                free(real);
                wk->out->oom = 1;
                return;
            }
            wk->out->tops = tops;
            tops[wk->out->n_tops++] = real;
            wk->top_real = real;
        }
        walk_dir(wk, path, &st);
        return;
    }
    if (!top && !sb_name_ends_with(path, ".json") && !sb_archive_named(path))
        return;
    if (!S_ISREG(st.st_mode)) {
        if (top)
            report_new(wk, path, "%s", "not a regular file or directory");
        return;
    }
    if (seen_before(wk, st.st_dev, st.st_ino))
        return; /* the same file named twice (links, overlapping arguments) */
    if (remember(wk, st.st_dev, st.st_ino) != SB_OK || add_entry(wk, path, NULL, absent) != SB_OK)
        wk->out->oom = 1;
}

/* The resolved folder of a file named itself, kept in out->tops; NULL
 * when it cannot be resolved (the read then fails on its own). */
static char *own_folder(lister *wk, const char *path, const char *given)
{
    char *real = NULL;
    if (given) {
        real = strdup(given);
    } else {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
        real = dir ? realpath(dir, NULL) : NULL;
        free(dir);
    }
    char **tops = real ? realloc(wk->out->tops, (wk->out->n_tops + 1) * sizeof *tops) : NULL;
    if (!tops) {
        free(real);
        return NULL;
    }
    wk->out->tops = tops;
    tops[wk->out->n_tops++] = real;
    return real;
}

void sb_ingest_list_paths(char *const *paths, size_t n_paths, int in_place, char *const *insides,
                          sb_ingest_list *out)
{
    memset(out, 0, sizeof *out);
    lister wk = {.out = out};
    for (size_t i = 0; i < n_paths && !out->oom; i++) {
        struct stat st;
        wk.top_real = in_place && stat(paths[i], &st) == 0 && !S_ISDIR(st.st_mode)
                          ? own_folder(&wk, paths[i], insides ? insides[i] : NULL)
                          : NULL;
        walk(&wk, paths[i], 1, 0);
    }
    free(wk.stack);
    free(wk.seen);
    free(wk.used);
}

void sb_ingest_list_free(sb_ingest_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].problem);
    }
    free(l->v);
    for (size_t i = 0; i < l->n_tops; i++)
        free(l->tops[i]);
    free(l->tops);
    memset(l, 0, sizeof *l);
}
