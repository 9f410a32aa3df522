/* ingest_walk.c - the listed files and archive members into the database,
 * read, prepared and stored by a pipeline of threads, in list order. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "ingest.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "file_name.h"
#include "ingest_archive.h"
#include "ingest_list.h"
#include "ingest_prepared.h"
#include "json_fast.h"
#include "json_file.h"
#include "run_store.h"
#include "store.h"

typedef struct walker {
    sb_ingest *ing;
    const sb_ingest_walk *w;
    sb_ingest_stats *stats;
    /* Group commit (outside a batch): files are stored under their own
     * savepoints in a transaction committed every GROUP_MS or GROUP_FILES. */
    int group_open;
    long group_files;
    long group_stored, group_dups, group_ncu, group_nsys;
    struct timespec group_start;
} walker;

static void report(walker *wk, const sb_error *e)
{
    wk->stats->refused++;
    if (wk->w && wk->w->on_error)
        wk->w->on_error(wk->w->ctx, e);
}

/* NAME.json -> NAME.SUFFIX (.ncu.csv, .nsys.csv) when that file exists;
 * *size gets its size, *link 1 when the name is a symbolic link, *special
 * 1 when it is no regular file (a FIFO, a device, a folder: nothing to
 * read, and a FIFO would wait for a writer), and *names its number of
 * names (a sidecar is read only as a file of its own beside
 * its document, so a link to some other file of the machine is refused,
 * never read: a hard link too, since nothing about one name says where
 * the file's other names lie). */
static char *sidecar_of(const char *path, const char *suffix, uint64_t *size, int *link, int *special,
                        uintmax_t *names)
{
    char *s = sb_name_resuffixed(path, ".json", suffix);
    if (!s)
        return NULL;
    struct stat st;
    if (lstat(s, &st) != 0) {
        free(s);
        return NULL;
    }
    if (S_ISLNK(st.st_mode)) {
        *link = 1;
        return s;
    }
    if (!S_ISREG(st.st_mode)) {
        *special = 1;
        return s;
    }
    *size = (uint64_t)st.st_size;
    *names = (uintmax_t)st.st_nlink;
    return s;
}

/* One document to store, in walk order: a file, an archive's member, or a
 * problem to report. The reader fills the input half; a preparer writes
 * the output half; the storing half takes it. */
typedef struct item {
    /* input, allocated and freed by the reader */
    char *source;        /* path, or ARCHIVE:MEMBER */
    int on_disk;         /* a plain file: its NAME.ncu.csv is looked for beside it */
    const char *inside;  /* the folder given it was found in (sb_ingest_entry), or NULL */
    unsigned absent;     /* sidecars its directory does not hold (ingest_list.h) */
    int is_problem;      /* report err, nothing to store */
    int is_note;         /* with is_problem: err is a note (an archive member passed over), not a refusal */
    char *ncu;           /* an archive member's sidecar bytes, or NULL */
    size_t ncu_len;
    char *nsys;          /* an archive member's NAME.nsys.csv bytes, or NULL */
    size_t nsys_len;
    char *data;          /* an archive member's bytes */
    size_t data_len;
    size_t text_bytes;   /* the document's text (and sidecars') counted as read ahead */
    unsigned long archive; /* the reader's number of the archive it came from; 0: none */
    const char *archive_path; /* that archive, as listed */
    /* output, allocated and freed by the preparer that owns the slot */
    int rc;
    sb_ingest_prepared p;
    char *sidecar;       /* NAME.ncu.csv beside an on-disk file, when it exists */
    char *nsys_sidecar;  /* NAME.nsys.csv beside it, when it exists */
    sb_error err;        /* the problem, or why preparing failed */
    int ready;           /* prepared (or a problem): the storing half may take it */
} item;

static void item_clear_input(item *it)
{
    free(it->source);
    free(it->ncu);
    free(it->nsys);
    free(it->data);
    it->source = it->ncu = it->nsys = it->data = NULL;
    it->ncu_len = it->nsys_len = it->data_len = it->text_bytes = 0;
    it->on_disk = it->is_problem = it->is_note = 0;
    it->absent = 0;
    it->inside = NULL;
    it->archive = 0;
    it->archive_path = NULL;
}

static void item_clear_output(item *it)
{
    sb_ingest_prepared_free(&it->p);
    memset(&it->p, 0, sizeof it->p);
    free(it->sidecar);
    free(it->nsys_sidecar);
    it->sidecar = it->nsys_sidecar = NULL;
    it->rc = 0;
}

static void item_clear(item *it)
{
    item_clear_input(it);
    item_clear_output(it);
    memset(it, 0, sizeof *it);
}

/* What a preparer keeps from one document to the next: the buffer files
 * are read into, and the reals of the last document's tree (json_fast.h). */
typedef struct kept {
    char *buf;
    size_t cap;
    sb_json_fast_reals reals;
} kept;

static void kept_free(kept *k)
{
    free(k->buf);
    sb_json_fast_reals_free(&k->reals);
}

static void prepare_buffer(const sb_ingest *ing, const char *data, size_t len, item *it, kept *k)
{
    json_t *doc;
    it->rc = sb_json_fast_load_reusing(data, len, it->source, &k->reals, &doc, &it->err);
    if (it->rc != SB_OK)
        return;
    it->rc = sb_ingest_prepare(sb_ingest_schemas(ing), doc, it->source, &it->p, &it->err);
    json_decref(doc);
}

/* A result document larger than max, refused before it is parsed. */
static int doc_too_large(sb_error *err, const char *path, size_t max)
{
    return sb_error_set(err, path, NULL, "result document more than %zu bytes (%zu MiB): refused", max,
                        max >> 20);
}

