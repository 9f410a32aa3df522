/* cmd_commits.c - `solbook commits import FILE|-`: stores the git history
 * that orders a case's commits in reports (db/commits.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "commits.h"
#include "error.h"
#include "home.h"
#include "json_file.h"
#include "store.h"
#include "term.h"

static const char *const commits_usage[] = {
    "solbook commits import [<options>] FILE|-",
    "",
    "Stores the commit graph printed by",
    "    git log --format='%H %P %ct' > FILE",
    "(one line a commit: SHA, parent SHAs, committer time) in the database,",
    "replacing the history stored before; '-' reads standard input. Each commit",
    "gets an ordinal: parents before children, then the earliest commit time,",
    "then the SHA. 'report regressions' orders a case's commits by it where it",
    "knows them. Exit status: 0 stored, 2 usage, a malformed line or a database",
    "error.",
    NULL,
};

/* Standard input as a file is read: at most SB_JSON_MAX_BYTES. */
static int read_stdin(char **out, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    if (!b)
        return -1;
    size_t r;
    while ((r = fread(b + n, 1, cap - n, stdin)) > 0) {
        n += r;
        if (n > SB_JSON_MAX_BYTES) {
            free(b);
            return -2;
        }
        if (n == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                return -1;
            }
            b = nb;
            cap *= 2;
        }
    }
    if (ferror(stdin)) {
        free(b);
        return -1;
    }
    *out = b;
    *len = n;
    return 0;
}

int cmd_commits(int argc, char **argv)
{
    const char *db_path = sb_default_db_path();
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('d', "db", &db_path, "path", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_END(),
    };
    if (sb_cli_subcommand_help(argc, argv, commits_usage, options, &exit_status))
        return exit_status;
    if (argv[1][0] == '-') {
        /* an option before the subcommand: its one line, as for any command */
        argc = sb_cli_parse_options(argc, argv, "commits", options, commits_usage, 0, &exit_status);
        if (argc < 0)
            return exit_status;
        fprintf(stderr, "solbook commits: name the subcommand first: solbook commits import ...\n");
        return 2;
    }
    if (strcmp(argv[1], "import") != 0) {
        sb_term_line(stderr, "solbook commits: no subcommand '%s'; see 'solbook commits --help'", argv[1]);
        return 2;
    }
    argc = sb_cli_parse_options(argc - 1, argv + 1, "commits import", options, commits_usage, 0,
                                &exit_status);
    if (argc < 0)
        return exit_status;
    char **ops = argv + 1;
    if (argc != 1) {
        fprintf(stderr, "solbook commits import: give one FILE, or - for standard input\n");
        return 2;
    }
    const char *name = strcmp(ops[0], "-") == 0 ? "<stdin>" : ops[0];
    sb_error err;
    sb_error_clear(&err);
    char *text = NULL;
    size_t len = 0;
    if (strcmp(ops[0], "-") == 0) {
        int r = read_stdin(&text, &len);
        if (r != 0) {
            if (r == -2)
                fprintf(stderr, "solbook commits import: <stdin>: more than %u MiB\n", SB_JSON_MAX_BYTES >> 20);
            else
                fprintf(stderr, "solbook commits import: cannot read standard input\n");
            return 2;
        }
    } else if (sb_file_read_all(ops[0], &text, &len, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    sb_commit_list l = {0};
    int rc = sb_commits_parse(text, len, name, &l, &err);
    free(text);
    if (rc != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    sb_db *db;
    if (sb_db_open(db_path, SB_DB_WRITE, &db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_commits_free(&l);
        return 2;
    }
    rc = sb_commits_store(db, &l, &err);
    sb_db_close(db);
    if (rc != SB_OK) {
        sb_error_print(&err, stderr);
        sb_commits_free(&l);
        return 2;
    }
    sb_term_line(stdout, "commits: %zu stored from %s (db %s)", l.n, name, db_path);
    sb_commits_free(&l);
    return 0;
}
