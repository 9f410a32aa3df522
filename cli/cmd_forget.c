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

/* A run named twice is forgotten and said once: ids[0..n) keep their
 * first places, in order; returns how many are left. */
typedef struct id_at {
    long long id;
    size_t at;
} id_at;

static int cmp_id_at(const void *a, const void *b)
{
    const id_at *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static size_t unique_ids(long long *ids, size_t n)
{
    id_at *v = malloc((n ? n : 1) * sizeof *v);
    unsigned char *dup = calloc(n ? n : 1, 1);
    if (!v || !dup) { /* the database refuses nothing for a repeat: keep them */
        free(v);
        free(dup);
        return n;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (id_at){ids[i], i};
    qsort(v, n, sizeof *v, cmp_id_at);
    for (size_t i = 1; i < n; i++)
        if (v[i].id == v[i - 1].id)
            dup[v[i].at] = 1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!dup[i])
            ids[k++] = ids[i];
    free(v);
    free(dup);
    return k;
}

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
    size_t n_ids = unique_ids(ids, (size_t)argc);
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
    if (sb_runs_forget(db, ids, n_ids, gone, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = strstr(err.msg, "nothing was removed") ? 1 : 2;
    } else {
        for (size_t i = 0; i < n_ids; i++)
            sb_term_line(stdout, "forgot run %lld (%s, from %s): %lld sample value%s, %lld Nsight Compute value%s",
                         gone[i].run_id, gone[i].status, gone[i].source_path, gone[i].samples,
                         gone[i].samples == 1 ? "" : "s", gone[i].ncu_values, gone[i].ncu_values == 1 ? "" : "s");
    }
    sb_db_close(db);
    free(ids);
    free(gone);
    return rc;
}
