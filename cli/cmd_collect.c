/* cmd_collect.c - `solbook collect`: print this machine's provenance object
 * (schemas: definitions/provenance) as JSON. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "error.h"
#include "nvml.h"
#include "provenance.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook collect [--cpu] [--device N] [--git-dir DIR] [--skus FILE]\n\n"
            "Prints this machine's provenance object as JSON (sorted keys, indented):\n"
            "git SHA and dirty flag, tool, host, driver and the device identity with its\n"
            "SKU from db/skus.csv. What cannot be learnt is \"unknown\" or null.\n\n"
            "  --cpu           the CPU identity (device.kind \"cpu\") instead of a GPU\n"
            "  --device N      NVML index of the GPU to describe (default 0)\n"
            "  --git-dir DIR   tree whose commit is recorded (default: current directory)\n"
            "  --skus FILE     SKU table (default: $SOLBOOK_HOME/db/skus.csv)\n"
            "  -h, --help      this text\n\n"
            "Without NVML (no NVIDIA driver) a GPU collect still prints, with the device\n"
            "fields \"unknown\", and says so on stderr.\n");
}

static int parse_index(const char *s, int *out)
{
    char *end;
    long v;
    if (!s[0] || s[0] == '-' || s[0] == '+')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

int cmd_collect(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cpu", no_argument, NULL, 'c'},
        {"device", required_argument, NULL, 'd'},
        {"git-dir", required_argument, NULL, 'g'},
        {"skus", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    sb_provenance_opts opts = {
        .tool_name = "solbook",
        .tool_version = SOLBOOK_VERSION,
        .git_dir = NULL,
        .device_is_cpu = 0,
        .device_index = 0,
        .skus_csv = NULL,
    };
    int device_given = 0, opt, rc;
    sb_nvml *nvml = NULL;
    sb_error err;
    json_t *prov = NULL;
    struct stat st;

    sb_error_clear(&err);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            opts.device_is_cpu = 1;
            break;
        case 'd':
            if (parse_index(optarg, &opts.device_index) != 0) {
                fprintf(stderr, "solbook collect: --device wants a device index (0, 1, ...), not '%s'\n",
                        optarg);
                return 2;
            }
            device_given = 1;
            break;
        case 'g':
            opts.git_dir = optarg;
            break;
        case 's':
            opts.skus_csv = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            fprintf(stderr, "solbook collect: %s needs a value\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        default:
            sb_cli_bad_option(stderr, "collect", argv[optind - 1], longopts);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "solbook collect: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
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
