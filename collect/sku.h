/* sku.h - the SKU table (data/skus.csv): stable SKU ids, arch labels and
 * datasheet peaks, each row with its source. Read by bench, report and the
 * importers, so a number is defined once.
 */
#ifndef SOLBOOK_COLLECT_SKU_H
#define SOLBOOK_COLLECT_SKU_H

#include <stddef.h>

#include "error.h"

typedef struct sb_sku {
    char id[64];            /* h100-sxm5-80gb */
    char arch[16];          /* a100 | h100 | h200 */
    char display[96];       /* "H100 SXM5 80GB" */
    /* Datasheet peaks; 0 where the datasheet gives none. Dense (no sparsity).
     * fp64_tflops is the FP64 Tensor Core (matrix) peak, the ceiling of a
     * DGEMM; fp64_vector_tflops is the plain FP64 (non-tensor) peak. */
    double fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops;
    double hbm_tbps;        /* memory bandwidth, TB/s (1e12 bytes/s) */
    double memory_gb;
    char source[512];       /* datasheet the figures come from */
    double fp64_vector_tflops;
} sb_sku;

typedef struct sb_sku_table sb_sku_table;

/* Loads a skus.csv (path NULL: SOLBOOK_HOME/data/skus.csv). */
int sb_sku_table_load(const char *path, sb_sku_table **out, sb_error *err);
void sb_sku_table_free(sb_sku_table *t);
size_t sb_sku_count(const sb_sku_table *t);
const sb_sku *sb_sku_at(const sb_sku_table *t, size_t i);
const sb_sku *sb_sku_find(const sb_sku_table *t, const char *id);

/* Identifies a card from what the driver reports. pci_device_id may be
 * NULL or "unknown"; memory_bytes may be 0. Returns the table row, or NULL
 * for a card outside the table, in which case unknown_id receives
 * "unknown-<slug of name>" and unknown_arch a best label or "unknown". */
const sb_sku *sb_sku_identify(const sb_sku_table *t, const char *gpu_name,
                              const char *pci_device_id, long long memory_bytes,
                              char *unknown_id, size_t id_size,
                              char *unknown_arch, size_t arch_size);

/* Datasheet peak of a dtype in TFLOP/s ("fp16", "bf16", "tf32", "fp32",
 * "fp64", "fp8e4m3"); 0 when none. Also accepted: "fp8" and "fp8e5m2"
 * (same tensor-core rate as e4m3 on these parts) and "fp64-vector" (the
 * non-tensor FP64 peak). An unknown dtype gives 0. */
double sb_sku_peak_tflops(const sb_sku *s, const char *dtype);

/* Best-effort arch label from a device name: "a100", "h100" or "h200" when
 * the name has that word (so "GH200" is not "h200"), else "unknown". */
const char *sb_sku_arch_from_name(const char *gpu_name);

/* Lower-case slug of free text for ids: runs of characters other than
 * [a-z0-9] become one '-', no leading or trailing '-', cut to fit size.
 * "AMD EPYC 9454 48-Core Processor" -> "amd-epyc-9454-48-core-processor".
 * Empty result when the text has no letters or digits. */
void sb_sku_slug(const char *text, char *out, size_t size);

#endif
