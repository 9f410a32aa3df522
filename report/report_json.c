/* report_json.c - see report_json.h. */
#include "report_json.h"

#include <stdlib.h>

json_t *sb_report_json_new(const char *evidence, const char *rows_key, json_t **rows)
{
    json_t *root = json_object(), *list = json_array();
    if (!root || !list || json_object_set_new(root, "evidence", json_string(evidence)) != 0 ||
        json_object_set(root, rows_key, list) != 0) {
        json_decref(root);
        json_decref(list);
        return NULL;
    }
    json_decref(list); /* root holds it */
    *rows = list;
    return root;
}

int sb_report_json_finish(json_t *root, sb_buf *out, sb_error *err)
{
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10) |
                                   JSON_ENSURE_ASCII);
    json_decref(root);
    if (!s)
        return sb_error_set(err, NULL, NULL, "out of memory");
    sb_buf_puts(out, s);
    sb_buf_puts(out, "\n");
    free(s);
    return SB_OK;
}
