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
 * examples) are accepted and ignored. Any other keyword makes loading fail
 * with an error naming it: a schema is never silently half-checked.
 * Numbers compare by value (1 equals 1.0).
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

/* Reads (with sb_json_load_file) and compiles path. */
int sb_schema_load_file(const char *path, sb_schema **out, sb_error *err);

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

/* The solbook schemas by id. Loads every DIR/*.json whose file name minus
 * .json is its id (solbook.result.v1, ...). */
typedef struct sb_schema_set sb_schema_set;
int sb_schema_set_load(const char *dir, sb_schema_set **out, sb_error *err);
/* NULL when id is not known. */
const sb_schema *sb_schema_set_find(const sb_schema_set *set, const char *id);
void sb_schema_set_free(sb_schema_set *set);

#endif
