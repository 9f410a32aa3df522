/* fleet_skus.h - the SKUs of an arch as a scheduler sees them.
 *
 * data/skus.csv is loaded through collect/sku.h (so its rules apply); the
 * driver names of each row (match_names) become the values of the
 * Kubernetes node label nvidia.com/gpu.product that NVIDIA's GPU feature
 * discovery sets: the product name as the driver reports it with spaces
 * turned into '-' ("NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3").
 * Only the names starting with "NVIDIA " are used where a row has some
 * (the others are shortened aliases for matching).
 */
#ifndef SOLBOOK_FLEET_SKUS_H
#define SOLBOOK_FLEET_SKUS_H

#include <stddef.h>

#include "error.h"

#define SB_FLEET_MAX_PRODUCTS 8

typedef struct sb_fleet_sku {
    char id[64];
    char arch[16];
    char display[96];
    double memory_gb;
    char products[SB_FLEET_MAX_PRODUCTS][64];   /* gpu.product label values */
    size_t n_products;
} sb_fleet_sku;

typedef struct sb_fleet_skus {
    sb_fleet_sku *v;
    size_t n;
    const char *archs[16];   /* distinct archs in table order, NULL-terminated */
    char arch_store[16][16];
} sb_fleet_skus;

/* Loads csv_path (NULL: SOLBOOK_HOME/data/skus.csv). */
int sb_fleet_skus_load(const char *csv_path, sb_fleet_skus *out, sb_error *err);
void sb_fleet_skus_free(sb_fleet_skus *s);

/* "NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3"; SB_ERR when the
 * result is not a valid label value (63 characters of [A-Za-z0-9._-],
 * alphanumeric at both ends). */
int sb_fleet_product_label(const char *driver_name, char *out, size_t size);

#endif
