/* cmd_collect.c - `solbook collect`: print this machine's provenance object
 * (schemas: definitions/provenance) as JSON. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "error.h"
#include "nvml.h"
#include "provenance.h"
#include "term.h"

static const char *const collect_usage[] = {
    "solbook collect [--cpu] [--device N] [--git-dir DIR] [--skus FILE]",
    "",
    "Prints this machine's provenance object as JSON (sorted keys, indented):",
    "git SHA and dirty flag, tool, host, driver and the device identity with its",
    "SKU from data/skus.csv. What cannot be learnt is \"unknown\" or null.",
    "",
    "Without NVML (no NVIDIA driver) a GPU collect still prints, with the device",
    "fields \"unknown\", and says so on stderr.",
    NULL,
};

int cmd_collect(int argc, char **argv)
{
    sb_provenance_opts opts = {
        .tool_name = "solbook",
        .tool_version = SOLBOOK_VERSION,
        .git_dir = NULL,
        .device_is_cpu = 0,
        .device_index = -1,
        .skus_csv = NULL,
    };
    int rc, exit_status;
    sb_nvml *nvml = NULL;
    sb_error err;
    json_t *prov = NULL;
    struct stat st;
    const sb_option options[] = {
        SB_OPT_BOOL(0, "cpu", &opts.device_is_cpu,
                    "the CPU identity (device.kind \"cpu\") instead of a GPU"),
        SB_OPT_INT(0, "device", &opts.device_index, "n", 0, INT_MAX,
                   "NVML index of the GPU to describe (default 0)"),
        SB_OPT_STRING(0, "git-dir", &opts.git_dir, "dir",
                      "tree whose commit is recorded (default: current directory)"),
        SB_OPT_STRING(0, "skus", &opts.skus_csv, "file",
                      "SKU table (default: $SOLBOOK_HOME/data/skus.csv)"),
        SB_OPT_END(),
    };

    sb_error_clear(&err);
    argc = sb_cli_parse_options(argc, argv, "collect", options, collect_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc > 0) {
        sb_term_line(stderr, "solbook collect: unexpected argument '%s'", argv[0]);
        return 2;
    }
    int device_given = opts.device_index >= 0;
    if (!device_given)
        opts.device_index = 0;
    if (opts.device_is_cpu && device_given) {
        fprintf(stderr, "solbook collect: --cpu and --device exclude each other\n");
        return 2;
    }
    if (opts.git_dir && (stat(opts.git_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "solbook: %s: --git-dir is not a directory\n", opts.git_dir);
        return 2;
    }

    if (!opts.device_is_cpu && sb_nvml_open(&nvml, &err) != SB_OK) {
        fprintf(stderr,
                "solbook collect: %s; GPU device fields are \"unknown\" "
                "(--cpu gives this machine's CPU identity)\n",
                err.msg);
        nvml = NULL;
        sb_error_clear(&err);
    }
    rc = sb_provenance_collect_nvml(&opts, nvml, &prov, &err);
    sb_nvml_close(nvml);
    if (rc != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    rc = json_dumpf(prov, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
    json_decref(prov);
    if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "solbook collect: cannot write to standard output: %s\n", strerror(errno));
        return 2;
    }
    return 0;
}
