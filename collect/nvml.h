/* nvml.h - the few NVML calls solbook needs, through dlopen of
 * libnvidia-ml.so.1 at run time (no nvml.h at build time).
 */
#ifndef SOLBOOK_COLLECT_NVML_H
#define SOLBOOK_COLLECT_NVML_H

#include <jansson.h>

#include "error.h"

typedef struct sb_nvml sb_nvml;   /* opaque: the library handle and symbols */

/* Loads and initialises NVML. SB_ERR (with a reason) when it is absent. */
int sb_nvml_open(sb_nvml **out, sb_error *err);
void sb_nvml_close(sb_nvml *n);

/* Fills the schema's device fields NVML knows (name, pci_device_id,
 * board_part_number, uuid, memory_bytes, compute_capability, clocks,
 * power_limit_w, ecc, mig) into the existing object dev. */
int sb_nvml_device_identity(sb_nvml *n, int index, json_t *dev, sb_error *err);

/* A clock_state object (schema definitions/clock_state): SM and memory
 * clocks, temperature, active throttle reasons by name. */
int sb_nvml_clock_state(sb_nvml *n, int index, json_t **out, sb_error *err);

#endif
