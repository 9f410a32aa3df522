/* fuzz_ncu_csv.c - the Nsight Compute CSV parser (ingest/ncu_csv.h): any
 * input gives a profile or one error, never a crash or leak. */
#include <stdint.h>
#include <stdlib.h>

#include "ncu_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_ncu_profile *p = NULL;
    sb_error err;
    if (sb_ncu_csv_parse_buffer((const char *)data, size, "fuzz.ncu.csv", &p, &err) != SB_OK) {
        if (p || !err.msg[0])
            abort();
        return 0;
    }
    for (size_t k = 0; k < p->n_kernels; k++)
        for (size_t m = 0; m < p->n_metrics; m++)
            sb_ncu_profile_find(p, k, p->metric_names[m]);
    sb_ncu_profile_free(p);
    return 0;
}
