/* command_table.c - the list of solbook subcommands. Add a command by
 * writing cli/cmd_NAME.c, declaring it in commands.h and adding a row here. */
#include "commands.h"

#include <stddef.h>

const sb_command sb_commands[] = {
    {"validate", cmd_validate, "check JSON files against a JSON Schema (draft-07)"},
    {"ingest", cmd_ingest, "validate result files and store them in the database"},
    {"runs", cmd_runs, "list stored runs, filtered by arch, SKU, commit or op"},
    {"show", cmd_show, "print one stored run in full"},
    {"forget", cmd_forget, "remove stored runs with their samples and Nsight Compute values"},
    {"commits", cmd_commits, "store the git history (git log --format='%H %P %ct') that orders commits"},
    {"collect", cmd_collect, "print this machine's provenance and GPU identity as JSON"},
    {"report", cmd_report, "geomean tables, weekly writeup, regressions, roofline SVG"},
    {"compare", cmd_compare, "two commits or run sets side by side: medians, ratio, Mann-Whitney verdict"},
    {"packet", cmd_packet, "write an upstream discussion packet citing passing runs"},
    {"validate-results", cmd_validate_results, "completion gate: one complete GEMM spec result per arch"},
    {"forge", cmd_forge, "verify, benchmark and promote candidate kernels (task, prompt, verify, bench, promote, list)"},
    {"site", cmd_site, "build the static dashboard (overview, ops, runs, history, weekly, packets)"},
    {"experiments", cmd_experiments, "list experiments (data/experiments/*.json); explain what one runs on an arch"},
    {"submit", cmd_submit, "render an experiment as a Kubernetes Job or Slurm job array and submit it"},
    {"session", cmd_session, "paired speedups of one provider over the others, from measuring sessions"},
    {"noise", cmd_noise, "the noise of a comparison, from A/A runs of measuring sessions"},
    {"confirm", cmd_confirm, "the commands that measure a flagged regression again, both commits on one card"},
    {NULL, NULL, NULL},
};