/* Opens a listed document or archive to read it (sb_file_open_inside):
 * the line says it is refused. */
static int open_listed(const char *path, const char *inside, int *fd, sb_error *err)
{
    if (sb_file_open_inside(path, inside, 0, fd, err) == SB_OK)
        return SB_OK;
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, "%s", ": refused");
    return SB_ERR;
}

static void prepare_file(const sb_ingest *ing, item *it, kept *k, size_t doc_max, size_t sidecar_max)
{
    size_t len;
    /* At most doc_max + 1 bytes are read, so a file grown since the
     * reader looked at its size costs no more than one within it; and only
     * from a regular file that still lies inside the folder given, since
     * its name may have been swapped for a link or a FIFO since the
     * listing. */
    int fd;
    it->rc = open_listed(it->source, it->inside, &fd, &it->err);
    if (it->rc != SB_OK)
        return;
    it->rc = sb_file_read_fd_max(fd, it->source, doc_max, &k->buf, &k->cap, &len, &it->err);
    if (it->rc != SB_OK)
        return;
    if (len > doc_max) {
        it->rc = doc_too_large(&it->err, it->source, doc_max);
        return;
    }
    prepare_buffer(ing, k->buf, len, it, k);
    if (it->rc == SB_OK) {
        uint64_t ncu_size = 0, nsys_size = 0;
        int ncu_link = 0, nsys_link = 0, ncu_special = 0, nsys_special = 0;
        uintmax_t ncu_names = 1, nsys_names = 1;
        if (!(it->absent & SB_INGEST_NO_NCU))
            it->sidecar = sidecar_of(it->source, ".ncu.csv", &ncu_size, &ncu_link, &ncu_special, &ncu_names);
        if (!(it->absent & SB_INGEST_NO_NSYS))
            it->nsys_sidecar = sidecar_of(it->source, ".nsys.csv", &nsys_size, &nsys_link, &nsys_special, &nsys_names);
        /* a sidecar over its bound, a link, or no regular file (a FIFO, a
         * folder) refuses its document too:
         * neither is stored, so no run is left without the profile that
         * came with it */
        if (ncu_link || nsys_link)
            it->rc = sb_error_set(&it->err, ncu_link ? it->sidecar : it->nsys_sidecar, NULL, "%s",
                                  "sidecar is a symbolic link: refused (read only as a file beside its "
                                  "document)");
        else if (ncu_special || nsys_special)
            it->rc = sb_error_set(&it->err, ncu_special ? it->sidecar : it->nsys_sidecar, NULL, "%s",
                                  "sidecar is not a regular file: refused (read only as a file beside its "
                                  "document)");
        else if (ncu_names > 1 || nsys_names > 1)
            it->rc = sb_error_set(&it->err, ncu_names > 1 ? it->sidecar : it->nsys_sidecar, NULL,
                                  "sidecar is a hard link (%ju names): refused (read only as a file of its own "
                                  "beside its document)",
                                  ncu_names > 1 ? ncu_names : nsys_names);
        else if (ncu_size > sidecar_max)
            it->rc = sb_ingest_sidecar_too_large(&it->err, it->sidecar, 0, sidecar_max);
        else if (nsys_size > sidecar_max)
            it->rc = sb_ingest_sidecar_too_large(&it->err, it->nsys_sidecar, 1, sidecar_max);
    }
}

/* The name of a stored document's sidecar with suffix sfx (".ncu.csv"):
 * for a file, the one found beside it (*found, taken over); for an archive
 * member whose archive held one (in_archive), ARCHIVE:NAME.json renamed to
 * ARCHIVE:NAME<sfx>. NULL when there is none. */
static char *sidecar_name(const item *it, char **found, int in_archive, const char *path, const char *sfx)
{
    if (it->on_disk) {
        char *side = *found;
        *found = NULL;
        return side;
    }
    return in_archive ? sb_name_resuffixed(path, ".json", sfx) : NULL;
}

/* A profiler's sidecar of a stored document: which file it is and how
 * it is stored, from disk or from an archive's member held in memory. */
typedef struct sidecar_kind {
    const char *suffix;
    int nsys; /* 0: Nsight Compute raw CSV; 1: Nsight Systems kernel summary */
} sidecar_kind;

static int attach_one(walker *wk, item *it, const sidecar_kind *k, long long id, const char *side, long *rows,
                      sb_error *e)
{
    size_t max = wk->w && wk->w->limits.sidecar_bytes ? wk->w->limits.sidecar_bytes : SB_INGEST_SIDECAR_BYTES;
    size_t max_rows = wk->w ? wk->w->limits.sidecar_rows : 0;
    if (!it->on_disk)
        return k->nsys ? sb_ingest_attach_nsys_buffer(wk->ing, id, it->nsys, it->nsys_len, side, max_rows, rows, e)
                       : sb_ingest_attach_ncu_buffer(wk->ing, id, it->ncu, it->ncu_len, side, max_rows, rows, e);
    /* The checks sidecar_of made on the name are made again on the file
     * opened: the name may have become a link, a hard link or a FIFO
     * since. At most max + 1 bytes are read, however the file grows. */
    int fd;
    if (sb_file_open_inside(side, it->inside, 1, &fd, e) != SB_OK)
        return SB_ERR;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    if (sb_file_read_fd_max(fd, side, max, &buf, &cap, &len, e) != SB_OK) {
        free(buf);
        return SB_ERR;
    }
    int rc = len > max ? sb_ingest_sidecar_too_large(e, side, k->nsys, max)
             : k->nsys ? sb_ingest_attach_nsys_buffer(wk->ing, id, buf, len, side, max_rows, rows, e)
                       : sb_ingest_attach_ncu_buffer(wk->ing, id, buf, len, side, max_rows, rows, e);
    free(buf);
    return rc;
}

