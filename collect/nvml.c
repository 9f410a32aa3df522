/* nvml.c - NVML through dlopen("libnvidia-ml.so.1").
 *
 * No nvml.h: the few types, constants and signatures used here are declared
 * below from the documented NVML ABI (nvml.h of the CUDA toolkit, API
 * version 12; NVML_API_VERSION 13 renamed the throttle-reason call to
 * "clocks event reasons" with the same bits). Every symbol except nvmlInit
 * is optional: a missing one leaves its field unknown.
 */
#include "nvml.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SB_NVML_LIBRARY "libnvidia-ml.so.1"

/* ---- the NVML ABI subset ---- */
typedef int nvml_return;                      /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;   /* nvmlDevice_t */

enum {
    NVML_SUCCESS = 0,
    NVML_CLOCK_SM = 1,                        /* nvmlClockType_t */
    NVML_CLOCK_MEM = 2,
    NVML_TEMPERATURE_GPU = 0,                 /* nvmlTemperatureSensors_t */
    NVML_FEATURE_ENABLED = 1,                 /* nvmlEnableState_t */
    NVML_DEVICE_MIG_ENABLE = 1,
    NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96,
    NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96,
    NVML_DEVICE_PART_NUMBER_BUFFER_SIZE = 80,
    NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80,
};

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3. */
typedef struct nvml_pci_info {
    char bus_id_legacy[16];     /* busIdLegacy, NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id; /* (device id << 16) | vendor id */
    unsigned int pci_sub_system_id;
    char bus_id[32];            /* busId, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
} nvml_pci_info;

/* nvmlMemory_t (v1). */
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

typedef nvml_return (*fn_void)(void);
typedef const char *(*fn_error_string)(nvml_return);
typedef nvml_return (*fn_handle_by_index)(unsigned int, nvml_device *);
typedef nvml_return (*fn_dev_string)(nvml_device, char *, unsigned int);
typedef nvml_return (*fn_pci_info)(nvml_device, nvml_pci_info *);
typedef nvml_return (*fn_memory)(nvml_device, nvml_memory *);
typedef nvml_return (*fn_cc)(nvml_device, int *, int *);
typedef nvml_return (*fn_clock)(nvml_device, int, unsigned int *);
typedef nvml_return (*fn_uint)(nvml_device, unsigned int *);
typedef nvml_return (*fn_two_modes)(nvml_device, unsigned int *, unsigned int *);
typedef nvml_return (*fn_temperature)(nvml_device, int, unsigned int *);
typedef nvml_return (*fn_system_string)(char *, unsigned int);
typedef nvml_return (*fn_system_int)(int *);
typedef nvml_return (*fn_reasons)(nvml_device, unsigned long long *);

struct sb_nvml {
    void *lib;
    fn_void shutdown;
    fn_error_string error_string;
    fn_handle_by_index handle_by_index;
    fn_dev_string name, board_part_number, uuid;
    fn_pci_info pci_info;
    fn_memory memory_info;
    fn_cc compute_capability;
    fn_clock clock_info, max_clock_info;
    fn_uint enforced_power_limit;
    fn_two_modes ecc_mode, mig_mode;
    fn_temperature temperature;
    fn_system_string driver_version;
    fn_system_int cuda_driver_version;
    fn_reasons clock_reasons;
};

/* dlsym returns void *; going through a union avoids the ISO C warning
 * about converting object pointers to function pointers. */
static fn_void lookup(void *lib, const char *name)
{
    union {
        void *obj;
        fn_void fn;
    } u;
    u.obj = dlsym(lib, name);
    return u.fn;
}

#define LOAD(field, type, name) (n->field = (type)(void (*)(void))lookup(n->lib, name))

static const char *nvml_reason(const sb_nvml *n, nvml_return r, char *buf, size_t size)
{
    const char *s = n->error_string ? n->error_string(r) : NULL;
    if (s && *s)
        snprintf(buf, size, "%s (NVML error %d)", s, r);
    else
        snprintf(buf, size, "NVML error %d", r);
    return buf;
}

int sb_nvml_open(sb_nvml **out, sb_error *err)
{
    sb_nvml *n;
    fn_void init;
    nvml_return r;
    char why[160];

    *out = NULL;
    n = calloc(1, sizeof *n);
    if (!n)
        return sb_error_set(err, NULL, NULL, "out of memory");
    dlerror();
    n->lib = dlopen(SB_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        free(n);
        /* dlerror() names the library: "libnvidia-ml.so.1: cannot open
         * shared object file: No such file or directory" */
        if (e && strstr(e, SB_NVML_LIBRARY))
            return sb_error_set(err, NULL, NULL, "NVML not available: %s", e);
        return sb_error_set(err, NULL, NULL, "NVML not available: cannot load %s: %s",
                            SB_NVML_LIBRARY, e ? e : "not found");
    }
    init = lookup(n->lib, "nvmlInit_v2");
    if (!init)
        init = lookup(n->lib, "nvmlInit");
    if (!init) {
        dlclose(n->lib);
        free(n);
        return sb_error_set(err, NULL, NULL,
                            "NVML not usable: %s has neither nvmlInit_v2 nor nvmlInit",
                            SB_NVML_LIBRARY);
    }
    LOAD(error_string, fn_error_string, "nvmlErrorString");
    r = init();
    if (r != NVML_SUCCESS) {
        nvml_reason(n, r, why, sizeof why);
        dlclose(n->lib);
        free(n);
        return sb_error_set(err, NULL, NULL, "NVML initialisation failed: %s", why);
    }
    LOAD(shutdown, fn_void, "nvmlShutdown");
    LOAD(handle_by_index, fn_handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
    if (!n->handle_by_index)
        LOAD(handle_by_index, fn_handle_by_index, "nvmlDeviceGetHandleByIndex");
    LOAD(name, fn_dev_string, "nvmlDeviceGetName");
    LOAD(board_part_number, fn_dev_string, "nvmlDeviceGetBoardPartNumber");
    LOAD(uuid, fn_dev_string, "nvmlDeviceGetUUID");
    LOAD(pci_info, fn_pci_info, "nvmlDeviceGetPciInfo_v3");
    LOAD(memory_info, fn_memory, "nvmlDeviceGetMemoryInfo");
    LOAD(compute_capability, fn_cc, "nvmlDeviceGetCudaComputeCapability");
    LOAD(clock_info, fn_clock, "nvmlDeviceGetClockInfo");
    LOAD(max_clock_info, fn_clock, "nvmlDeviceGetMaxClockInfo");
    LOAD(enforced_power_limit, fn_uint, "nvmlDeviceGetEnforcedPowerLimit");
    LOAD(ecc_mode, fn_two_modes, "nvmlDeviceGetEccMode");
    LOAD(mig_mode, fn_two_modes, "nvmlDeviceGetMigMode");
    LOAD(temperature, fn_temperature, "nvmlDeviceGetTemperature");
    LOAD(driver_version, fn_system_string, "nvmlSystemGetDriverVersion");
    LOAD(cuda_driver_version, fn_system_int, "nvmlSystemGetCudaDriverVersion_v2");
    if (!n->cuda_driver_version)
        LOAD(cuda_driver_version, fn_system_int, "nvmlSystemGetCudaDriverVersion");
    LOAD(clock_reasons, fn_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!n->clock_reasons)
        LOAD(clock_reasons, fn_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    *out = n;
    return SB_OK;
}

void sb_nvml_close(sb_nvml *n)
{
    if (!n)
        return;
    if (n->shutdown)
        n->shutdown();
    dlclose(n->lib);
    free(n);
}

int sb_nvml_driver_version(sb_nvml *n, char *buf, size_t size)
{
    char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
    if (!n || !n->driver_version || size == 0 ||
        n->driver_version(v, sizeof v) != NVML_SUCCESS || !v[0])
        return SB_ERR;
    v[sizeof v - 1] = '\0';
    snprintf(buf, size, "%s", v);
    return SB_OK;
}

int sb_nvml_cuda_driver_version(sb_nvml *n, char *buf, size_t size)
{
    int v = 0;
    if (!n || !n->cuda_driver_version || size == 0 ||
        n->cuda_driver_version(&v) != NVML_SUCCESS || v <= 0)
        return SB_ERR;
    /* 13000 -> "13.0", 12040 -> "12.4" */
    snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
    return SB_OK;
}

static int get_device(sb_nvml *n, int index, nvml_device *dev, sb_error *err)
{
    nvml_return r;
    char why[160];
    if (!n)
        return sb_error_set(err, NULL, NULL, "NVML is not open");
    if (index < 0)
        return sb_error_set(err, NULL, NULL, "device index %d is negative", index);
    if (!n->handle_by_index)
        return sb_error_set(err, NULL, NULL,
                            "NVML has no nvmlDeviceGetHandleByIndex_v2: cannot address devices");
    r = n->handle_by_index((unsigned int)index, dev);
    if (r != NVML_SUCCESS)
        return sb_error_set(err, NULL, NULL, "NVML: no device at index %d: %s", index,
                            nvml_reason(n, r, why, sizeof why));
    return SB_OK;
}

/* Sets key to value, or (value NULL) to fallback when the caller has not
 * already filled key. Steals value. */
static int put(json_t *obj, const char *key, json_t *value, json_t *fallback)
{
    if (value) {
        json_decref(fallback);
        return json_object_set_new(obj, key, value);
    }
    if (json_object_get(obj, key)) {
        json_decref(fallback);
        return 0;
    }
    return json_object_set_new(obj, key, fallback);
}

static json_t *device_string(sb_nvml *n, fn_dev_string fn, nvml_device d, size_t size)
{
    char buf[128];
    if (!fn || size > sizeof buf)
        return NULL;
    memset(buf, 0, sizeof buf);
    if (fn(d, buf, (unsigned int)size) != NVML_SUCCESS)
        return NULL;
    buf[size - 1] = '\0';
    (void)n;
    return buf[0] ? json_string(buf) : NULL;
}

static json_t *clock_value(fn_clock fn, nvml_device d, int type)
{
    unsigned int mhz = 0;
    if (!fn || fn(d, type, &mhz) != NVML_SUCCESS)
        return json_null();
    return json_integer((json_int_t)mhz);
}

int sb_nvml_device_identity(sb_nvml *n, int index, json_t *dev, sb_error *err)
{
    nvml_device d;
    int rc = 0;
    if (!dev || !json_is_object(dev))
        return sb_error_set(err, NULL, NULL, "device identity needs a JSON object");
    if (get_device(n, index, &d, err) != SB_OK)
        return SB_ERR;

    rc |= put(dev, "name", device_string(n, n->name, d, NVML_DEVICE_NAME_V2_BUFFER_SIZE),
              json_string("unknown"));
    rc |= put(dev, "board_part_number",
              device_string(n, n->board_part_number, d, NVML_DEVICE_PART_NUMBER_BUFFER_SIZE),
              json_string("unknown"));
    rc |= put(dev, "uuid", device_string(n, n->uuid, d, NVML_DEVICE_UUID_V2_BUFFER_SIZE),
              json_string("unknown"));
    {
        nvml_pci_info pci;
        json_t *v = NULL;
        char id[16];
        memset(&pci, 0, sizeof pci);
        if (n->pci_info && n->pci_info(d, &pci) == NVML_SUCCESS && pci.pci_device_id) {
            snprintf(id, sizeof id, "0x%08X", pci.pci_device_id);
            v = json_string(id);
        }
        rc |= put(dev, "pci_device_id", v, json_string("unknown"));
    }
    {
        nvml_memory mem;
        json_t *v = NULL;
        memset(&mem, 0, sizeof mem);
        if (n->memory_info && n->memory_info(d, &mem) == NVML_SUCCESS && mem.total > 0 &&
            mem.total <= (unsigned long long)LLONG_MAX)
            v = json_integer((json_int_t)mem.total);
        rc |= put(dev, "memory_bytes", v, json_null());
    }
    {
        int major = 0, minor = 0;
        json_t *v = NULL;
        char cc[32];
        if (n->compute_capability &&
            n->compute_capability(d, &major, &minor) == NVML_SUCCESS && major > 0 && minor >= 0) {
            snprintf(cc, sizeof cc, "%d.%d", major, minor);
            v = json_string(cc);
        }
        rc |= put(dev, "compute_capability", v, json_string("unknown"));
    }
    {
        json_t *clocks = json_pack("{s:o,s:o,s:o,s:o}",
                                   "sm_mhz", clock_value(n->clock_info, d, NVML_CLOCK_SM),
                                   "mem_mhz", clock_value(n->clock_info, d, NVML_CLOCK_MEM),
                                   "sm_max_mhz", clock_value(n->max_clock_info, d, NVML_CLOCK_SM),
                                   "mem_max_mhz", clock_value(n->max_clock_info, d, NVML_CLOCK_MEM));
        rc |= put(dev, "clocks", clocks, json_object());
    }
    {
        unsigned int mw = 0;
        json_t *v = NULL;
        if (n->enforced_power_limit && n->enforced_power_limit(d, &mw) == NVML_SUCCESS)
            v = json_real(mw / 1000.0);
        rc |= put(dev, "power_limit_w", v, json_null());
    }
    {
        unsigned int cur = 0, pending = 0;
        json_t *v = NULL;
        if (n->ecc_mode && n->ecc_mode(d, &cur, &pending) == NVML_SUCCESS)
            v = json_boolean(cur == NVML_FEATURE_ENABLED);
        rc |= put(dev, "ecc", v, json_null());
    }
    {
        unsigned int cur = 0, pending = 0;
        json_t *v = NULL;
        if (n->mig_mode && n->mig_mode(d, &cur, &pending) == NVML_SUCCESS)
            v = json_boolean(cur == NVML_DEVICE_MIG_ENABLE);
        rc |= put(dev, "mig", v, json_null());
    }
    if (rc != 0)
        return sb_error_set(err, NULL, NULL, "out of memory building the device identity");
    return SB_OK;
}

/* Bits of nvmlClocksEventReasons / nvmlClocksThrottleReasons. */
static const struct {
    unsigned long long bit;
    const char *name;
} reason_bits[] = {
    {0x1ULL, "gpu_idle"},
    {0x2ULL, "applications_clocks_setting"},
    {0x4ULL, "sw_power_cap"},
    {0x8ULL, "hw_slowdown"},
    {0x10ULL, "sync_boost"},
    {0x20ULL, "sw_thermal_slowdown"},
    {0x40ULL, "hw_thermal_slowdown"},
    {0x80ULL, "hw_power_brake_slowdown"},
    {0x100ULL, "display_clock_setting"},
};

json_t *sb_nvml_throttle_reason_names(unsigned long long mask)
{
    json_t *names = json_array();
    if (!names)
        return NULL;
    for (size_t i = 0; i < sizeof reason_bits / sizeof reason_bits[0]; i++)
        if (mask & reason_bits[i].bit) {
            json_array_append_new(names, json_string(reason_bits[i].name));
            mask &= ~reason_bits[i].bit;
        }
    for (int b = 0; b < 64; b++)
        if (mask & (1ULL << b)) {
            char name[40];
            snprintf(name, sizeof name, "unknown_0x%llx", 1ULL << b);
            json_array_append_new(names, json_string(name));
        }
    return names;
}

int sb_nvml_clock_state(sb_nvml *n, int index, json_t **out, sb_error *err)
{
    nvml_device d;
    json_t *cs;
    unsigned long long mask = 0;
    unsigned int temp = 0;

    *out = NULL;
    if (get_device(n, index, &d, err) != SB_OK)
        return SB_ERR;
    cs = json_pack("{s:o,s:o}", "sm_mhz", clock_value(n->clock_info, d, NVML_CLOCK_SM),
                   "mem_mhz", clock_value(n->clock_info, d, NVML_CLOCK_MEM));
    if (!cs)
        return sb_error_set(err, NULL, NULL, "out of memory building the clock state");
    if (n->temperature && n->temperature(d, NVML_TEMPERATURE_GPU, &temp) == NVML_SUCCESS)
        json_object_set_new(cs, "temperature_c", json_integer((json_int_t)temp));
    else
        json_object_set_new(cs, "temperature_c", json_null());
    /* Left out (not empty) when unreadable: empty means "none active". */
    if (n->clock_reasons && n->clock_reasons(d, &mask) == NVML_SUCCESS) {
        json_t *names = sb_nvml_throttle_reason_names(mask);
        if (!names || json_object_set_new(cs, "throttle_reasons", names) != 0) {
            json_decref(cs);
            return sb_error_set(err, NULL, NULL, "out of memory building the clock state");
        }
    }
    *out = cs;
    return SB_OK;
}
