/* ingest.h - validated, all-or-nothing storage of result files.
 *
 * Each file is read strictly (core/json_file.h), its schema chosen by its
 * own "schema" field, validated, and stored in one transaction; a bad file
 * stores nothing and the others still go in. --strict turns a whole batch
 * into one transaction.
 */
#ifndef SOLBOOK_INGEST_INGEST_H
#define SOLBOOK_INGEST_INGEST_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"

typedef struct sb_ingest sb_ingest;   /* opaque: database + schema set */

typedef struct sb_ingest_stats {
    long files_seen;    /* JSON files, ncu sidecars and unreadable paths met */
    long stored;        /* new runs written */
    long duplicates;    /* identical content already stored */
    long refused;       /* files refused (each reported once) */
    long ncu_attached;  /* ncu sidecars attached */
    long nsys_attached; /* Nsight Systems kernel summaries attached */
} sb_ingest_stats;

/* Opens (creating and migrating) the database at db_path and loads the
 * schemas from schemas_dir. */
int sb_ingest_open(const char *db_path, const char *schemas_dir, sb_ingest **out, sb_error *err);
void sb_ingest_close(sb_ingest *ing);

/* Stores one already-parsed document (any solbook schema). source names
 * where it came from (path, or "liger.csv:12"); source_format is
 * "solbook", "liger-csv", ... On success *run_id is the stored run's id
 * (the existing one when the content was already stored, with *duplicate
 * set to 1). Validates first; nothing is stored on error. */
int sb_ingest_document(sb_ingest *ing, json_t *doc, const char *source,
                       const char *source_format, long long *run_id,
                       int *duplicate, sb_error *err);

/* Begins/commits/rolls back an explicit batch transaction around several
 * sb_ingest_document calls (importers: one file = one transaction). */
int sb_ingest_begin(sb_ingest *ing, sb_error *err);
int sb_ingest_commit(sb_ingest *ing, sb_error *err);
void sb_ingest_rollback(sb_ingest *ing);

/* Reads path strictly (sb_json_load_file) and stores it as
 * sb_ingest_document does, source_format "solbook". */
int sb_ingest_file(sb_ingest *ing, const char *path, long long *run_id,
                   int *duplicate, sb_error *err);

/* Attaches an Nsight Compute raw CSV (ncu_csv.h) to a stored run: every
 * numeric metric of every kernel launch goes into profiler_metrics,
 * replacing what the run had, in one transaction (a savepoint inside a
 * batch), each row stored as it is read (one CSV record held at a time).
 * A file over max_bytes (0: SB_INGEST_SIDECAR_BYTES) is refused unparsed,
 * with at most one byte past the bound read; one that holds more than
 * max_rows metric values (0: SB_INGEST_SIDECAR_ROWS) is refused at the
 * value past the bound, its rows taken back; a malformed CSV or an
 * unknown run stores nothing. *rows (may be NULL) gets the number of
 * metric rows stored. */
int sb_ingest_attach_ncu(sb_ingest *ing, long long run_id, const char *csv_path, size_t max_bytes,
                         size_t max_rows, long *rows, sb_error *err);

/* What an ingest may hold in memory. The members of a tar archive are
 * all read before the first goes out (ingest_archive.h); their inflated
 * bytes are counted as they come, whatever the archive's headers claim,
 * and what the reader holds (the inflated tar, the members' buffers,
 * their names and records) is counted as the heap bytes it takes, so
 * that an archive of millions of empty members meets the held bound
 * too (tests/hostile/parse_bombs.py); an archive past the member or
 * held bound is refused with one line naming ARCHIVE:MEMBER. A result
 * document (a file of a directory, an archive's NAME.json member, a JSON
 * Lines line) larger than doc_bytes is
 * refused before it is parsed, in one line naming it (a file alone, a
 * member or line with its archive): a parsed tree takes up to
 * about 21 times its text (a long array of small numbers), a text
 * whose tree would take more than SB_JSON_MAX_PARSED is refused
 * unparsed whatever doc_bytes allows (core/json_file.h), and each CPU
 * parses one at a time. The largest result in examples/ is 16 KB; 1 MiB
 * leaves room for tens of thousands of samples, while the held bound,
 * a tree a CPU (at most 8) and the documents read ahead (at most 8 MiB
 * of text) keep an ingest under 512 MB (tests/hostile/parse_bombs.py).
 * A sidecar (NAME.ncu.csv, NAME.nsys.csv: a file beside its document or
 * an archive's member) larger than sidecar_bytes is refused with its
 * document, before either is stored, in one line naming it; a sidecar
 * within it is stored as it is read, one CSV record held at a time, so
 * its rows cost no memory however many there are. The largest Nsight
 * Compute CSV in examples/ is 112 KB; 32 MiB bounds an ingest's reading
 * time (tests/hostile/sidecar_bombs.py) but not what it stores: 31 MB of
 * real ncu rows hold 3.8 million metric values, 590 MB of database
 * (about 150 bytes each). A sidecar that would store more than
 * sidecar_rows rows (an ncu CSV's metric values, an nsys summary's
 * kernels) is refused with its document at the row past the bound,
 * every row of the unit taken back. The largest ncu CSV in examples/
 * holds 7,510 metric values (ten launches of ncu's full set); 1,000,000
 * is about 1,300 such launches, and bounds one sidecar's share of the
 * database near 150 MB.
 * 0 takes the default. */