/* The sidecar of kind k of a stored document, if any, stored for run id:
 * *name gets its name (NULL when there is none), *rows what it held. */
static int attach_sidecar(walker *wk, item *it, const sidecar_kind *k, const char *path, long long id, char **name,
                          long *rows, sb_error *e)
{
    *name = k->nsys ? sidecar_name(it, &it->nsys_sidecar, it->nsys != NULL, path, k->suffix)
                    : sidecar_name(it, &it->sidecar, it->ncu != NULL, path, k->suffix);
    *rows = 0;
    if (!*name)
        return SB_OK;
    if (attach_one(wk, it, k, id, *name, rows, e) == SB_OK)
        return SB_OK;
    /* the line names the sidecar; it also says the document went with it */
    size_t used = strlen(e->msg);
    snprintf(e->msg + used, sizeof e->msg - used, "%s", ": refused with its document");
    return SB_ERR;
}

/* A document stored with its sidecars is one unit: a savepoint inside the
 * open group or batch, else a transaction of its own (*own). */
static int unit_open(walker *wk, int *own, sb_error *e)
{
    *own = !sb_ingest_in_batch(wk->ing);
    return *own ? sb_ingest_begin(wk->ing, e) : sb_run_store_savepoint(sb_ingest_run_store(wk->ing), e);
}

static int unit_close(walker *wk, int own, int ok, sb_error *e)
{
    sb_run_store *rs = sb_ingest_run_store(wk->ing);
    if (own) {
        if (ok)
            return sb_ingest_commit(wk->ing, e);
        sb_ingest_rollback(wk->ing);
        return SB_ERR;
    }
    if (ok)
        return sb_run_store_release(rs, e);
    sb_run_store_rollback_savepoint(rs);
    return SB_ERR;
}

/* The storing half, on the thread that owns the database. A document and
 * its sidecars are stored together or not at all: a sidecar that cannot
 * be stored (a malformed CSV, an unreadable file) refuses its document,
 * in one line naming the sidecar, as one over its size bound or a link
 * does before either is read, so no run is left without the profile that
 * came with it and no profile is kept for a run refused. */
static void store_one(walker *wk, item *it)
{
    static const sidecar_kind kinds[2] = {{".ncu.csv", 0}, {".nsys.csv", 1}};
    const char *path = it->source;
    wk->stats->files_seen++;
    if (it->rc != SB_OK) {
        report(wk, &it->err);
        return;
    }
    /* a document without sidecars needs no unit: storing a run undoes
     * itself when it fails */
    int sides = it->on_disk ? it->sidecar || it->nsys_sidecar : it->ncu || it->nsys;
    int own = 0;
    if (sides && unit_open(wk, &own, &it->err) != SB_OK) {
        sb_error_set_file(&it->err, path);
        report(wk, &it->err);
        return;
    }
    long long id = 0;
    int dup = 0;
    char *names[2] = {NULL, NULL};
    long rows[2] = {0, 0};
    int ok = sb_ingest_store_prepared(wk->ing, &it->p, path, "solbook", &id, &dup, &it->err) == SB_OK;
    for (int i = 0; ok && i < 2; i++)
        ok = attach_sidecar(wk, it, &kinds[i], path, id, &names[i], &rows[i], &it->err) == SB_OK;
    if (sides && unit_close(wk, own, ok, &it->err) != SB_OK && ok) {
        sb_error_set_file(&it->err, path);
        ok = 0;
    }
    if (!ok) {
        report(wk, &it->err);
    } else {
        if (dup)
            wk->stats->duplicates++;
        else
            wk->stats->stored++;
        if (wk->w && wk->w->on_file)
            wk->w->on_file(wk->w->ctx, path, id, dup, 0);
        for (int i = 0; i < 2; i++) {
            if (!names[i])
                continue;
            wk->stats->files_seen++;
            if (kinds[i].nsys) {
                wk->stats->nsys_attached++;
                if (wk->w && wk->w->on_summary)
                    wk->w->on_summary(wk->w->ctx, names[i], id, rows[i]);
            } else {
                wk->stats->ncu_attached++;
                if (wk->w && wk->w->on_file)
                    wk->w->on_file(wk->w->ctx, names[i], id, 0, rows[i]);
            }
        }
    }
    free(names[0]);
    free(names[1]);
}

static void report_problem(walker *wk, const sb_error *e)
{
    wk->stats->files_seen++;
    report(wk, e);
}

/* Each commit writes every page the group changed into the WAL; in a
 * large database a group's runs land on pages all over its random-keyed
 * index of content digests, so small groups write the same pages again
 * and again (at a million runs, 100 ms groups wrote each changed page
 * three times). A second's group keeps a crash's loss and another
 * writer's wait for the lock short. */
#define GROUP_MS 1000
#define GROUP_FILES 4096

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
        wk->stats->nsys_attached -= wk->group_nsys;
        wk->stats->refused += wk->group_files - 1; /* report() counts one */
        report(wk, &e);
        return;
    }
    sb_db_wal_writeback(sb_ingest_db(wk->ing));
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
    wk->group_files = wk->group_stored = wk->group_dups = wk->group_ncu = wk->group_nsys = 0;
    clock_gettime(CLOCK_MONOTONIC, &wk->group_start);
}

