/* dir_names.c - see dir_names.h. */
#include "dir_names.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void sb_dir_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int sb_dir_read_names(DIR *d, const char *dir, char ***names, size_t *n, sb_error *err)
{
    char **v = NULL;
    size_t k = 0, cap = 0;
    struct dirent *de;
    *names = NULL;
    *n = 0;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (k == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nv = realloc(v, nc * sizeof *nv);
            if (!nv) {
                sb_dir_names_free(v, k);
                return sb_error_set(err, dir, NULL, "out of memory");
            }
            v = nv;
            cap = nc;
        }
        if (!(v[k] = strdup(de->d_name))) {
            sb_dir_names_free(v, k);
            return sb_error_set(err, dir, NULL, "out of memory");
        }
        k++;
    }
    if (k)
        qsort(v, k, sizeof *v, cmp_str);
    *names = v;
    *n = k;
    return SB_OK;
}
