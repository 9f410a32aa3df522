/* parse_options.c - see parse_options.h. */
#include "parse_options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

/* The help column: option columns up to this wide put their help beside
 * them, wider ones on the next line. */
enum { HELP_COLUMN_MAX = 30 };

static const sb_option help_option =
    SB_OPT_BOOL('h', "help", NULL, "show this help");

static int takes_value(const sb_option *o)
{
    switch (o->kind) {
    case SB_OPT_KIND_STRING:
    case SB_OPT_KIND_INT:
    case SB_OPT_KIND_DOUBLE:
        return 1;
    case SB_OPT_KIND_CALLBACK:
        return !(o->flags & SB_OPT_NOARG);
    default:
        return 0;
    }
}

static int is_option(const sb_option *o)
{
    return o->kind != SB_OPT_KIND_END && o->kind != SB_OPT_KIND_GROUP;
}

/* "--name" or "-x": how errors name the option the user gave. */
static void option_name(const sb_option *o, int used_short, char *buf, size_t size)
{
    if (used_short || !o->long_name)
        snprintf(buf, size, "-%c", o->short_name);
    else
        snprintf(buf, size, "--%s", o->long_name);
}

/* "a positive integer", "an integer from 1 to 3600", "a number from 0 to 10". */
static void range_words(const sb_option *o, char *buf, size_t size)
{
    int integer = o->kind == SB_OPT_KIND_INT;
    int unbounded = integer ? o->max >= (double)INT_MAX : o->max >= HUGE_VAL;
    if (unbounded && !integer && o->min == SB_OPT_POSITIVE)
        snprintf(buf, size, "a positive number");
    else if (unbounded && integer && o->min == 1)
        snprintf(buf, size, "a positive integer");
    else if (unbounded && o->min == 0)
        snprintf(buf, size, "a non-negative %s", integer ? "integer" : "number");
    else if (unbounded)
        snprintf(buf, size, "%s of at least %g", integer ? "an integer" : "a number", o->min);
    else
        snprintf(buf, size, "%s from %g to %g", integer ? "an integer" : "a number", o->min, o->max);
}

static int set_value(const sb_option *o, const char *name, const char *arg, sb_error *err)
{
    char range[96];
    switch (o->kind) {
    case SB_OPT_KIND_BOOL:
        *(int *)o->value = 1;
        return SB_OK;
    case SB_OPT_KIND_STRING:
        *(const char **)o->value = arg;
        return SB_OK;
    case SB_OPT_KIND_INT: {
        char *end;
        errno = 0;
        long v = strtol(arg, &end, 10);
        if (!*arg || *end || errno || v < o->min || v > o->max || v < INT_MIN || v > INT_MAX) {
            range_words(o, range, sizeof range);
            return sb_error_set(err, NULL, NULL, "%s: expected %s, got '%s'", name, range, arg);
        }
        *(int *)o->value = (int)v;
        return SB_OK;
    }
    case SB_OPT_KIND_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(arg, &end);
        if (!*arg || *end || errno || !isfinite(v) || v < o->min || v > o->max) {
            range_words(o, range, sizeof range);
            return sb_error_set(err, NULL, NULL, "%s: expected %s, got '%s'", name, range, arg);
        }
        *(double *)o->value = v;
        return SB_OK;
    }
    case SB_OPT_KIND_CALLBACK: {
        sb_error cb;
        sb_error_clear(&cb);
        if (o->callback(o, arg, &cb) == SB_OK)
            return SB_OK;
        return sb_error_set(err, NULL, NULL, "%s: %s", name, cb.msg);
    }
    default:
        return sb_error_set(err, NULL, NULL, "%s: not an option", name);
    }
}

/* The option whose long name is word (up to '=' or its end), or the only
 * one it starts. */
