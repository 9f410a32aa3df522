/* nsys_csv.h - Nsight Systems' CUDA kernel summary
 * (`nsys stats --report cuda_gpu_kern_sum --format csv`) parsing.
 *
 * Layout: a header row naming the columns "Time (%)", "Total Time (ns)",
 * "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"
 * and "Name" (in any order; other columns are passed over), then one row a
 * kernel name, as the report groups launches. Lines before the header
 * (nsys's "Processing [...]" message when the report went to stdout) are
 * skipped. "Total Time (ns)", "Instances" and "Name" are required; the
 * others may be absent or empty. Times are converted from ns to ms
 * exactly: the decimal point is moved before the text is rounded to a
 * double, so each time is the double nearest its exact value in ms.
 */
#ifndef SOLBOOK_INGEST_NSYS_CSV_H
#define SOLBOOK_INGEST_NSYS_CSV_H

#include <stddef.h>

#include "error.h"
#include "run_store.h" /* sb_kernel_summary_row */

typedef struct sb_nsys_summary {
    size_t n;
    sb_kernel_summary_row *rows; /* kernel_name owned here */
} sb_nsys_summary;

/* Parses a whole buffer; name is used in errors, which name the line
 * ("FILE: line N: ...") and leave *out NULL. */
int sb_nsys_csv_parse_buffer(const char *buf, size_t len, const char *name, sb_nsys_summary **out,
                             sb_error *err);
int sb_nsys_csv_parse_file(const char *path, sb_nsys_summary **out, sb_error *err);
void sb_nsys_summary_free(sb_nsys_summary *s);

#endif
