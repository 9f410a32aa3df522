/* parse_options.h - command-line options declared once, in a table that
 * both parses argv and writes the help, after git's parse-options.
 *
 * A program lists its options as an array of sb_option ended by
 * SB_OPT_END(); sb_parse_options() fills the variables they point to and
 * leaves the other arguments (operands) at the front of argv;
 * sb_usage_with_options() writes the usage lines and the aligned option
 * list from the same array, so the help cannot miss an option.
 *
 * Parsing follows getopt_long, as the commands did before: "--name value"
 * and "--name=value", short options "-x value", "-xvalue" and bundled
 * flags "-jq"; a long name may be shortened to any prefix that names one
 * option alone; "--" ends the options; an option's value is the next
 * argument even when it starts with '-'. Operands and options mix in any
 * order unless SB_PARSE_STOP_AT_NON_OPTION is given. "-h" and "--help"
 * are always known.
 *
 * Errors are values: one line in err->msg (no program name: the caller
 * prefixes it), e.g.
 *     unknown option '--limt'; did you mean '--limit'?
 *     --limit: expected a positive integer, got 'x'
 */
#ifndef SOLBOOK_CORE_PARSE_OPTIONS_H
#define SOLBOOK_CORE_PARSE_OPTIONS_H

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stddef.h>

#include "error.h"
#include "strbuf.h"

enum sb_option_kind {
    SB_OPT_KIND_END,
    SB_OPT_KIND_GROUP,    /* a heading in the help; parses nothing */
    SB_OPT_KIND_BOOL,     /* int *: set to 1 */
    SB_OPT_KIND_STRING,   /* const char **: the argument as given */
    SB_OPT_KIND_INT,      /* int *: decimal, within [min, max] */
    SB_OPT_KIND_DOUBLE,   /* double *: finite, within [min, max] */
    SB_OPT_KIND_CALLBACK, /* callback(opt, arg, err); arg NULL for a flag */
};

enum {
    SB_OPT_NOARG = 1 << 0,  /* a callback option that takes no value */
    SB_OPT_HIDDEN = 1 << 1, /* parsed, left out of the help */
    SB_OPT_NOT_HERE = 1 << 2, /* known, but refused ("does not apply here")
                                 and left out of the help: set by
                                 sb_options_only for a subcommand */
};

/* As min of SB_OPT_DOUBLE: any number above zero. */
#define SB_OPT_POSITIVE DBL_MIN

typedef struct sb_option sb_option;

/* Returns SB_OK, or SB_ERR with err's message saying what is wrong with
 * arg (without the option's name: the parser adds "--name: "). */
typedef int (*sb_option_fn)(const sb_option *opt, const char *arg, sb_error *err);

struct sb_option {
    enum sb_option_kind kind;
    int short_name;        /* 'x', or 0 */
    const char *long_name; /* "name" without dashes, or NULL */
    void *value;           /* where the value goes; the callback's data */
    const char *argh;      /* the value's name in the help: "path" shows as
                              <path>; anything with other characters than
                              lowercase letters, digits and '-' as written */
    const char *help;      /* what it does; lines after a '\n' continue in
                              the help column; NULL for none */
    unsigned flags;
    double min, max;       /* SB_OPT_KIND_INT / _DOUBLE: the accepted range */
    sb_option_fn callback;
};

#define SB_OPT_END() {SB_OPT_KIND_END, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL}
#define SB_OPT_GROUP(h) {SB_OPT_KIND_GROUP, 0, NULL, NULL, NULL, (h), 0, 0, 0, NULL}
#define SB_OPT_BOOL(s, l, v, h) {SB_OPT_KIND_BOOL, (s), (l), (v), NULL, (h), 0, 0, 0, NULL}
#define SB_OPT_STRING(s, l, v, a, h) {SB_OPT_KIND_STRING, (s), (l), (v), (a), (h), 0, 0, 0, NULL}
#define SB_OPT_INT(s, l, v, a, lo, hi, h) \
    {SB_OPT_KIND_INT, (s), (l), (v), (a), (h), 0, (lo), (hi), NULL}
#define SB_OPT_DOUBLE(s, l, v, a, lo, hi, h) \
    {SB_OPT_KIND_DOUBLE, (s), (l), (v), (a), (h), 0, (lo), (hi), NULL}
#define SB_OPT_CALLBACK(s, l, v, a, h, fn) \
    {SB_OPT_KIND_CALLBACK, (s), (l), (v), (a), (h), 0, 0, 0, (fn)}
#define SB_OPT_CALLBACK_NOARG(s, l, v, h, fn) \
    {SB_OPT_KIND_CALLBACK, (s), (l), (v), NULL, (h), SB_OPT_NOARG, 0, 0, (fn)}

enum {
    SB_PARSE_STOP_AT_NON_OPTION = 1 << 0, /* the first operand ends the options */
};

enum {
    SB_PARSE_HELP = -2, /* -h or --help was given: print the help, exit 0 */
    SB_PARSE_ERROR = -1 /* err says what is wrong: one line, exit 2 */
};

/* Parses argv[1..argc) (argv[0], the program or command name, is
 * skipped) against opts. Returns the number n of operands, moved to
 * argv[0..n) in their order with argv[n] = NULL; or SB_PARSE_HELP; or
 * SB_PARSE_ERROR with err filled. Options are applied in order, so a
 * later one wins; a variable keeps its value when its option is not
 * given. */
int sb_parse_options(int argc, char **argv, const sb_option *opts, unsigned flags, sb_error *err);

/* Copies all (ended by SB_OPT_END) into out, which has room for cap
 * entries, marking SB_OPT_NOT_HERE every option whose long name is not in
 * names (NULL-ended; NULL: every option applies): one table declares the options of several
 * subcommands and each takes its own. Returns SB_ERR when out is too
 * small. */
int sb_options_only(const sb_option *all, const char *const *names, sb_option *out, size_t cap);

/* Appends the help to out: usage[0] after "usage: ", the following lines
 * after "   or: " (or, when they start with a space and so continue the
 * line above, after as many spaces) up to an empty string, the lines after it as a
 * description (an empty string for a blank line), then a blank line and
 * one line per option, the help strings aligned in one column, groups
 * as headings. usage ends with NULL. */
void sb_usage_with_options(sb_buf *out, const char *const *usage, const sb_option *opts);

/* Writes that help to f (the program's stdout for --help). Returns SB_ERR
 * when memory or the write fails. */
int sb_usage_write(FILE *f, const char *const *usage, const sb_option *opts);

#endif