/* Stores one document inside the group, committing when the group is due. */
static void store_grouped(walker *wk, item *it)
{
    if (it->is_note) {
        if (wk->w && wk->w->on_note)
            wk->w->on_note(wk->w->ctx, &it->err);
        return;
    }
    if (it->is_problem) {
        report_problem(wk, &it->err);
        return;
    }
    long stored = wk->stats->stored, dups = wk->stats->duplicates, ncu = wk->stats->ncu_attached;
    long nsys = wk->stats->nsys_attached;
    group_open(wk);
    store_one(wk, it);
    if (!wk->group_open)
        return;
    wk->group_files++;
    wk->group_stored += wk->stats->stored - stored;
    wk->group_dups += wk->stats->duplicates - dups;
    wk->group_ncu += wk->stats->ncu_attached - ncu;
    wk->group_nsys += wk->stats->nsys_attached - nsys;
    /* A failed write can end the transaction early (an I/O error, or a run
     * whose stored part could not be removed): the group's files are gone,
     * which group_commit reports, and the next file starts a new group. */
    if (wk->group_files >= GROUP_FILES || ms_since(&wk->group_start) >= GROUP_MS ||
        !sb_run_store_in_transaction(sb_ingest_run_store(wk->ing)))
        group_commit(wk);
}

/* ---- the pipeline. A reader thread lists the paths (ingest_list.h) and
 * fills a ring of slots in list order: a file's path, or an archive
 * member's bytes (it decompresses archives). Preparer threads, one a CPU,
 * parse, validate and canonicalise the documents in parallel; the thread
 * that owns the database stores them strictly in ring order, so runs get
 * the same ids, and duplicates and errors the same order, as in a serial
 * walk.
 *
 * The reader needs neither the database nor the schemas, so it starts
 * before either is open (sb_ingest_read_ahead): a .tar.gz is inflated
 * whole before its first member goes out (ingest_archive.h), and opening
 * the database and loading the schemas takes about as long.
 *
 * Document n goes to slot n % ring_n and to preparer n % preparers
 * (ring_n is a multiple of the count), so a slot's prepared output is
 * always allocated and freed by the same thread: memory freed on another
 * thread than the one that allocated it goes back to the other thread's
 * arena under its lock, and the preparer keeps touching new pages. ---- */

/* How far each preparer may run ahead of the storer. Documents are dealt
 * out in turn, so a preparer that loses its CPU for a while holds the
 * storer up while the other one reaches the end of the ring and stops:
 * a longer ring rides out longer stalls. 128 instead of 32 (and the
 * preparers freeing their own slots at the end) took 30-50 ms off an
 * ingest of 2,000 results on two CPUs; 256 took nothing more. A prepared
 * document of 250 samples is about 9 KB. */
#define SLOTS_PER_PREPARER 128
#define STORE_BATCH 8
#define MAX_PREPARERS 8
/* How much document text the reader may fill in ahead of the storer: a
 * member's bytes are copied into its slot, and a prepared document holds
 * up to about five times its text (a sample is 8 bytes as a double and
 * 2 as "0,"), so a ring of large documents would hold gigabytes. 2,000
 * results of 16 KB fill 32 MB, of which the ring holds 4 MB at a time:
 * the bound stops only large documents. A document larger than the bound
 * still goes in, alone. */
#define READ_AHEAD_BYTES ((size_t)8 << 20)

typedef struct pipe {
    const sb_ingest *ing;  /* set once the ingest is open, before any preparer starts */
    walker *wk;            /* the storing half, on the storer's thread only */
    char *const *paths;    /* what the reader lists */
    size_t n_paths;
    sb_ingest_limits limits; /* for the archives it reads */
    sb_ingest_list list;   /* the reader's */
    item *ring;
    size_t ring_n;
    int preparers;
    int running[MAX_PREPARERS]; /* preparer i started; else the storer prepares its share */
    int all_running;
    /* Documents filled by the reader, and stored, in ring order. Preparer
     * i prepares documents i, i + preparers, ... as they are filled. */
    size_t filled, stored;
    size_t ahead_bytes;    /* text_bytes of the documents filled and not stored */
    size_t reclaimed;      /* the reader's: documents whose input it has freed */
    int done, threaded;
    int cancelled;       /* the ingest never opened: the reader stops */
    /* Archives whose members or lines are refused one after another
     * (a few hundred kilobytes of `{}` lines inflate to hundreds of
     * millions) stop at SB_INGEST_ARCHIVE_REFUSALS: the storer counts
     * each archive's refusals in order and names the archive it stopped,
     * which the reader then reads no further (under the lock). */
    unsigned long archives_read;   /* the reader's: archives numbered from 1 */
    unsigned long refusing;        /* the storer's: the archive it counts */
    size_t refusals;
    unsigned long stopped_archive; /* 0: none */
    int all_stored;      /* the storing half is finished with every slot */
    kept keep;           /* the storer's own, for what it prepares itself */
    /* Who is asleep on which condition, so a thread signals only when
     * someone waits, and then only once there is a batch to do: a wake-up
     * costs a context switch, and at thousands of documents a second one
     * a document would be a good part of the work. The reader sleeps until
     * half the ring is free; the storer until its next STORE_BATCH slots
     * are prepared (or the reader is done). */
    int reader_waits;
    int preparer_waits[MAX_PREPARERS];
    size_t storer_wants;   /* 0: the storer is awake; else the count it waits for */
    pthread_t reader;
    pthread_mutex_t mu;
    pthread_cond_t reader_cv, storer_cv, preparer_cv[MAX_PREPARERS];
} pipe_t;

struct sb_ingest_reading {
    pipe_t pp;
};

typedef struct preparer_arg {
    pipe_t *pp;
    int index;
    kept keep;
} preparer_arg;

static int storer_may_go(const pipe_t *pp);

/* 1 when the reader may fill one more slot with a document of bytes of
 * text: the ring has a free slot and, unless it is empty, room within
 * READ_AHEAD_BYTES; called with the lock held. */
