/* cli_options.c - how every command reports its options (commands.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "term.h"

int sb_cli_subcommand_help(int argc, char **argv, const char *const *usage, const sb_option *opts,
                           int *exit_status)
{
    if (argc >= 2 && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0)
        return 0;
    sb_usage_write(argc < 2 ? stderr : stdout, usage, opts);
    *exit_status = argc < 2 ? 2 : 0;
    return 1;
}

int sb_cli_parse_options(int argc, char **argv, const char *command, const sb_option *opts,
                         const char *const *usage, unsigned flags, int *exit_status)
{
    sb_error err;
    sb_error_clear(&err);
    int n = sb_parse_options(argc, argv, opts, flags, &err);
    if (n >= 0)
        return n;
    if (n == SB_PARSE_HELP) {
        sb_usage_write(stdout, usage, opts);
        *exit_status = 0;
        return -1;
    }
    /* an unknown option with no near one, or one of another subcommand,
     * gets the way to the list */
    int hint = (strncmp(err.msg, "unknown option", 14) == 0 && !strstr(err.msg, "did you mean")) ||
               strstr(err.msg, "does not apply") != NULL;
    /* the message quotes the argument as given: terminal-encoded */
    sb_term_line(stderr, "solbook %s: %s%s%s%s", command, err.msg, hint ? "; see 'solbook " : "",
                 hint ? command : "", hint ? " --help'" : "");
    *exit_status = 2;
    return -1;
}
