/* gather.h - the gathering check over a fleet run's output tree.
 *
 * Many jobs write into one tree (ROOT/EXPERIMENT/ARCH/RUN_ID/...). Before
 * it is ingested, every result must be final and alone: exactly one result
 * file per case, provider and arch. The key of a solbook.result.v1 file is
 *
 *     case_key | provider | arch
 *
 * where case_key is the database's (db/README.md: suite|op|mode|dtype|
 * shape_key|params_json, shape_key "K=4096,M=4096,N=4096" with the names in
 * byte order, params_json canonical JSON) and arch is
 * provenance.device.arch. A calibration file's key is
 * "calibration|SKU|arch". Files of other solbook schemas are keyed by
 * their path (never duplicates).
 *
 * Flagged, by path:
 *   partial    a leftover temporary file (a name with ".tmp."), a
 *              zero-length file, or a .json that is not one whole JSON
 *              document (truncated, cut mid-write);
 *   invalid    whole JSON but not a solbook file, or a result without the
 *              fields the key needs;
 *   duplicate  two or more files with one key (every file of the group);
 *   unfinished a task directory of `solbook submit` (one holding the task
 *              record solbook-task.json) whose record is not "done":
 *              failed, cancelled or still running, listed once by its
 *              directory and none of its files gathered; and a task of a
 *              run that left no record at all (the records list the run's
 *              cases).
 * Directories named .superseded (earlier attempts a re-run moved aside)
 * are not walked; the attempts in them are counted.
 * Everything else is accepted. NAME.ncu.csv sidecars go with their NAME.json
 * and are not listed on their own.
 */
#ifndef SOLBOOK_FLEET_GATHER_H
#define SOLBOOK_FLEET_GATHER_H

#include <stddef.h>

#include "error.h"

typedef enum {
    SB_GATHER_ACCEPTED,
    SB_GATHER_DUPLICATE,
    SB_GATHER_PARTIAL,
    SB_GATHER_INVALID,
    SB_GATHER_UNFINISHED,
} sb_gather_state;

/* Where a re-run keeps the attempts it replaces (the task record a
 * submitted case leaves in its directory is task_status.h's
 * SB_TASK_RECORD_FILE). */
#define SB_GATHER_SUPERSEDED ".superseded"

typedef struct sb_gather_file {
    char *path;
    sb_gather_state state;
    char *key;      /* NULL for partial and invalid files */
    char *why;      /* partial, invalid: the reason; else NULL */
    char *folder;   /* the folder the walk found it in: the folder given,
                     * resolved when its walk began, then the folders under
                     * it as walked; NULL where that cannot be said */
} sb_gather_file;

typedef struct sb_gather {
    sb_gather_file *files;   /* sorted by key (problems first, by path) */
    size_t n;
    size_t accepted, duplicate_files, duplicate_groups, partial, invalid;
    size_t unfinished, superseded;  /* tasks; attempts kept in .superseded */
} sb_gather;

/* Walks dir recursively (symbolic links to directories are not followed)
 * and classifies every file as above. SB_ERR only when the tree cannot be
 * read (err names the path). */
int sb_gather_scan(const char *dir, sb_gather *out, sb_error *err);
void sb_gather_free(sb_gather *g);

/* sb_gather_scan over several directories into one gathering, so that a
 * duplicate across them is found too. */
int sb_gather_scan_dirs(char *const *dirs, size_t n_dirs, sb_gather *out, sb_error *err);

/* Problems flagged (partial + invalid + duplicate files + unfinished tasks). */
size_t sb_gather_problems(const sb_gather *g);

/* The accepted paths, in key order, as a malloc'd array (*n of them) of
 * pointers into g; NULL when out of memory. */
char **sb_gather_accepted_paths(const sb_gather *g, size_t *n);

/* Their folders (sb_gather_file.folder), in the same order: where the
 * ingest after the gathering reads each file (sb_ingest_limits.insides),
 * so that a folder on the way swapped for a link since leads out. */
char **sb_gather_accepted_folders(const sb_gather *g, size_t *n);

/* The problems, one line each ("partial: PATH: WHY", "invalid: PATH: WHY",
 * "duplicate: PATH: N files for case KEY", "unfinished: DIR: WHY"), then
 * one summary line: "gather: A accepted, D duplicate files in G groups, P
 * partial, I invalid" (and ", U unfinished tasks, S superseded
 * attempts" when there are any). Paths, reasons and keys are stored text,
 * written through core/term.h so a control character in them is a
 * visible escape. malloc'd; NULL when out of memory. */
char *sb_gather_describe(const sb_gather *g);

/* The key of one parsed document, as above; NULL with why filled when it
 * lacks what the key needs. malloc'd. */
char *sb_gather_key(const void *json_doc, char *why, size_t why_size);

#endif
