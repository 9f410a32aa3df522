/* fuzz_ncu_csv.c - the Nsight Compute CSV parser (ingest/ncu_csv.h): any
 * input gives a profile or one error, never a crash or leak. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "ncu_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_ncu_profile *p = NULL;
    sb_error err;
    if (sb_ncu_csv_parse_buffer((const char *)data, size, "fuzz.ncu.csv", &p, &err) != SB_OK) {
        fuzz_assert(p == NULL);
        fuzz_assert_one_line_error(err);
        return 0;
    }
    /* what find returns is a value of that kernel and metric */
    for (size_t k = 0; k < p->n_kernels; k++)
        for (size_t m = 0; m < p->n_metrics; m++) {
            const sb_ncu_value *v = sb_ncu_profile_find(p, k, p->metric_names[m]);
            fuzz_assert(v == NULL || (v->kernel == k && strcmp(p->metric_names[v->metric], p->metric_names[m]) == 0));
        }
    sb_ncu_profile_free(p);
    return 0;
}