/* Refusals of one archive's members or JSON Lines lines (consecutive or
 * not) after which the rest of it is not read: a stream of refusals is
 * a damaged or hostile archive, and each costs a line of output. */
#define SB_INGEST_ARCHIVE_REFUSALS 1000
#define SB_INGEST_MEMBER_BYTES ((size_t)256 << 20)
#define SB_INGEST_HELD_BYTES ((size_t)128 << 20)
#define SB_INGEST_DOC_BYTES ((size_t)1 << 20)
#define SB_INGEST_SIDECAR_BYTES ((size_t)32 << 20)
#define SB_INGEST_SIDECAR_ROWS ((size_t)1000000)
/* The rows every sidecar of one ingest stores together: the main job's
 * 32 ncu profiles hold 36,300 values; 2,000,000 is 55 times that, 266
 * ten-launch profiles of ncu's full set, two sidecars at the bound on
 * one, and about 300 MB of database. */
#define SB_INGEST_SIDECAR_ROWS_TOTAL ((size_t)2000000)
typedef struct sb_ingest_limits {
    size_t member_bytes;  /* one member, inflated */
    size_t held_bytes;    /* every member held at once, inflated */
    size_t doc_bytes;     /* one result document */
    size_t sidecar_bytes; /* one NAME.ncu.csv or NAME.nsys.csv */
    size_t sidecar_rows;  /* rows one sidecar stores: ncu metric values, nsys kernels */
    /* Each path is a file a gathering chose from a folder others write,
     * with no link (ingest --fleet): it is read only where it still lies
     * in its own folder, as a folder's files are (ingest_list.h), so no
     * name swapped since for a link reaches a file elsewhere. */
    int files_in_place;
    /* With files_in_place, the folder each path must lie in (parallel to
     * the paths; NULL: each file's own folder, resolved when listed). A
     * gathering passes the folders it walked, resolved from the folder
     * given: a folder on the way swapped for a link after the gathering
     * then leads out of it, where resolving it again would follow the
     * link. */
    char *const *insides;
} sb_ingest_limits;

/* The bound on the rows every sidecar this ingest stores takes together
 * (0: SB_INGEST_SIDECAR_ROWS_TOTAL, the bound from sb_ingest_open on):
 * a sidecar whose row would pass it is refused at that row as one over
 * its own bound is, its rows taken back; what earlier sidecars stored
 * stays. */
void sb_ingest_set_sidecar_rows_total(sb_ingest *ing, size_t max_rows);

/* Attaches an Nsight Systems CUDA kernel summary (nsys_csv.h: `nsys stats
 * --report cuda_gpu_kern_sum --format csv`) to a stored run: one row a
 * kernel into kernel_summaries, replacing what the run had, in one
 * transaction (a savepoint inside a batch), stored as it is read, within
 * max_bytes and max_rows (kernels) as sb_ingest_attach_ncu. A malformed
 * CSV or an unknown run stores nothing. *rows (may be NULL) gets the
 * number of kernels. */
int sb_ingest_attach_nsys(sb_ingest *ing, long long run_id, const char *csv_path, size_t max_bytes,
                          size_t max_rows, long *rows, sb_error *err);

/* Files and directories, the way `solbook ingest` takes them. */
typedef struct sb_ingest_walk {
    int strict;   /* one transaction for everything; nothing stored if any file is refused */
    /* Called once per refused file or unreadable path (err names it). */
    void (*on_error)(void *ctx, const sb_error *err);
    /* Called once per JSON file stored (duplicate 0) or already there
     * (duplicate 1), and once per ncu sidecar attached (ncu_rows > 0). */
    void (*on_file)(void *ctx, const char *path, long long run_id, int duplicate,
                    long ncu_rows);
    /* Called once per Nsight Systems summary attached (may be NULL). */
    void (*on_summary)(void *ctx, const char *path, long long run_id, long kernels);
    /* Called once per archive member passed over that looks like data (a
     * CSV, JSON Lines or an archive inside it: ingest_archive.h); err names
     * it and why. Not a refusal: the exit status stays. May be NULL. */
    void (*on_note)(void *ctx, const sb_error *err);
    void *ctx;
    sb_ingest_limits limits; /* for archives; zeros: the defaults */
} sb_ingest_walk;

