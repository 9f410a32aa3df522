/* json_schema.h - a JSON Schema draft-07 validator on jansson.
 *
 * Supported keywords: type, properties, required, additionalProperties,
 * patternProperties, enum, const, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, multipleOf, minLength, maxLength, pattern (PCRE2),
 * items (both forms), additionalItems, contains, minItems, maxItems,
 * uniqueItems, allOf, anyOf, oneOf, not, if/then/else, $ref to local
 * definitions (#, #/definitions/..., any local JSON pointer), definitions,
 * boolean schemas, minProperties, maxProperties, dependencies, propertyNames.
 * Annotations ($schema, $id, $comment, title, description, default,
 * examples, format, readOnly, writeOnly, contentMediaType, contentEncoding)
 * are accepted and ignored; draft-07 makes format an annotation by default,
 * so "format": "date-time" checks nothing. Any other keyword makes loading
 * fail with an error naming it and its JSON pointer: a schema is never
 * silently half-checked. For the same reason assertions beside $ref (which
 * draft-07 ignores) and then/else without if are refused.
 * Numbers compare by value (1 equals 1.0, also in enum, const and
 * uniqueItems); integers compare exactly over the whole int64 range.
 * pattern and patternProperties use PCRE2 in UTF mode with ECMAScript-like
 * options (\uXXXX escapes, $ only at the very end), compiled once.
 * $ref resolves local JSON pointers (~0, ~1 and %-escapes), $id-based base
 * URIs within a document, and the draft-07 metaschema URI
 * (http://json-schema.org/draft-07/schema#), which is read from
 * SOLBOOK_HOME/data/schemas/json-schema-draft-07.json. A schema that loops
 * (a $ref cycle that never moves into the instance) is refused at compile
 * time when it is made of $refs alone, and reported as a "$ref" error at
 * validation time otherwise; it never hangs.
 */
#ifndef SOLBOOK_INGEST_JSON_SCHEMA_H
#define SOLBOOK_INGEST_JSON_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

typedef struct sb_schema sb_schema;

/* Compiles a schema. Takes its own reference to json. name is used in
 * errors (usually the path). Fails on unknown keywords, bad regexes, bad
 * $refs, or wrong keyword value types. */
int sb_schema_compile(json_t *json, const char *name, sb_schema **out, sb_error *err);

/* Reads (with sb_json_load_file_any: a boolean schema `true` or `false`
 * is a whole schema file too) and compiles path. */
int sb_schema_load_file(const char *path, sb_schema **out, sb_error *err);

/* Options for sb_schema_compile_opts. */
enum {
    /* Behave exactly as draft-07 says instead of refusing: unknown keywords,
     * assertions beside $ref, and then/else without if are ignored. Meant
     * for running the official JSON-Schema-Test-Suite, whose schemas use
     * non-keyword members as $ref targets; solbook's own schemas are always
     * compiled strictly. */
    SB_SCHEMA_DRAFT07_LENIENT = 1u << 0,
};

/* Fetches a schema document that is not the one being compiled, by absolute
 * URI without fragment. Returns a new reference, or NULL with err filled. */
typedef json_t *(*sb_schema_resolve_fn)(void *ctx, const char *uri, sb_error *err);

typedef struct sb_schema_options {
    unsigned flags;               /* SB_SCHEMA_* bits */
    sb_schema_resolve_fn resolve; /* NULL: only the bundled metaschema */
    void *resolve_ctx;
} sb_schema_options;

/* The URI of the draft-07 metaschema (without the empty fragment). */
#define SB_SCHEMA_DRAFT07_URI "http://json-schema.org/draft-07/schema"

/* sb_schema_compile with options (opts may be NULL). */
int sb_schema_compile_opts(json_t *json, const char *name,
                           const sb_schema_options *opts, sb_schema **out,
                           sb_error *err);

/* sb_schema_load_file with options (opts may be NULL). */
int sb_schema_load_file_opts(const char *path, const sb_schema_options *opts, sb_schema **out,
                             sb_error *err);

void sb_schema_free(sb_schema *s);

/* The schema's name as given at compile time. */
const char *sb_schema_name(const sb_schema *s);

/* Called once per validation error: pointer is the RFC 6901 pointer into
 * the instance ("" for the root), keyword the failing keyword, reason a
 * short human sentence. */
typedef void (*sb_schema_error_fn)(void *ctx, const char *pointer,
                                   const char *keyword, const char *reason);

/* Validates instance. Returns the number of errors found (0 = valid).
 * on_error may be NULL. Errors under anyOf/oneOf/not/if branches are not
 * reported individually; the combinator's own error is. */
size_t sb_schema_validate(const sb_schema *s, const json_t *instance,
                          sb_schema_error_fn on_error, void *ctx);

/* Convenience for callers that want one error: returns SB_OK when valid,
 * otherwise fills err as  file=FILE, where=POINTER (or "/" for root),
 * msg="schema NAME: KEYWORD: REASON" for the first error. */
int sb_schema_check(const sb_schema *s, const json_t *instance,
                    const char *file, sb_error *err);

/* The solbook schemas by id. Loads every .json file in dir whose name minus
 * .json is its id (solbook.result.v1, ...). */
typedef struct sb_schema_set sb_schema_set;
int sb_schema_set_load(const char *dir, sb_schema_set **out, sb_error *err);
/* NULL when id is not known. */
const sb_schema *sb_schema_set_find(const sb_schema_set *set, const char *id);
/* The ids in the set, sorted: i from 0 to sb_schema_set_count() - 1. */
size_t sb_schema_set_count(const sb_schema_set *set);
const char *sb_schema_set_id(const sb_schema_set *set, size_t i);
void sb_schema_set_free(sb_schema_set *set);

#endif
