/* shape_key.c - see shape_key.h. */
#include "shape_key.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *sb_shape_key(const json_t *shape)
{
    size_t n = json_object_size(shape), i = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return NULL;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)shape, k, v)
        keys[i++] = k;
    qsort(keys, n, sizeof *keys, cmp_str);
    sb_buf t = SB_BUF_INIT;
    for (i = 0; i < n; i++)
        sb_buf_printf(&t, "%s%s=%" JSON_INTEGER_FORMAT, i ? "," : "", keys[i],
                      json_integer_value(json_object_get(shape, keys[i])));
    free(keys);
    return sb_buf_take(&t);
}
