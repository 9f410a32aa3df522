/* cmd_packet.c - `solbook packet --target T [--db] [--op O] [--out DIR]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "packet.h"
#include "plausible.h"
#include "results.h"
#include "results_query.h"
#include "run_query.h"
#include "session_query.h"
#include "site_plaus.h"
#include "term.h"

/* What a packet of o's target reads (sb_packet_needs), from db into the
 * sets given, which o then points at. */
typedef struct packet_reads {
    sb_result_set all, with_sessions;
    sb_session_runs sessions;
    sb_training_set training;
    int64_t *ids;    /* the runs the packet cites (sb_packet_cites) */
    sb_buf *docs;    /* their stored documents */
    sb_packet_docs cited;
} packet_reads;

static int packet_read(sb_db *db, sb_packet_opts *o, packet_reads *r, sb_error *err)
{
    sb_packet_inputs need;
    if (sb_packet_needs(o->target, o->op, &need, err) != SB_OK)
        return SB_ERR;
    /* the runs of the op and suite only, through their indexes, where
     * the packet reads no other */
    sb_result_filter f = {0};
    if (!need.every_run) {
        f.op = o->op;
        f.suite = o->suite;
    }
    if (sb_results_load(db, &f, &r->all, err) != SB_OK || sb_site_plaus_mark(db, &r->all, err) != SB_OK)
        return SB_ERR;
    o->all = &r->all;
    if (need.sessions) {
        sb_result_filter ws = {0};
        ws.with_sessions = 1;
        if (sb_results_load(db, &ws, &r->with_sessions, err) != SB_OK ||
            sb_site_plaus_session_runs(db, NULL, 0, NULL, &r->sessions, err) != SB_OK)
            return SB_ERR;
        o->with_sessions = &r->with_sessions;
        o->sessions = &r->sessions;
    }
    if (need.training) {
        if (sb_training_load(db, 0, 0, 0, &r->training, err) != SB_OK)
            return SB_ERR;
        o->training = &r->training;
    }
    return SB_OK;
}

/* The runs the packet cites (its first phase) and their stored
 * documents, which o then points at. */
static int packet_read_cited(sb_db *db, sb_packet_opts *o, packet_reads *r, int *nothing, sb_error *err)
{
    size_t n = 0;
    if (sb_packet_cites(o, &r->ids, &n, nothing, err) != SB_OK ||
        sb_run_docs_read(db, r->ids, n, &r->docs, err) != SB_OK)
        return SB_ERR;
    r->cited = (sb_packet_docs){r->ids, r->docs, n};
    o->docs = &r->cited;
    return SB_OK;
}

static void packet_reads_free(packet_reads *r)
{
    sb_results_free(&r->all);
    sb_results_free(&r->with_sessions);
    sb_session_runs_free(&r->sessions);
    sb_training_free(&r->training);
    sb_run_docs_free(r->docs, r->cited.n);
    free(r->ids);
}

static const char *const packet_usage[] = {
    "solbook packet --target liger|vllm|triton|pytorch|cutlass|onnxruntime|jax|tilelang",
    "               [--db FILE] [--op O] [--suite S] [--baseline PROVIDER] [--repo URL] [--out DIR]",
    "",
    "Writes a self-contained discussion packet into DIR (default packet-TARGET; it must",
    "be new or empty): DISCUSSION.md from data/templates/packets/TARGET.md.tmpl, data.tar.gz",
    "(data/results/run-ID.json of the newest passing run of each case and",
    "data/MANIFEST.sha256), reproduce.sh and MANIFEST.sha256 (check with",
    "`sha256sum -c MANIFEST.sha256`). Only runs that",
    "passed correctness are cited; with none, nothing is written and the exit status is 1.",
    "The body must fit a GitHub discussion (65536 bytes) and name only providers, cards",
    "and packages its cited runs have; otherwise nothing is written (exit status 2).",
    "Speedups are over huggingface, torch-compile and liger where measured; --baseline P",
    "uses P alone.",
    "",
    "The liger and vllm packets (the targets of data/templates/packets/upstream_ops.csv) are",
    "findings from measuring sessions only: per op the target ships, the fused kernels'",
    "paired speedups, absolute times and peak memory, with every case in APPENDIX.md;",
    "data.tar.gz holds every run of the cited sessions, failed and skipped ones",
    "included, and the training runs;",
    "reproduce.sh measures those sessions again and renders the packet from them.",
    "--repo (default: $SOLBOOK_REPO) is the measuring code's repository address it names.",
    NULL,
};

int cmd_packet(int argc, char **argv)
{
    sb_packet_opts o = {0};
    const char *db_path = NULL;
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING(0, "target", &o.target, "target",
                      "the project: liger, vllm, triton, pytorch, cutlass,\n"
                      "onnxruntime, jax or tilelang"),
        SB_OPT_STRING(0, "db", &db_path, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING(0, "op", &o.op, "op", "only this op"),
        SB_OPT_STRING(0, "suite", &o.suite, "suite", "only runs of this suite"),
        SB_OPT_STRING(0, "baseline", &o.baseline, "provider", "the one baseline of every speedup"),
        SB_OPT_STRING(0, "repo", &o.repo, "url", "repository address of the measuring code\n(default: $SOLBOOK_REPO)"),
        SB_OPT_STRING(0, "out", &o.out_dir, "dir", "where the packet goes (default packet-TARGET)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "packet", options, packet_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc > 0) {
        sb_term_line(stderr, "solbook packet: unexpected argument '%s'", argv[0]);
        return 2;
    }
    if (!o.target) {
        fprintf(stderr, "solbook packet: --target is required (liger, vllm, triton, pytorch, "
                        "cutlass, onnxruntime, jax, tilelang)\n");
        return 2;
    }
    if (!sb_packet_target_known(o.target)) {
        sb_term_line(stderr, "solbook packet: unknown target '%s' (liger, vllm, triton, pytorch, "
                             "cutlass, onnxruntime, jax, tilelang)", o.target);
        return 2;
    }
    char out_default[256];
    if (!o.out_dir) {
        snprintf(out_default, sizeof out_default, "packet-%s", o.target);
        o.out_dir = out_default;
    }
    o.db_label = db_path;
    if (!o.repo && getenv("SOLBOOK_REPO") && *getenv("SOLBOOK_REPO"))
        o.repo = getenv("SOLBOOK_REPO");
    sb_error err;
    sb_error_clear(&err);
    sb_db *db = NULL;
    if (sb_db_open_reader(db_path ? db_path : sb_default_db_path(), &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    sb_packet_summary sum;
    sb_file_set files = {0};
    packet_reads reads = {0};
    int nothing = 0;
    int rc = 0;
    if (packet_read(db, &o, &reads, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = 2;
    } else if (packet_read_cited(db, &o, &reads, &nothing, &err) != SB_OK ||
               sb_packet_build(&o, &sum, &nothing, &files, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = nothing ? 1 : 2;
    } else if (sb_file_set_publish_new(&files, o.out_dir, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = 2;
    } else {
        printf("%s: %zu runs cited, %zu files in MANIFEST.sha256, DISCUSSION.md %zu bytes\n",
               o.out_dir, sum.cited, sum.files, sum.body_bytes);
    }
    sb_file_set_free(&files);
    packet_reads_free(&reads);
    sb_db_close(db);
    return rc;
}