static int room_ahead(const pipe_t *pp, size_t bytes)
{
    size_t n = pp->filled - pp->stored;
    return n < pp->ring_n && (n == 0 || bytes <= READ_AHEAD_BYTES - pp->ahead_bytes);
}

/* The next free slot for the reader, for a document of bytes of text,
 * once the storing half is done with it and there is room ahead, its
 * input and error cleared; NULL once the reading is cancelled. The
 * inputs of the documents stored so far are freed first: a slot is
 * filled again only a ring later, and a ring of large members' copies
 * is what READ_AHEAD_BYTES keeps out. Unthreaded, the one slot in use is
 * slot 0. */
static item *slot_take(pipe_t *pp, size_t bytes)
{
    if (!pp->threaded) {
        item_clear(&pp->ring[0]);
        return &pp->ring[0];
    }
    pthread_mutex_lock(&pp->mu);
    for (;;) {
        size_t stored = pp->stored;
        if (pp->reclaimed < stored) {
            pthread_mutex_unlock(&pp->mu);
            for (; pp->reclaimed < stored; pp->reclaimed++)
                item_clear_input(&pp->ring[pp->reclaimed % pp->ring_n]);
            pthread_mutex_lock(&pp->mu);
            continue;
        }
        if (room_ahead(pp, bytes) || pp->cancelled)
            break;
        pp->reader_waits = 1;
        /* A storer waiting for a batch the read-ahead bound will not let
         * the reader fill must go on with what is filled, or both sleep. */
        if (pp->storer_wants && storer_may_go(pp))
            pthread_cond_signal(&pp->storer_cv);
        pthread_cond_wait(&pp->reader_cv, &pp->mu);
    }
    pp->reader_waits = 0;
    int cancelled = pp->cancelled;
    if (!cancelled)
        pp->ahead_bytes += bytes;
    pthread_mutex_unlock(&pp->mu);
    if (cancelled)
        return NULL;
    /* The document that held the slot is stored; its output is its
     * preparer's to free, the input is the reader's. */
    item *it = &pp->ring[pp->filled % pp->ring_n];
    item_clear_input(it);
    sb_error_clear(&it->err);
    it->text_bytes = bytes;
    return it;
}

static size_t doc_max(const pipe_t *pp)
{
    return pp->limits.doc_bytes ? pp->limits.doc_bytes : SB_INGEST_DOC_BYTES;
}

static size_t sidecar_max(const pipe_t *pp)
{
    return pp->limits.sidecar_bytes ? pp->limits.sidecar_bytes : SB_INGEST_SIDECAR_BYTES;
}

static void prepare(const pipe_t *pp, item *it, kept *k)
{
    if (it->is_problem)
        return;
    if (it->on_disk)
        prepare_file(pp->ing, it, k, doc_max(pp), sidecar_max(pp));
    else
        prepare_buffer(pp->ing, it->data, it->data_len, it, k);
}

/* 1 when the slots of documents from .. to-1 are all filled and prepared,
 * or are the storer's to prepare; called with the lock held. */
static int all_ready(const pipe_t *pp, size_t from, size_t to)
{
    if (to > pp->filled)
        return 0;
    for (size_t n = from; n < to; n++)
        if (!pp->ring[n % pp->ring_n].ready && pp->running[n % (size_t)pp->preparers])
            return 0;
    return 1;
}

/* 1 when the waiting storer may go on: the batch it waits for is filled
 * and prepared, or, while the reader waits for room (or is done) and so
 * fills no more, the slots filled so far are; called with the lock
 * held. */
static int storer_may_go(const pipe_t *pp)
{
    size_t to = pp->storer_wants;
    if (to > pp->filled) {
        if (!pp->reader_waits && !pp->done)
            return 0;
        to = pp->filled;
    }
    return to > pp->stored && all_ready(pp, pp->stored, to);
}

/* Stores it (store_grouped) and counts its archive's refusals: at
 * SB_INGEST_ARCHIVE_REFUSALS in a row of one archive, one line says the
 * rest of it is not read, and what the reader had read of it ahead is
 * dropped unstored and unsaid, so what is stored and said does not
 * depend on how far ahead the reader was. */
static void store_item(pipe_t *pp, item *it)
{
    if (it->archive && it->archive == pp->stopped_archive)
        return;
    long refused = pp->wk->stats->refused;
    store_grouped(pp->wk, it);
    if (!it->archive || pp->wk->stats->refused == refused)
        return;
    if (pp->refusing != it->archive) {
        pp->refusing = it->archive;
        pp->refusals = 0;
    }
    if (++pp->refusals < SB_INGEST_ARCHIVE_REFUSALS)
        return;
    sb_error e;
    sb_error_clear(&e);
    sb_error_set(&e, it->archive_path, NULL,
                 "%zu of its members or lines refused: the rest of it is not read (a damaged or hostile "
                 "archive; mend it, or ingest its good files apart)",
                 pp->refusals);
    report(pp->wk, &e);
    if (pp->threaded)
        pthread_mutex_lock(&pp->mu);
    pp->stopped_archive = it->archive;
    if (pp->threaded)
        pthread_mutex_unlock(&pp->mu);
}

/* Hands a filled slot to its preparer (or, unthreaded, prepares and
 * stores it at once). */
