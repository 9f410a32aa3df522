/* nsys_csv.h - Nsight Systems' CUDA kernel summary
 * (`nsys stats --report cuda_gpu_kern_sum --format csv`) parsing.
 *
 * Layout: a header row naming the columns of one nsys version's kernel
 * summary, then one row a kernel name, as the report groups launches.
 * nsys's current report, cuda_gpu_kern_sum, names them "Time (%)", "Total
 * Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
 * "StdDev (ns)" and "Name"; the gpukernsum report of earlier versions
 * "Time(%)", "Total Time (ns)", "Instances", "Average (ns)", "Minimum
 * (ns)", "Maximum (ns)", "StdDev (ns)", "Name", or in its first form
 * "Time(%)", "Total Time (ns)", "Instances", "Average", "Minimum",
 * "Maximum", "Name" (all in ns). Columns come in any order; other columns are passed over.
 * Lines before the header (nsys's "Processing [...]" message when the
 * report went to stdout) are skipped. "Total Time (ns)", "Instances" and
 * "Name" are required; the others may be absent or empty. Times are
 * converted from ns to ms
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

/* Called once per kernel row, index counting them from 0; row and its
 * kernel_name are valid during the call. Return SB_OK to go on, or
 * SB_ERR with err filled to stop. */
typedef int (*sb_nsys_row_fn)(void *ctx, size_t index, const sb_kernel_summary_row *row, sb_error *err);

/* Reads buf record by record and calls fn for each kernel row, holding
 * one record at a time (memory does not grow with the rows: a sidecar is
 * stored as it is read, ingest.h). Errors as sb_nsys_csv_parse_buffer's;
 * one found after some rows comes after their calls. */
int sb_nsys_csv_each(const char *buf, size_t len, const char *name, sb_nsys_row_fn fn, void *ctx,
                     sb_error *err);

/* Parses a whole buffer; name is used in errors, which name the line
 * ("FILE: line N: ...") and leave *out NULL. */
int sb_nsys_csv_parse_buffer(const char *buf, size_t len, const char *name, sb_nsys_summary **out,
                             sb_error *err);
int sb_nsys_csv_parse_file(const char *path, sb_nsys_summary **out, sb_error *err);
void sb_nsys_summary_free(sb_nsys_summary *s);

#endif