/* Ingests every path: a file is ingested whatever its name; a directory
 * is walked recursively in sorted order, taking files named NAME.json and
 * archives (following symbolic links, with loops reported once and not
 * followed). NAME.ncu.csv and NAME.nsys.csv next to NAME.json are attached
 * to that file's run.
 * An archive (.tar, .tar.gz, .tgz: its NAME.json members, with their
 * NAME.ncu.csv and NAME.nsys.csv members; .jsonl, .jsonl.gz: each line) is read where it lies
 * (ingest_archive.h), each document named ARCHIVE:MEMBER in the database
 * and in errors. A reader thread reads, and a preparer thread a CPU parses
 * and validates, ahead while this thread stores. Outside a batch, the
 * documents are stored in a transaction committed every second or 4,096
 * documents, each all or nothing (a run that fails part-way is removed
 * again, db/run_store.h); a crash loses at most the uncommitted group,
 * never part of a run. stats is filled; SB_OK when nothing was refused. */
int sb_ingest_paths(sb_ingest *ing, char *const *paths, size_t n_paths,
                    const sb_ingest_walk *walk, sb_ingest_stats *stats);

/* sb_ingest_paths in two steps, so that reading starts before the
 * database is open: listing the paths, reading files and inflating
 * archives need neither the database nor the schemas, and a .tar.gz is
 * inflated whole before its first member can go out. sb_ingest_read_ahead
 * starts a thread that lists and reads paths (which must stay valid until
 * the reading is stored or freed), holding archives within limits (NULL:
 * the defaults); NULL when out of memory.
 * sb_ingest_paths_read stores what it reads, as sb_ingest_paths does, and
 * frees it; sb_ingest_reading_free stops a reading that is not to be
 * stored (the ingest could not be opened). */
typedef struct sb_ingest_reading sb_ingest_reading;
sb_ingest_reading *sb_ingest_read_ahead(char *const *paths, size_t n_paths,
                                        const sb_ingest_limits *limits);
int sb_ingest_paths_read(sb_ingest *ing, sb_ingest_reading *r, const sb_ingest_walk *walk,
                         sb_ingest_stats *stats);
void sb_ingest_reading_free(sb_ingest_reading *r);

/* The database the ingest writes to (for callers' own queries). */
struct sb_db *sb_ingest_db(sb_ingest *ing);

/* For ingest/'s own walk and importers: a document prepared by
 * sb_ingest_prepare (ingest_prepared.h) with this ingest's schemas is
 * stored (its own transaction, or all or nothing inside the open batch). */
struct sb_ingest_prepared;
struct sb_run_store;
struct sb_schema_set;
const struct sb_schema_set *sb_ingest_schemas(const sb_ingest *ing);
int sb_ingest_store_prepared(sb_ingest *ing, const struct sb_ingest_prepared *p, const char *source,
                             const char *source_format, long long *run_id, int *duplicate,
                             sb_error *err);

/* Fills err with the one line that refuses a sidecar (nsys: an Nsight
 * Systems summary, else an Nsight Compute CSV) over max bytes, name
 * naming it; returns SB_ERR. */
int sb_ingest_sidecar_too_large(sb_error *err, const char *name, int nsys, size_t max);

/* sb_ingest_attach_nsys of a CSV in memory (an archive's member); name
 * names it in rows and errors. */
int sb_ingest_attach_nsys_buffer(sb_ingest *ing, long long run_id, const char *csv, size_t len,
                                 const char *name, size_t max_rows, long *rows, sb_error *err);

/* sb_ingest_attach_ncu of a CSV in memory (an archive's member); name
 * (archive:member) is stored as the profile's source_path. */
int sb_ingest_attach_ncu_buffer(sb_ingest *ing, long long run_id, const char *csv, size_t len,
                                const char *name, size_t max_rows, long *rows, sb_error *err);

/* The statements that write runs, on the ingest's connection (importers
 * look for their earlier runs and nest savepoints through it). */
struct sb_run_store *sb_ingest_run_store(sb_ingest *ing);

/* 1 while a batch (sb_ingest_begin) is open. */
int sb_ingest_in_batch(const sb_ingest *ing);

#endif
