/* fuzz_nsys_csv.c - the Nsight Systems kernel summary parser
 * (ingest/nsys_csv.h): any input gives a summary or one error, never a
 * crash or leak; every stored figure is a number the checks let through. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "nsys_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_nsys_summary *s = NULL;
    sb_error err;
    if (sb_nsys_csv_parse_buffer((const char *)data, size, "fuzz.nsys.csv", &s, &err) != SB_OK) {
        fuzz_assert(s == NULL);
        fuzz_assert_one_line_error(err);
        return 0;
    }
    fuzz_assert(s->n > 0);
    for (size_t i = 0; i < s->n; i++) {
        const sb_kernel_summary_row *r = &s->rows[i];
        fuzz_assert(r->kernel_name && r->kernel_name[0]);
        fuzz_assert(r->instances >= 1);
        fuzz_assert(isfinite(r->total_ms) && r->total_ms >= 0);
        fuzz_assert(!r->has_time_pct || (r->time_pct >= 0 && r->time_pct <= 100));
        fuzz_assert(!(r->has_min && r->has_max) || r->min_ms <= r->max_ms);
    }
    sb_nsys_summary_free(s);
    return 0;
}
