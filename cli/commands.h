/* commands.h - every `solbook` subcommand, one file each (cli/cmd_*.c),
 * found through the table in command_table.c, the way git's builtin/ works.
 *
 * A command gets argv with argv[0] = its own name, parses its options
 * (getopt_long, and --help), prints errors once with sb_error_print, and
 * returns the process exit status: 0 success, 1 the work found problems
 * (invalid files, regressions), 2 usage or system errors.
 */
#ifndef SOLBOOK_CLI_COMMANDS_H
#define SOLBOOK_CLI_COMMANDS_H

#include <stdio.h>

struct option;

typedef int (*sb_command_fn)(int argc, char **argv);

typedef struct sb_command {
    const char *name;
    sb_command_fn run;
    const char *summary; /* one line for `solbook --help` */
} sb_command;

/* The table, ended by a zeroed entry. */
extern const sb_command sb_commands[];

/* Prints, to f, why getopt_long refused arg (argv[optind - 1]) given
 * options, its table: a known option without its value, or an unknown
 * option, then naming the closest long option when one is near
 * (core/suggest.h). */
void sb_cli_bad_option(FILE *f, const char *command, const char *arg, const struct option *options);

/* Prints, to f, why getopt_long (with an optstring starting with ':')
 * returned c for arg: "needs a value" for ':', else as
 * sb_cli_bad_option. Returns 2, the exit status for bad usage. */
int sb_cli_refused_option(FILE *f, const char *command, int c, const char *arg,
                          const struct option *options);

/* Declarations of the commands, in table order. */
int cmd_validate(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_packet(int argc, char **argv);
int cmd_validate_results(int argc, char **argv);
int cmd_forge(int argc, char **argv);
int cmd_site(int argc, char **argv);
int cmd_experiments(int argc, char **argv);
int cmd_submit(int argc, char **argv);

#endif