static int find_long(const sb_option *opts, const char *word, size_t len, const sb_option **found,
                     sb_error *err)
{
    const sb_option *prefix = NULL;
    size_t prefixes = 0;
    for (const sb_option *o = opts; o->kind != SB_OPT_KIND_END; o++) {
        if (!is_option(o) || !o->long_name)
            continue;
        if (strncmp(o->long_name, word, len) != 0)
            continue;
        if (o->long_name[len] == '\0') {
            *found = o;
            return SB_OK;
        }
        prefix = o;
        prefixes++;
    }
    if (strncmp(help_option.long_name, word, len) == 0 && len > 0) {
        if (help_option.long_name[len] == '\0') {
            *found = &help_option;
            return SB_OK;
        }
        prefix = &help_option;
        prefixes++;
    }
    if (prefixes == 1 && len > 0) {
        *found = prefix;
        return SB_OK;
    }
    if (prefixes > 1 && len > 0) {
        char names[512] = "";
        size_t at = 0;
        for (const sb_option *o = opts; o->kind != SB_OPT_KIND_END && at < sizeof names; o++)
            if (is_option(o) && o->long_name && strncmp(o->long_name, word, len) == 0)
                at += (size_t)snprintf(names + at, sizeof names - at, "%s--%s", at ? ", " : "",
                                       o->long_name);
        if (strncmp(help_option.long_name, word, len) == 0 && at < sizeof names)
            snprintf(names + at, sizeof names - at, ", --%s", help_option.long_name);
        return sb_error_set(err, NULL, NULL, "ambiguous option '--%.*s': could be %s", (int)len,
                            word, names);
    }
    const char *known[256];
    size_t k = 0;
    for (const sb_option *o = opts; o->kind != SB_OPT_KIND_END && k + 2 < 256; o++)
        if (is_option(o) && o->long_name && !(o->flags & (SB_OPT_HIDDEN | SB_OPT_NOT_HERE)))
            known[k++] = o->long_name;
    known[k++] = help_option.long_name;
    known[k] = NULL;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), word);
    const char *close = sb_suggest(name, known);
    if (close)
        return sb_error_set(err, NULL, NULL, "unknown option '--%s'; did you mean '--%s'?", name,
                            close);
    return sb_error_set(err, NULL, NULL, "unknown option '--%s'", name);
}

static const sb_option *find_short(const sb_option *opts, int c)
{
    for (const sb_option *o = opts; o->kind != SB_OPT_KIND_END; o++)
        if (is_option(o) && o->short_name == c)
            return o;
    return c == help_option.short_name ? &help_option : NULL;
}

int sb_parse_options(int argc, char **argv, const sb_option *opts, unsigned flags, sb_error *err)
{
    int operands = 0, i = 1;
    char name[160];
    for (; i < argc; i++) {
        char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (flags & SB_PARSE_STOP_AT_NON_OPTION)
                break;
            argv[operands++] = arg;
            continue;
        }
        if (arg[1] == '-') {
            const char *word = arg + 2;
            size_t len = strcspn(word, "=");
            const sb_option *o;
            if (find_long(opts, word, len, &o, err) != SB_OK)
                return SB_PARSE_ERROR;
            option_name(o, 0, name, sizeof name);
            if (o == &help_option)
                return SB_PARSE_HELP;
            if (o->flags & SB_OPT_NOT_HERE) {
                sb_error_set(err, NULL, NULL, "option '%s' does not apply here", name);
                return SB_PARSE_ERROR;
            }
            const char *value = NULL;
            if (takes_value(o)) {
                if (word[len] == '=')
                    value = word + len + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else {
                    sb_error_set(err, NULL, NULL, "option '%s' needs a value", name);
                    return SB_PARSE_ERROR;
                }
            } else if (word[len] == '=') {
                sb_error_set(err, NULL, NULL, "option '%s' takes no value", name);
                return SB_PARSE_ERROR;
            }
            if (set_value(o, name, value, err) != SB_OK)
                return SB_PARSE_ERROR;
            continue;
        }
        /* one or more short options: "-j", "-jq", "-dPATH", "-d PATH" */
        for (const char *p = arg + 1; *p; p++) {
            const sb_option *o = find_short(opts, (unsigned char)*p);
            if (!o) {
                sb_error_set(err, NULL, NULL, "unknown option '-%c'", *p);
                return SB_PARSE_ERROR;
            }
            if (o == &help_option)
                return SB_PARSE_HELP;
            option_name(o, 1, name, sizeof name);
            if (o->flags & SB_OPT_NOT_HERE) {
                sb_error_set(err, NULL, NULL, "option '%s' does not apply here", name);
                return SB_PARSE_ERROR;
            }
            if (!takes_value(o)) {
                if (set_value(o, name, NULL, err) != SB_OK)
                    return SB_PARSE_ERROR;
                continue;
            }
            const char *value = p[1] ? p + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!value) {
                sb_error_set(err, NULL, NULL, "option '%s' needs a value", name);
                return SB_PARSE_ERROR;
            }
            if (set_value(o, name, value, err) != SB_OK)
                return SB_PARSE_ERROR;
            break;
        }
    }
    for (; i < argc; i++)
        argv[operands++] = argv[i];
    argv[operands] = NULL;
    return operands;
}

