/* op_table.c - the ops solbench knows. Add an op by declaring its sb_op
 * here and listing it in sb_op_table (see op.h). */
#include <stdlib.h>
#include <string.h>

#include "op.h"

extern const sb_op sb_op_gemm;
extern const sb_op sb_op_stream;
/* bench/kernels/ (built in unless -DSOLBENCH_WITH_KERNELS=OFF) */
#ifdef SOLBENCH_HAVE_KERNELS
#include "kernels/sbk_op.h"
#endif

const sb_op *const sb_op_table[] = {
    &sb_op_gemm,
    &sb_op_stream,
#ifdef SOLBENCH_HAVE_KERNELS
    SBK_OP_TABLE_ENTRIES
#endif
    NULL,
};

const sb_op *sb_op_find(const char *name)
{
    for (size_t i = 0; sb_op_table[i]; i++)
        if (strcmp(sb_op_table[i]->name, name) == 0)
            return sb_op_table[i];
    return NULL;
}

int sb_op_provider_index(const sb_op *op, const char *name)
{
    for (int i = 0; op->providers[i].name; i++)
        if (strcmp(op->providers[i].name, name) == 0)
            return i;
    return -1;
}

int64_t sb_shape_get(const sb_shape *s, const char *name, int64_t fallback)
{
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->name[i], name) == 0)
            return s->value[i];
    return fallback;
}

const char *sb_params_get(const sb_params *p, const char *name)
{
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->name[i], name) == 0)
            return p->value[i];
    return NULL;
}

double sb_params_get_double(const sb_params *p, const char *name, double fallback)
{
    const char *v = sb_params_get(p, name);
    if (!v)
        return fallback;
    char *end;
    double d = strtod(v, &end);
    return end != v && *end == 0 ? d : fallback;
}
