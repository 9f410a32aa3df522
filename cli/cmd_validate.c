/* cmd_validate.c - `solbook validate`: check JSON files against a JSON
 * Schema (draft-07), either one given with --schema or, per file, the
 * solbook schema its own "schema" field names. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "home.h"
#include "json_file.h"
#include "json_schema.h"
#include "term.h"

static const char *const validate_usage[] = {
    "solbook validate [--schema SCHEMA [--lenient]] [--quiet] INSTANCE...",
    "",
    "Checks JSON files against a JSON Schema (draft-07). An instance may be any",
    "JSON value; a schema file may be a boolean schema (true or false).",
    "",
    "Prints one line per problem, FILE: POINTER: KEYWORD: reason (the document",
    "root is \"/\"), and FILE: valid for each valid file. Malformed JSON is reported",
    "as FILE: line L, column C: reason. Exit status: 0 when every file is valid,",
    "1 when any is invalid or unreadable, 2 on a usage error or unreadable schema.",
    NULL,
};

typedef struct print_ctx {
    const char *file;
} print_ctx;

static void print_error(void *ctx, const char *pointer, const char *keyword, const char *reason)
{
    const print_ctx *p = ctx;
    sb_term_line(stdout, "%s: %s: %s: %s", p->file, pointer[0] ? pointer : "/", keyword, reason);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* SCHEMA as a path, or as an id under $SOLBOOK_HOME/data/schemas. */
static int load_named_schema(const char *arg, const sb_schema_options *opts, sb_schema **out)
{
    sb_error err;
    char path[4096];
    sb_error_clear(&err);
    if (is_file(arg) || strchr(arg, '/') || strlen(arg) == 0) {
        if (sb_schema_load_file_opts(arg, opts, out, &err) == SB_OK)
            return SB_OK;
        sb_error_print(&err, stderr);
        return SB_ERR;
    }
    if (sb_data_path(path, sizeof path, "schemas/", &err) != SB_OK ||
        strlen(path) + strlen(arg) + 6 >= sizeof path) {
        fprintf(stderr, "solbook: %s: schema id too long\n", arg);
        return SB_ERR;
    }
    strcat(path, arg);
    strcat(path, ".json");
    if (!is_file(path)) {
        fprintf(stderr,
                "solbook: %s: neither a schema file nor a known schema id (no %s)\n", arg,
                path);
        return SB_ERR;
    }
    if (sb_schema_load_file_opts(path, opts, out, &err) == SB_OK)
        return SB_OK;
    sb_error_print(&err, stderr);
    return SB_ERR;
}

/* The solbook schema the instance's "schema" field names, or NULL after
 * printing why not. */
static const sb_schema *schema_for(const char *file, const json_t *instance,
                                   sb_schema_set **set, int *system_error)
{
    const json_t *id = json_is_object(instance) ? json_object_get(instance, "schema") : NULL;
    if (!json_is_object(instance)) {
        sb_term_line(stdout, "%s: /: schema: the document is %s, not an object with a \"schema\" field; "
                             "pass --schema",
                     file, json_is_array(instance) ? "an array" : "a scalar");
        return NULL;
    }
    if (!json_is_string(id)) {
        sb_term_line(stdout, "%s: %s: schema: %s; pass --schema to choose one", file, id ? "/schema" : "/",
                     id ? "the \"schema\" field is not a string" : "no \"schema\" field names a schema");
        return NULL;
    }
    if (!*set) {
        char dir[4096];
        sb_error err;
        sb_error_clear(&err);
        if (sb_data_path(dir, sizeof dir, "schemas", &err) != SB_OK ||
            sb_schema_set_load(dir, set, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            *system_error = 1;
            return NULL;
        }
    }
    const sb_schema *s = sb_schema_set_find(*set, json_string_value(id));
    if (!s) {
        char known[1024] = "";
        size_t n = 0;
        for (size_t i = 0; i < sb_schema_set_count(*set) && n < sizeof known; i++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                                  sb_schema_set_id(*set, i));
        sb_term_line(stdout, "%s: /schema: schema: unknown schema id \"%s\" (known: %s)", file,
                     json_string_value(id), known);
    }
    return s;
}

int cmd_validate(int argc, char **argv)
{
    const char *schema_arg = NULL;
    int quiet = 0, lenient = 0, exit_status;
    const sb_option options[] = {
        SB_OPT_STRING('s', "schema", &schema_arg, "schema",
                      "a schema file, or the id of a solbook schema such as\n"
                      "solbook.result.v1 (read from $SOLBOOK_HOME/data/schemas/ID.json).\n"
                      "Without it, each file's own \"schema\" field picks the\n"
                      "solbook schema it is checked against."),
        SB_OPT_BOOL('l', "lenient", &lenient,
                    "read the --schema the way draft-07 says: keywords beside\n"
                    "$ref and unknown keywords are ignored, then/else without\n"
                    "if do nothing. Without it, such a schema is refused, so\n"
                    "that nothing is silently left unchecked; solbook's own\n"
                    "schemas are always read that strict way."),
        SB_OPT_BOOL('q', "quiet", &quiet, "print only problems, not the \"FILE: valid\" lines"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "validate", options, validate_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc == 0) {
        fprintf(stderr, "solbook validate: no files to check; see 'solbook validate --help'\n");
        return 2;
    }
    if (lenient && !schema_arg) {
        fprintf(stderr, "solbook validate: --lenient applies to a schema given with --schema; "
                        "solbook's own schemas are always strict\n");
        return 2;
    }
    sb_schema_options schema_opts = {.flags = lenient ? SB_SCHEMA_DRAFT07_LENIENT : 0};

    sb_schema *given = NULL;
    sb_schema_set *set = NULL;
    if (schema_arg && load_named_schema(schema_arg, &schema_opts, &given) != SB_OK)
        return 2;

    int invalid = 0, system_error = 0;
    for (int i = 0; i < argc && !system_error; i++) {
        const char *file = argv[i];
        json_t *instance = NULL;
        sb_error err;
        sb_error_clear(&err);
        if (sb_json_load_file_any(file, &instance, &err) != SB_OK) {
            char line[4096];
            sb_error_format(&err, line, sizeof line);
            sb_term_line(stdout, "%s", line);
            invalid = 1;
            continue;
        }
        const sb_schema *schema = given ? given : schema_for(file, instance, &set, &system_error);
        if (!schema) {
            invalid = 1;
            json_decref(instance);
            continue;
        }
        print_ctx ctx = {file};
        if (sb_schema_validate(schema, instance, print_error, &ctx) == 0) {
            if (!quiet)
                sb_term_line(stdout, "%s: valid", file);
        } else {
            invalid = 1;
        }
        json_decref(instance);
    }
    fflush(stdout);
    sb_schema_free(given);
    sb_schema_set_free(set);
    return system_error ? 2 : (invalid ? 1 : 0);
}