int sb_options_only(const sb_option *all, const char *const *names, sb_option *out, size_t cap)
{
    size_t n = 0;
    for (const sb_option *o = all;; o++) {
        if (n == cap)
            return SB_ERR;
        out[n] = *o;
        if (o->kind == SB_OPT_KIND_END)
            return SB_OK;
        int named = 0;
        for (size_t i = 0; names && names[i] && o->long_name && !named; i++)
            named = strcmp(names[i], o->long_name) == 0;
        if (is_option(o) && names && !named)
            out[n].flags |= SB_OPT_NOT_HERE;
        n++;
    }
}

/* "-d, --db <path>" or "    --json": the left column of an option's line. */
static void option_column(const sb_option *o, sb_buf *b)
{
    if (o->short_name)
        sb_buf_printf(b, "-%c%s", o->short_name, o->long_name ? ", " : "");
    else
        sb_buf_puts(b, "    ");
    if (o->long_name)
        sb_buf_printf(b, "--%s", o->long_name);
    if (!takes_value(o))
        return;
    const char *a = o->argh ? o->argh : "value";
    int plain = strspn(a, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(a);
    sb_buf_printf(b, plain ? " <%s>" : " %s", a);
}

void sb_usage_with_options(sb_buf *out, const char *const *usage, const sb_option *opts)
{
    size_t u = 0;
    for (; usage[u] && usage[u][0]; u++) {
        const char *lead = u == 0 ? "usage: " : usage[u][0] == ' ' ? "       " : "   or: ";
        sb_buf_printf(out, "%s%s\n", lead, usage[u]);
    }
    if (usage[u]) {
        sb_buf_putc(out, '\n');
        for (u++; usage[u]; u++)
            sb_buf_printf(out, "%s\n", usage[u]);
    }
    size_t width = 0;
    sb_buf col = SB_BUF_INIT;
    for (const sb_option *o = opts;; o++) {
        const sb_option *opt = o->kind == SB_OPT_KIND_END ? &help_option : o;
        if (is_option(opt) && !(opt->flags & (SB_OPT_HIDDEN | SB_OPT_NOT_HERE))) {
            sb_buf_reset(&col);
            option_column(opt, &col);
            if (col.len > width && col.len <= HELP_COLUMN_MAX)
                width = col.len;
        }
        if (o->kind == SB_OPT_KIND_END)
            break;
    }
    sb_buf_putc(out, '\n');
    for (const sb_option *o = opts;; o++) {
        const sb_option *opt = o->kind == SB_OPT_KIND_END ? &help_option : o;
        if (opt->kind == SB_OPT_KIND_GROUP) {
            /* a blank line before a heading, unless one just went */
            sb_buf_printf(out, "%s%s\n", o == opts ? "" : "\n", opt->help ? opt->help : "");
        } else if (!(opt->flags & (SB_OPT_HIDDEN | SB_OPT_NOT_HERE))) {
            sb_buf_reset(&col);
            option_column(opt, &col);
            const char *h = opt->help ? opt->help : "";
            if (!h[0])
                sb_buf_printf(out, "  %s\n", sb_buf_str(&col));
            else if (col.len > width)
                sb_buf_printf(out, "  %s\n  %*s  ", sb_buf_str(&col), (int)width, "");
            else
                sb_buf_printf(out, "  %-*s  ", (int)width, sb_buf_str(&col));
            /* a help of several lines continues in the help column */
            while (*h) {
                size_t n = strcspn(h, "\n");
                sb_buf_add(out, h, n);
                sb_buf_putc(out, '\n');
                h += n;
                if (*h == '\n' && *++h)
                    sb_buf_printf(out, "  %*s  ", (int)width, "");
            }
        }
        if (o->kind == SB_OPT_KIND_END)
            break;
    }
    sb_buf_free(&col);
}

int sb_usage_write(FILE *f, const char *const *usage, const sb_option *opts)
{
    sb_buf b = SB_BUF_INIT;
    sb_usage_with_options(&b, usage, opts);
    int ok = !sb_buf_failed(&b) && fputs(sb_buf_str(&b), f) != EOF;
    sb_buf_free(&b);
    return ok ? SB_OK : SB_ERR;
}
