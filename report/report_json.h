/* report_json.h - the JSON document the op-level reports (geomean,
 * regressions, compare) print: an object naming its evidence, with one
 * array of rows, written with sorted keys and ASCII only. */
#ifndef SOLBOOK_REPORT_REPORT_JSON_H
#define SOLBOOK_REPORT_REPORT_JSON_H

#include <jansson.h>

#include "error.h"
#include "strbuf.h"

/* A new object {"evidence": evidence, rows_key: []}; *rows is the array,
 * borrowed from the object. NULL when out of memory. */
json_t *sb_report_json_new(const char *evidence, const char *rows_key, json_t **rows);

/* Appends root to out (2-space indent, sorted keys, 10 significant digits,
 * non-ASCII escaped so it is safe to print on a terminal) and a newline,
 * then releases root. */
int sb_report_json_finish(json_t *root, sb_buf *out, sb_error *err);

#endif