static void slot_give(pipe_t *pp)
{
    if (!pp->threaded) {
        item *it = &pp->ring[0];
        prepare(pp, it, &pp->keep);
        store_item(pp, it);
        item_clear(it);
        return;
    }
    pthread_mutex_lock(&pp->mu);
    int owner = (int)(pp->filled % (size_t)pp->preparers);
    pp->filled++;
    if (pp->preparer_waits[owner])
        pthread_cond_signal(&pp->preparer_cv[owner]);
    /* Documents the storer prepares itself are ready once filled. */
    if (!pp->all_running && pp->storer_wants && storer_may_go(pp))
        pthread_cond_signal(&pp->storer_cv);
    pthread_mutex_unlock(&pp->mu);
}

static void *preparer_main(void *arg)
{
    preparer_arg *pa = arg;
    pipe_t *pp = pa->pp;
    int me = pa->index;
    size_t reclaimed = (size_t)me; /* the first of its documents whose output it has not freed */
    pthread_mutex_lock(&pp->mu);
    for (size_t n = (size_t)me;; n += (size_t)pp->preparers) {
        while (n >= pp->filled && !pp->done) {
            pp->preparer_waits[me] = 1;
            pthread_cond_wait(&pp->preparer_cv[me], &pp->mu);
        }
        pp->preparer_waits[me] = 0;
        if (n >= pp->filled)
            break;
        size_t stored = pp->stored;
        pthread_mutex_unlock(&pp->mu);
        /* The outputs of its documents stored since, freed now rather
         * than a ring later: a ring of large prepared documents (8 bytes
         * a sample) would hold gigabytes. */
        for (; reclaimed < stored; reclaimed += (size_t)pp->preparers)
            item_clear_output(&pp->ring[reclaimed % pp->ring_n]);
        item *it = &pp->ring[n % pp->ring_n];
        item_clear_output(it);
        prepare(pp, it, &pa->keep);
        pthread_mutex_lock(&pp->mu);
        it->ready = 1;
        if (pp->storer_wants && storer_may_go(pp))
            pthread_cond_signal(&pp->storer_cv);
    }
    /* The outputs left in this preparer's slots are its to free, in
     * parallel with the others, once every document is stored. */
    while (!pp->all_stored) {
        pp->preparer_waits[me] = 1;
        pthread_cond_wait(&pp->preparer_cv[me], &pp->mu);
    }
    pp->preparer_waits[me] = 0;
    pthread_mutex_unlock(&pp->mu);
    for (size_t k = (size_t)me; k < pp->ring_n; k += (size_t)pp->preparers)
        item_clear_output(&pp->ring[k]);
    return NULL;
}

static int set_source(item *it, const char *a, const char *b)
{
    size_t la = strlen(a), lb = b ? strlen(b) + 1 : 0;
    if (!(it->source = malloc(la + lb + 1)))
        return SB_ERR;
    memcpy(it->source, a, la);
    if (b) {
        it->source[la] = ':';
        memcpy(it->source + la + 1, b, lb);
    } else {
        it->source[la] = 0;
    }
    return SB_OK;
}

typedef struct member_ctx {
    pipe_t *pp;
    const char *archive;
    unsigned long id; /* pipe_t.archives_read */
} member_ctx;

static unsigned long stopped_archive(pipe_t *pp)
{
    if (!pp->threaded)
        return pp->stopped_archive;
    pthread_mutex_lock(&pp->mu);
    unsigned long a = pp->stopped_archive;
    pthread_mutex_unlock(&pp->mu);
    return a;
}

static void tag_member(item *it, const member_ctx *mc)
{
    it->archive = mc->id;
    it->archive_path = mc->archive;
}

/* The member's bytes are the archive reader's only until it returns:
 * copied into the slot for a preparer. */
static int on_member(void *ctx, const char *member, const char *data, size_t len, const char *ncu,
                     size_t ncu_len, const char *nsys, size_t nsys_len)
{
    member_ctx *mc = ctx;
    if (stopped_archive(mc->pp) == mc->id)
        return SB_ERR; /* refused too often: the storer said so */
    item *it = slot_take(mc->pp, len + ncu_len + nsys_len);
    if (!it)
        return SB_ERR; /* cancelled: stop reading the archive */
    tag_member(it, mc);
    if (set_source(it, mc->archive, member) != SB_OK || !(it->data = malloc(len + 1)) ||
        (ncu && !(it->ncu = malloc(ncu_len + 1))) || (nsys && !(it->nsys = malloc(nsys_len + 1)))) {
        it->is_problem = 1;
        sb_error_set(&it->err, mc->archive, member, "out of memory");
    } else {
        memcpy(it->data, data, len);
        it->data[len] = 0;
        it->data_len = len;
        if (ncu) {
            memcpy(it->ncu, ncu, ncu_len);
            it->ncu[ncu_len] = 0;
            it->ncu_len = ncu_len;
        }
        if (nsys) {
            memcpy(it->nsys, nsys, nsys_len);
            it->nsys[nsys_len] = 0;
            it->nsys_len = nsys_len;
        }
    }
    slot_give(mc->pp);
    return SB_OK;
}

/* An archive member passed over (ingest_archive.h): a note in its place. */
static void on_skip(void *ctx, const char *member, const char *why)
{
    const member_ctx *mc = ctx;
    if (stopped_archive(mc->pp) == mc->id)
        return;
    item *it = slot_take(mc->pp, 0);
    if (!it)
        return;
    tag_member(it, mc);
    it->is_problem = it->is_note = 1;
    sb_error_set(&it->err, mc->archive, member, "%s", why);
    slot_give(mc->pp);
}

/* Fills a slot with a problem to report in its place. */
static void give_problem(pipe_t *pp, const sb_error *e)
{
    item *it = slot_take(pp, 0);
    if (!it)
        return;
    it->is_problem = 1;
    it->err = *e;
    slot_give(pp);
}

