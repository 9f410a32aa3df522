/* main.c - `solbook CMD [ARGS]`: find CMD in the table and run it. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "home.h"
#include "store.h"
#include "suggest.h"
#include "term.h"

static void print_usage(FILE *f)
{
    fprintf(f, "usage: solbook [--version] [--help] COMMAND [ARGS]\n\n"
               "solbook stores GPU kernel benchmark results and turns them into reports.\n\n"
               "Commands:\n");
    for (const sb_command *c = sb_commands; c->name; c++)
        fprintf(f, "  %-16s %s\n", c->name, c->summary);
    fprintf(f, "\nRun 'solbook COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc >= 3 && strcmp(argv[1], "help") == 0) {
            char help[] = "--help";
            char *sub[] = {argv[2], help, NULL};
            for (const sb_command *c = sb_commands; c->name; c++)
                if (strcmp(c->name, argv[2]) == 0)
                    return c->run(2, sub);
        }
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        char home[4096];
        sb_error err;
        sb_error_clear(&err);
        printf("solbook %s\n", SOLBOOK_VERSION);
        if (sb_home_dir(home, sizeof home, &err) == SB_OK)
            printf("data: %s/data\n", home);
        return 0;
    }
    sb_db_process_setup();
    const char *names[64];
    size_t n = 0;
    for (const sb_command *c = sb_commands; c->name; c++) {
        if (strcmp(c->name, argv[1]) == 0)
            return c->run(argc - 1, argv + 1);
        if (n + 1 < sizeof names / sizeof names[0])
            names[n++] = c->name;
    }
    names[n] = NULL;
    const char *close = argv[1][0] != '-' ? sb_suggest(argv[1], names) : NULL;
    if (close)
        sb_term_line(stderr, "solbook: '%s' is not a solbook command; did you mean '%s'?", argv[1], close);
    else
        sb_term_line(stderr, "solbook: '%s' is not a solbook command; see 'solbook --help'", argv[1]);
    return 2;
}
