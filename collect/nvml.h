/* nvml.h - the few NVML calls solbook needs, through dlopen of
 * libnvidia-ml.so.1 at run time (no nvml.h at build time).
 */
#ifndef SOLBOOK_COLLECT_NVML_H
#define SOLBOOK_COLLECT_NVML_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"

typedef struct sb_nvml sb_nvml;   /* opaque: the library handle and symbols */

/* Loads and initialises NVML. SB_ERR (with a reason) when it is absent. */
int sb_nvml_open(sb_nvml **out, sb_error *err);
void sb_nvml_close(sb_nvml *n);

/* Fills the schema's device fields NVML knows (name, pci_device_id,
 * board_part_number, uuid, memory_bytes, compute_capability, clocks,
 * power_limit_w, ecc, mig) into the existing object dev. A field NVML
 * cannot read is set to "unknown" / null unless dev already has it.
 * SB_ERR when there is no device at index. */
int sb_nvml_device_identity(sb_nvml *n, int index, json_t *dev, sb_error *err);

/* A clock_state object (schema definitions/clock_state): SM and memory
 * clocks, temperature, active throttle reasons by name. */
int sb_nvml_clock_state(sb_nvml *n, int index, json_t **out, sb_error *err);

/* The driver version ("580.159.04") and the highest CUDA version the driver
 * supports ("13.0"). SB_ERR (buf untouched) when NVML cannot tell. */
int sb_nvml_driver_version(sb_nvml *n, char *buf, size_t size);
int sb_nvml_cuda_driver_version(sb_nvml *n, char *buf, size_t size);

/* Names of the clock-event (throttle) reason bits in mask, in bit order:
 * gpu_idle 0x1, applications_clocks_setting 0x2, sw_power_cap 0x4,
 * hw_slowdown 0x8, sync_boost 0x10, sw_thermal_slowdown 0x20,
 * hw_thermal_slowdown 0x40, hw_power_brake_slowdown 0x80,
 * display_clock_setting 0x100; other bits as "unknown_0x200" etc.
 * A new array (empty for 0), NULL when out of memory. */
json_t *sb_nvml_throttle_reason_names(unsigned long long mask);

#endif
