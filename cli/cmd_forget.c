/* cmd_forget.c - `solbook forget RUN...`: removes stored runs whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "run_forget.h"
#include "store.h"
#include "term.h"

static const char *const forget_usage[] = {
    "solbook forget [<options>] RUN...",
    "",
    "Removes the stored runs RUN... (run ids, see 'solbook runs') from the database",
    "with everything that belongs to them: config, provenance, metrics, correctness,",
    "samples and the stored sample values, Nsight Compute sidecar values. One line",
    "per run says what was removed. All or nothing: when a RUN is no stored run,",
    "nothing is removed. Exit status: 0 removed, 1 a RUN is no stored run, 2 usage",
    "or database error.",
    NULL,
};

int cmd_forget(int argc, char **argv)
{
    const char *db_path = sb_default_db_path();
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('d', "db", &db_path, "path", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "forget", options, forget_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc < 1) {
        fprintf(stderr, "solbook forget: give one or more RUN ids; see 'solbook forget --help'\n");
        return 2;
    }
    long long *ids = calloc((size_t)argc, sizeof *ids);
    sb_forgotten *gone = calloc((size_t)argc, sizeof *gone);
    if (!ids || !gone) {
        fprintf(stderr, "solbook forget: out of memory\n");
        free(ids);
        free(gone);
        return 2;
    }
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (n == 0 || n > 18 || strspn(argv[i], "0123456789") != n || (ids[i] = strtoll(argv[i], NULL, 10)) < 1) {
            sb_term_line(stderr, "solbook forget: '%s' is not a run id (a positive integer)", argv[i]);
            free(ids);
            free(gone);
            return 2;
        }
    }
    sb_error err;
    sb_error_clear(&err);
    sb_db *db;
    /* opened for reading first: a missing file is an error, not a new
     * empty database */
    if (sb_db_open(db_path, SB_DB_READ, &db, &err) == SB_OK) {
        sb_db_close(db);
        db = NULL;
    }
    if (err.msg[0] || sb_db_open(db_path, SB_DB_WRITE, &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        free(ids);
        free(gone);
        return 2;
    }
    int rc = 0;
    if (sb_runs_forget(db, ids, (size_t)argc, gone, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = strstr(err.msg, "nothing was removed") ? 1 : 2;
    } else {
        for (int i = 0; i < argc; i++)
            sb_term_line(stdout, "forgot run %lld (%s, from %s): %lld sample value%s, %lld Nsight Compute value%s",
                         gone[i].run_id, gone[i].status, gone[i].source_path, gone[i].samples,
                         gone[i].samples == 1 ? "" : "s", gone[i].ncu_values, gone[i].ncu_values == 1 ? "" : "s");
    }
    sb_db_close(db);
    free(ids);
    free(gone);
    return rc;
}
