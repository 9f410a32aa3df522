/* cmd_packet.c - `solbook packet --target T [--db] [--op O] [--out DIR]`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "packet.h"
#include "results.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook packet --target liger|vllm|triton|pytorch|cutlass|onnxruntime|jax|tilelang\n"
            "                      [--db FILE] [--op O] [--suite S] [--baseline PROVIDER] [--out DIR]\n"
            "\n"
            "Writes a self-contained discussion packet into DIR (default packet-TARGET; it must\n"
            "be new or empty): DISCUSSION.md from templates/packets/TARGET.md.tmpl, data.tar.gz\n"
            "(data/results/run-ID.json of the newest passing run of each case and\n"
            "data/MANIFEST.sha256), reproduce.sh and MANIFEST.sha256 (check with\n"
            "`sha256sum -c MANIFEST.sha256`). Only runs that\n"
            "passed correctness are cited; with none, nothing is written and the exit status is 1.\n"
            "The body must fit a GitHub discussion (65536 bytes) and name only providers, cards\n"
            "and packages its cited runs have; otherwise nothing is written (exit status 2).\n"
            "Speedups are over huggingface, torch-compile and liger where measured; --baseline P\n"
            "uses P alone.\n");
}

int cmd_packet(int argc, char **argv)
{
    static const struct option lo[] = {
        {"target", required_argument, NULL, 't'}, {"db", required_argument, NULL, 'd'},
        {"op", required_argument, NULL, 'o'},     {"suite", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'O'},    {"baseline", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    sb_packet_opts o = {0};
    const char *db_path = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 't': o.target = optarg; break;
        case 'd': db_path = optarg; break;
        case 'o': o.op = optarg; break;
        case 's': o.suite = optarg; break;
        case 'O': o.out_dir = optarg; break;
        case 'b': o.baseline = optarg; break;
        case 'h': usage(stdout); return 0;
        case ':':
        default:
            return sb_cli_refused_option(stderr, "packet", c, argv[optind - 1], lo);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "solbook packet: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!o.target) {
        fprintf(stderr, "solbook packet: --target is required (liger, vllm, triton, pytorch, "
                        "cutlass, onnxruntime, jax, tilelang)\n");
        return 2;
    }
    if (!sb_packet_target_known(o.target)) {
        fprintf(stderr, "solbook packet: unknown target '%s' (liger, vllm, triton, pytorch, "
                        "cutlass, onnxruntime, jax, tilelang)\n", o.target);
        return 2;
    }
    char out_default[256];
    if (!o.out_dir) {
        snprintf(out_default, sizeof out_default, "packet-%s", o.target);
        o.out_dir = out_default;
    }
    o.db_label = db_path;
    sb_error err;
    sb_error_clear(&err);
    sqlite3 *db = NULL;
    if (sb_report_db_open(db_path ? db_path : sb_default_db_path(), &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    sb_packet_summary sum;
    int nothing = 0;
    int rc = 0;
    if (sb_packet_write(db, &o, &sum, &nothing, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = nothing ? 1 : 2;
    } else {
        printf("%s: %zu passing runs cited, %zu files in MANIFEST.sha256, DISCUSSION.md %zu bytes\n",
               o.out_dir, sum.cited, sum.files, sum.body_bytes);
    }
    sb_report_db_close(db);
    return rc;
}