static void read_entry(pipe_t *pp, const sb_ingest_entry *en)
{
    if (en->problem) {
        give_problem(pp, en->problem);
        return;
    }
    if (sb_archive_named(en->path)) {
        member_ctx mc = {pp, en->path, ++pp->archives_read};
        sb_error e;
        sb_error_clear(&e);
        int fd;
        if (open_listed(en->path, en->inside, &fd, &e) != SB_OK) {
            give_problem(pp, &e);
            return;
        }
        if (sb_archive_each_fd(en->path, fd, &pp->limits, on_member, on_skip, &mc, &e) != SB_OK &&
            stopped_archive(pp) != mc.id)
            give_problem(pp, &e);
        close(fd);
        return;
    }
    /* A file too large is refused unread; its size is what it takes up
     * read ahead once prepared. */
    struct stat st;
    size_t bytes = 0;
    if (stat(en->path, &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > doc_max(pp)) {
            sb_error e;
            sb_error_clear(&e);
            doc_too_large(&e, en->path, doc_max(pp));
            give_problem(pp, &e);
            return;
        }
        bytes = (size_t)st.st_size;
    }
    item *it = slot_take(pp, bytes);
    if (!it)
        return;
    if (set_source(it, en->path, NULL) != SB_OK) {
        it->is_problem = 1;
        sb_error_set(&it->err, en->path, NULL, "out of memory");
    } else {
        it->on_disk = 1;
        it->absent = en->absent;
        it->inside = en->inside;
    }
    slot_give(pp);
}

static int cancelled(pipe_t *pp)
{
    if (!pp->threaded)
        return 0;
    pthread_mutex_lock(&pp->mu);
    int c = pp->cancelled;
    pthread_mutex_unlock(&pp->mu);
    return c;
}

/* Lists the paths and reads every entry; with memory short of a whole
 * list, reports that alone. */
static void read_all(pipe_t *pp)
{
    sb_ingest_list_paths(pp->paths, pp->n_paths, pp->limits.files_in_place, pp->limits.insides, &pp->list);
    if (pp->list.oom) {
        sb_error e;
        sb_error_clear(&e);
        sb_error_set(&e, pp->n_paths ? pp->paths[0] : "", NULL,
                     "out of memory while listing files");
        give_problem(pp, &e);
        return;
    }
    for (size_t i = 0; i < pp->list.n && !cancelled(pp); i++)
        read_entry(pp, &pp->list.v[i]);
}

/* Wakes every preparer, to see a flag just set; called with the lock
 * held. */
static void wake_preparers(pipe_t *pp)
{
    for (int i = 0; i < pp->preparers; i++)
        pthread_cond_signal(&pp->preparer_cv[i]);
}

static void *reader_main(void *arg)
{
    pipe_t *pp = arg;
    read_all(pp);
    pthread_mutex_lock(&pp->mu);
    pp->done = 1;
    wake_preparers(pp);
    pthread_cond_signal(&pp->storer_cv);
    pthread_mutex_unlock(&pp->mu);
    return NULL;
}

/* Preparers: one for each CPU the process may run on (its affinity mask:
 * taskset, a container's cpuset), at most MAX_PREPARERS. */
static int preparer_count(void)
{
    long n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > MAX_PREPARERS ? MAX_PREPARERS : (int)n;
}

/* Stores the slots in ring order as they become ready, until the reader
 * is done and every document is stored. A document whose preparer did
 * not start is prepared here. */
static void store_in_order(pipe_t *pp)
{
    for (;;) {
        pthread_mutex_lock(&pp->mu);
        item *it = &pp->ring[pp->stored % pp->ring_n];
        int own = !pp->running[pp->stored % (size_t)pp->preparers];
        while (!(pp->stored < pp->filled && (it->ready || own)) &&
               !(pp->done && pp->stored == pp->filled)) {
            /* Woken when the next STORE_BATCH slots (the rest, once the
             * reader is done) are all prepared, or by the reader's end. */
            size_t want = pp->stored + STORE_BATCH;
            if (pp->done && want > pp->filled)
                want = pp->filled;
            pp->storer_wants = want;
            pthread_cond_wait(&pp->storer_cv, &pp->mu);
        }
        pp->storer_wants = 0;
        int end = pp->done && pp->stored == pp->filled;
        pthread_mutex_unlock(&pp->mu);
        if (end)
            return;
        if (own && !it->ready) {
            item_clear_output(it);
            prepare(pp, it, &pp->keep);
        }
        store_item(pp, it);
        pthread_mutex_lock(&pp->mu);
        it->ready = 0;
        pp->stored++;
        pp->ahead_bytes -= it->text_bytes;
        if (pp->reader_waits && pp->filled - pp->stored <= pp->ring_n / 2 &&
            (pp->ahead_bytes <= READ_AHEAD_BYTES / 2 || pp->filled == pp->stored))
            pthread_cond_signal(&pp->reader_cv);
        pthread_mutex_unlock(&pp->mu);
    }
}

/* Destroys the lock and the conditions start_reader made. */
static void destroy_sync(pipe_t *pp)
{
    for (int i = 0; i < pp->preparers; i++)
        pthread_cond_destroy(&pp->preparer_cv[i]);
    pthread_cond_destroy(&pp->storer_cv);
    pthread_cond_destroy(&pp->reader_cv);
    pthread_mutex_destroy(&pp->mu);
}

/* Starts the reader thread; 0 when it could not be started (then the
 * pipe is as before, unthreaded). */
