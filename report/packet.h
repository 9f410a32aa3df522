/* packet.h - upstream discussion packets: a self-contained folder with the
 * discussion body (data/templates/packets/<target>.md.tmpl), the cited result
 * JSON files (runs.raw_json, byte for byte) in one archive with their own
 * manifest, reproduce.sh and MANIFEST.sha256 (`sha256sum -c` format).
 * A target with upstream ops (data/templates/packets/upstream_ops.csv: liger,
 * vllm) gets findings from measuring sessions (packet_findings.h) with
 * APPENDIX.md, citing every run of the sessions it cites; any other target
 * cites the newest passing run of each case. A packet with nothing to cite
 * is refused. The packet is built in memory (core/file_set.h) from the
 * runs its caller reads (sb_packet_needs says which), in two phases:
 * sb_packet_cites computes the findings and names the runs the packet
 * cites; the caller reads their stored documents and hands them to
 * sb_packet_build, which renders. The CLI and site/ publish it: nothing
 * here reads the database or writes a file.
 */
#ifndef SOLBOOK_REPORT_PACKET_H
#define SOLBOOK_REPORT_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "file_set.h"
#include "strbuf.h"
#include "session_run.h"
#include "stored_result.h"
#include "training_run.h"

/* The targets, ended by NULL: liger vllm triton pytorch cutlass
 * onnxruntime jax tilelang. */
extern const char *const sb_packet_targets[];
int sb_packet_target_known(const char *target);

/* The stored documents of the runs a packet cites, read by its caller:
 * docs[i] is runs.raw_json of ids[i], byte for byte. */
typedef struct sb_packet_docs {
    const int64_t *ids;
    const sb_buf *docs;
    size_t n;
} sb_packet_docs;

typedef struct sb_packet_opts {
    const char *target;
    const char *op;        /* NULL: every op with passing runs */
    const char *suite;     /* NULL: any */
    const char *out_dir;   /* where the caller publishes it (sb_file_set_publish_new), or
                            * NULL: no text of the packet may name it */
    const char *db_label;  /* --db as given, for the commands */
    const char *baseline;  /* NULL: the headline baselines (geomean.h) */
    const char *repo;      /* address of the measuring code's repository, or NULL */
    /* What the packet reads (sb_packet_needs says which of them): */
    const sb_result_set *all; /* the result runs with their plausibility marks
                               * (sb_plaus_mark): every run, or for a packet that
                               * needs no every_run, at least those of its op and
                               * suite (sb_results_load) */
    const sb_result_set *with_sessions; /* every result run with the runs of
                                         * measuring sessions, unmarked, as
                                         * sb_results_load gives them for with_sessions */
    const sb_session_runs *sessions;    /* every run of measuring sessions, marked
                                         * (sb_plaus_mark_sessions) */
    const sb_training_set *training;    /* every training run (sb_training_load) */
    const sb_packet_docs *docs;         /* the stored documents of the runs
                                         * sb_packet_cites names */
} sb_packet_opts;

/* What a packet of target (and op, NULL: all) reads besides all and the
 * documents it cites: a packet of findings (packet_findings.h) takes with_sessions,
 * sessions, every run in all and, over all the ops of a target whose
 * code is a provider, the training runs. */
typedef struct sb_packet_inputs {
    int sessions;  /* with_sessions and sessions */
    int every_run; /* all holds every result run */
    int training;  /* training */
} sb_packet_inputs;

int sb_packet_needs(const char *target, const char *op, sb_packet_inputs *needs, sb_error *err);

/* The archive of the cited documents: DIR.tar.gz holding DIR/results/
 * run-ID.json and DIR/MANIFEST.sha256. */
#define SB_PACKET_DATA_DIR "data"

/* GitHub refuses a discussion body over 65,536 characters. */
#define SB_PACKET_MAX_BYTES 65536

/* The project a target's maintainers know it by ("Liger-Kernel"), and the
 * provider that is that project's own code ("liger"; NULL when no stored
 * provider is). */
const char *sb_packet_project(const char *target);
const char *sb_packet_subject(const char *target);

typedef struct sb_packet_summary {
    size_t cited;          /* runs cited */
    size_t files;          /* files in the manifest */
    size_t body_bytes;     /* DISCUSSION.md */
} sb_packet_summary;

/* The first phase: the runs the packet of o (its docs unset) cites, as
 * a new array *ids of *n (free it); the caller reads their stored
 * documents into o->docs for sb_packet_build. Fails as sb_packet_build
 * does when there is nothing to cite (*nothing 1). */
int sb_packet_cites(const sb_packet_opts *o, int64_t **ids, size_t *n, int *nothing, sb_error *err);

/* The second phase: builds the packet's files into *out (DISCUSSION.md,
 * data.tar.gz, reproduce.sh, MANIFEST.sha256, and for findings APPENDIX.md and the
 * plots; free with sb_file_set_free). Returns SB_ERR with a clear message
 * when there is nothing passing to cite (*nothing set to 1 then, so the
 * CLI can exit 1 instead of 2), and builds nothing when the body would
 * be over SB_PACKET_MAX_BYTES, name a provider, card or package no cited
 * run has, or hold the folder it is published into. */
int sb_packet_build(const sb_packet_opts *o, sb_packet_summary *sum, int *nothing, sb_file_set *out,
                    sb_error *err);

#endif
