/* provenance.h - the provenance block of every solbook file
 * (schemas: definitions/provenance), collected from this machine.
 *
 * Plain C: git, uname, /proc/cpuinfo, and NVML loaded with dlopen at run
 * time (collect/nvml.h), so it builds and runs where no GPU or nvml.h is.
 * What cannot be learnt is recorded as "unknown" or null, never guessed.
 */
#ifndef SOLBOOK_COLLECT_PROVENANCE_H
#define SOLBOOK_COLLECT_PROVENANCE_H

#include <jansson.h>

#include "error.h"
#include "nvml.h"

typedef struct sb_provenance_opts {
    const char *tool_name;     /* "solbench", "solbook" */
    const char *tool_version;
    const char *git_dir;       /* tree whose SHA is recorded; NULL = current directory */
    int device_is_cpu;         /* 1: the CPU path (device.kind = "cpu", arch "cpu") */
    int device_index;          /* CUDA ordinal / NVML index for GPU runs */
    const char *skus_csv;      /* path of data/skus.csv; NULL = SOLBOOK_HOME's */
} sb_provenance_opts;

/* Builds a provenance object with started_at = now and finished_at = now,
 * and a scheduler object when a Slurm job (SLURM_JOB_ID, SLURM_ARRAY_*) or
 * an Indexed Job rendered by solbook submit (SOLBOOK_JOB_NAME,
 * JOB_COMPLETION_INDEX) started the process.
 * GPU identity comes from NVML; when NVML is missing for a GPU run the
 * device fields the caller does not fill stay "unknown". */
int sb_provenance_collect(const sb_provenance_opts *opts, json_t **out, sb_error *err);

/* The same with an NVML handle the caller already opened (it stays open),
 * or nvml NULL for "no NVML": a GPU run then has device fields "unknown"
 * / null and software.driver_version "unknown". Lets a caller report that
 * NVML is missing, and reuse the handle for sb_nvml_clock_state. */
int sb_provenance_collect_nvml(const sb_provenance_opts *opts, sb_nvml *nvml,
                               json_t **out, sb_error *err);

/* The git object of the schema for the tree at dir (NULL: current
 * directory): {"sha": 40 hex or "unknown", "dirty": bool or null, and
 * "describe" when `git describe --always --dirty` works}. git runs without
 * a shell, with GIT_OPTIONAL_LOCKS=0 so it never takes the index lock of a
 * tree others are working in. NULL only when out of memory. */
json_t *sb_provenance_git(const char *dir);

/* The SKU id of a CPU run: "cpu-" + slug of the model without vendor
 * noise ("(R)", "(TM)", "CPU", "Processor", "N-Core", and the "@ 2.10GHz"
 * clock onwards): "AMD EPYC 9454 48-Core Processor" -> "cpu-amd-epyc-9454";
 * "cpu-unknown" when nothing is left. */
void sb_provenance_cpu_sku(const char *model, char *out, size_t size);

/* Sets finished_at to now (call when the run ends). */
int sb_provenance_finish(json_t *prov, sb_error *err);

/* Now as RFC 3339 UTC with milliseconds: 2026-11-21T23:59:01.123Z. */
void sb_time_now_rfc3339(char *buf, size_t size);

#endif
