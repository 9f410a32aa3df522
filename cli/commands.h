/* commands.h - every `solbook` subcommand, one file each (cli/cmd_*.c),
 * found through the table in command_table.c, the way git's builtin/ works.
 *
 * A command gets argv with argv[0] = its own name, parses its options
 * from one sb_option table (core/parse_options.h) that also makes its
 * --help, prints errors once with sb_error_print, and returns the process exit status: 0 success, 1 the work found problems
 * (invalid files, regressions), 2 usage or system errors.
 */
#ifndef SOLBOOK_CLI_COMMANDS_H
#define SOLBOOK_CLI_COMMANDS_H

#include <stdio.h>

#include "parse_options.h"

typedef int (*sb_command_fn)(int argc, char **argv);

typedef struct sb_command {
    const char *name;
    sb_command_fn run;
    const char *summary; /* one line for `solbook --help` */
} sb_command;

/* The table, ended by a zeroed entry. */
extern const sb_command sb_commands[];

/* Parses argv (argv[0] is the command) against opts (core/parse_options.h).
 * Returns the number of operands, now argv[0..n); or -1 after printing
 * the help to stdout (--help; *exit_status 0) or the one line saying
 * what is wrong to stderr as "solbook COMMAND: ..." (*exit_status 2). */
int sb_cli_parse_options(int argc, char **argv, const char *command, const sb_option *opts,
                         const char *const *usage, unsigned flags, int *exit_status);

/* For a command of subcommands (argv[1] names one): with none, or -h or
 * --help in its place, writes the help of all of them (to stderr when
 * none is given) and returns 1 with *exit_status 2 or 0; else returns 0. */
int sb_cli_subcommand_help(int argc, char **argv, const char *const *usage, const sb_option *opts,
                           int *exit_status);

/* Declarations of the commands, in table order. */
int cmd_validate(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_forget(int argc, char **argv);
int cmd_commits(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_packet(int argc, char **argv);
int cmd_validate_results(int argc, char **argv);
int cmd_forge(int argc, char **argv);
int cmd_site(int argc, char **argv);
int cmd_experiments(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_session(int argc, char **argv);
int cmd_noise(int argc, char **argv);
int cmd_confirm(int argc, char **argv);

#endif
