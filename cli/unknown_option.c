/* unknown_option.c - the one line a command prints when getopt_long
 * refuses an option: a known option without its value, or an option it
 * does not know, with the closest one it does. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "suggest.h"

void sb_cli_bad_option(FILE *f, const char *command, const char *arg, const struct option *options)
{
    /* getopt_long sets optopt to the option's value when a known option
     * lacks its argument, and to 0 for an unknown long option. */
    for (const struct option *o = options; optopt && o->name; o++)
        if (o->val == optopt && o->has_arg == required_argument) {
            fprintf(f, "solbook %s: option %s needs a value; see 'solbook %s --help'\n", command, arg, command);
            return;
        }
    char name[128];
    const char *word = arg;
    while (*word == '-')
        word++;
    size_t n = strcspn(word, "=");
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), word);
    const char *known[128];
    size_t k = 0;
    for (const struct option *o = options; o->name && k + 1 < sizeof known / sizeof known[0]; o++)
        known[k++] = o->name;
    known[k] = NULL;
    const char *close = arg[0] == '-' && arg[1] == '-' ? sb_suggest(name, known) : NULL;
    if (close)
        fprintf(f, "solbook %s: unknown option %s; did you mean --%s?\n", command, arg, close);
    else
        fprintf(f, "solbook %s: unknown option %s; see 'solbook %s --help'\n", command, arg, command);
}

int sb_cli_refused_option(FILE *f, const char *command, int c, const char *arg,
                          const struct option *options)
{
    if (c == ':')
        fprintf(f, "solbook %s: %s needs a value\n", command, arg);
    else
        sb_cli_bad_option(f, command, arg, options);
    return 2;
}