static int start_reader(pipe_t *pp)
{
    int want = preparer_count();
    pp->ring_n = (size_t)want * SLOTS_PER_PREPARER;
    if (!(pp->ring = calloc(pp->ring_n, sizeof *pp->ring)))
        return 0;
    pthread_mutex_init(&pp->mu, NULL);
    pthread_cond_init(&pp->reader_cv, NULL);
    pthread_cond_init(&pp->storer_cv, NULL);
    for (int i = 0; i < want; i++)
        pthread_cond_init(&pp->preparer_cv[i], NULL);
    pp->preparers = want;
    pp->threaded = 1;
    if (pthread_create(&pp->reader, NULL, reader_main, pp) == 0)
        return 1;
    pp->threaded = 0;
    destroy_sync(pp);
    free(pp->ring);
    pp->ring = NULL;
    pp->ring_n = 0;
    pp->preparers = 0;
    return 0;
}

/* Joins the reader and frees the ring (every preparer has returned). */
static void stop_threaded(pipe_t *pp)
{
    pthread_join(pp->reader, NULL);
    for (size_t k = 0; k < pp->ring_n; k++)
        item_clear(&pp->ring[k]);
    free(pp->ring);
    pp->ring = NULL;
    destroy_sync(pp);
    pp->threaded = 0;
}

/* Starts the preparers and stores what the reader reads until it is done. */
static void run_threaded(pipe_t *pp)
{
    pthread_t threads[MAX_PREPARERS];
    preparer_arg args[MAX_PREPARERS];
    for (int i = 0; i < pp->preparers; i++) {
        args[i] = (preparer_arg){pp, i, {NULL, 0, {NULL, 0, 0, 0}}};
        pthread_mutex_lock(&pp->mu);
        pp->running[i] = pthread_create(&threads[i], NULL, preparer_main, &args[i]) == 0;
        pthread_mutex_unlock(&pp->mu);
    }
    pthread_mutex_lock(&pp->mu);
    pp->all_running = 1;
    for (int i = 0; i < pp->preparers; i++)
        pp->all_running &= pp->running[i];
    pthread_mutex_unlock(&pp->mu);
    store_in_order(pp);
    pthread_mutex_lock(&pp->mu);
    pp->all_stored = 1;
    wake_preparers(pp);
    pthread_mutex_unlock(&pp->mu);
    for (int i = 0; i < pp->preparers; i++) {
        if (pp->running[i])
            pthread_join(threads[i], NULL);
        kept_free(&args[i].keep);
    }
    stop_threaded(pp);
    group_commit(pp->wk);
}

sb_ingest_reading *sb_ingest_read_ahead(char *const *paths, size_t n_paths,
                                        const sb_ingest_limits *limits)
{
    sb_ingest_reading *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    pipe_t *pp = &r->pp;
    if (limits)
        pp->limits = *limits;
    pp->paths = paths;
    pp->n_paths = n_paths;
    /* One plain file is read where it is stored: threads would only cost. */
    struct stat st;
    int one_file = n_paths == 1 && stat(paths[0], &st) == 0 && !S_ISDIR(st.st_mode) &&
                   !sb_archive_named(paths[0]);
    if (n_paths > 0 && !one_file)
        start_reader(pp);
    return r;
}

void sb_ingest_reading_free(sb_ingest_reading *r)
{
    if (!r)
        return;
    pipe_t *pp = &r->pp;
    if (pp->threaded) {
        pthread_mutex_lock(&pp->mu);
        pp->cancelled = 1;
        pthread_cond_signal(&pp->reader_cv);
        pthread_mutex_unlock(&pp->mu);
        stop_threaded(pp);
    }
    sb_ingest_list_free(&pp->list);
    kept_free(&pp->keep);
    free(r);
}

/* Stores what r reads (and, unthreaded, reads it first, one document at
 * a time). */
static void store_read(walker *wk, sb_ingest_reading *r)
{
    pipe_t *pp = &r->pp;
    pp->ing = wk->ing;
    pp->wk = wk;
    if (pp->threaded) {
        run_threaded(pp);
        return;
    }
    item one;
    memset(&one, 0, sizeof one);
    pp->ring = &one;
    pp->ring_n = 1;
    read_all(pp);
    item_clear(&one);
    pp->ring = NULL;
    pp->ring_n = 0;
    group_commit(wk);
}

int sb_ingest_paths_read(sb_ingest *ing, sb_ingest_reading *r, const sb_ingest_walk *w,
                         sb_ingest_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    walker wk = {.ing = ing, .w = w, .stats = stats};
    int strict = w && w->strict;
    sb_error e;
    sb_error_clear(&e);
    if (strict && sb_ingest_begin(ing, &e) != SB_OK) {
        report(&wk, &e);
    } else {
        store_read(&wk, r);
        if (strict) {
            if (stats->refused) {
                sb_ingest_rollback(ing);
                stats->stored = 0;
                stats->ncu_attached = 0;
                stats->nsys_attached = 0;
            } else if (sb_ingest_commit(ing, &e) != SB_OK) {
                report(&wk, &e);
                stats->stored = 0;
                stats->ncu_attached = 0;
                stats->nsys_attached = 0;
            }
        }
    }
    sb_ingest_reading_free(r);
    return stats->refused ? SB_ERR : SB_OK;
}

int sb_ingest_paths(sb_ingest *ing, char *const *paths, size_t n_paths,
                    const sb_ingest_walk *w, sb_ingest_stats *stats)
{
    sb_ingest_reading *r = sb_ingest_read_ahead(paths, n_paths, w ? &w->limits : NULL);
    if (!r) {
        walker wk = {.ing = ing, .w = w, .stats = stats};
        sb_error e;
        memset(stats, 0, sizeof *stats);
        sb_error_clear(&e);
        sb_error_set(&e, n_paths ? paths[0] : "", NULL, "out of memory");
        report(&wk, &e);
        return SB_ERR;
    }
    return sb_ingest_paths_read(ing, r, w, stats);
}
