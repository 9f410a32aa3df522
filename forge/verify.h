/* verify.h - `solbook forge verify`: the gates a candidate folder passes
 * before it may be benchmarked.
 *
 *   files     candidate/ holds kernel.cu, reference.cu or reference.c,
 *             test.cu, bench.json and metadata.json as regular files
 *   metadata  metadata.json is solbook.forge-metadata.v1 and matches the
 *             spec (op, language, dtype); bench.json is a valid bench config
 *   scan      no finding from the unsafe-code scanner (scan.h)
 *   compile   nvcc -arch=<spec nvcc_arch> builds test.cu + kernel.cu +
 *             reference in a fresh temporary folder, in the sandbox
 *   gpu       this machine has a GPU (otherwise verification stops here)
 *   test      the compiled test exits 0 in the sandbox within the spec's
 *             test limit
 *
 * The first failing gate ends verification; later gates are "not-run".
 * RUN/verify.json records every gate and the sha256 of every candidate file.
 */
#ifndef SOLBOOK_FORGE_VERIFY_H
#define SOLBOOK_FORGE_VERIFY_H

#include <jansson.h>

#include "error.h"

enum {
    SB_FORGE_PASSED = 0,     /* every gate passed */
    SB_FORGE_REFUSED = 1,    /* a gate failed; the reason is in the report */
    SB_FORGE_NO_GPU = 3,     /* everything up to the GPU passed; no GPU here */
};

typedef struct sb_forge_verify_opts {
    int keep_temp;          /* keep the temporary build folder (its path is in the report) */
    int unsafe_no_sandbox;  /* run unconfined where no sandbox is available (own code only) */
    int disk_limit_mb;      /* the sandbox's disk bound in MiB; 0: SB_SANDBOX_DISK_MB */
    int max_tasks;          /* the sandbox's task bound; 0: SB_SANDBOX_MAX_TASKS */
} sb_forge_verify_opts;

/* Runs the gates on RUN_DIR/candidate and writes RUN_DIR/verify.json.
 * *verdict gets SB_FORGE_PASSED, SB_FORGE_REFUSED or SB_FORGE_NO_GPU;
 * *report (optional) the verify.json document. SB_ERR only for system
 * errors (unreadable spec, unwritable run folder). */
int sb_forge_verify(const char *run_dir, const sb_forge_verify_opts *o, int *verdict,
                    json_t **report, sb_error *err);

/* The candidate's metadata.json, loaded and checked against the schema
 * and the spec. */
int sb_forge_metadata_load(const char *run_dir, const json_t *spec, json_t **meta, sb_error *err);

/* Fills the build folder tmp: the candidate's files, the named files of
 * SOLBOOK_HOME/data/forge/harness/ (harness: NULL-terminated), and the task's
 * reference over the candidate's when the spec has one. ref_name gets the
 * reference file to compile ("reference.cu" or "reference.c"). */
int sb_forge_stage_build(const char *run_dir, const json_t *spec, const char *tmp,
                         const char *const *harness, char *ref_name, size_t size, sb_error *err);

/* Checks that RUN_DIR/verify.json says passed and that the candidate files
 * still have the hashes it recorded. SB_ERR with the reason otherwise. */
int sb_forge_verify_recheck(const char *run_dir, json_t **sources, sb_error *err);

#endif
