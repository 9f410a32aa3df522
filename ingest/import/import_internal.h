/* import_internal.h - what the converters (ingest/import_*.c) share.
 * Not for other callers: use import.h.
 */
#ifndef SOLBOOK_INGEST_IMPORT_INTERNAL_H
#define SOLBOOK_INGEST_IMPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "import.h"
#include "result_doc.h"
#include "sku.h"

/* The correctness reference recorded on every imported run (the value
 * docs/SCHEMAS.md defines): the verdict is the source tool's; solbook did
 * not compare the outputs itself (docs/IMPORT.md). */
#define SB_IMPORT_REFERENCE "imported"

/* The most runs one imported file may make where its runs are not bounded
 * by its size: an asv benchmark's combinations of params (not listed in
 * the file) and a Triton CSV's figures (two bytes each). A real file of
 * either makes far fewer; past it the file is refused before a run is
 * made. */
#define SB_IMPORT_FILE_RUNS_MAX 1000000u

/* The "format" of the files bench/scripts/torch_benchmark_dump.py writes. */
#define SB_IMPORT_TORCH_FORMAT "solbook.import.torch-benchmark.v1"

typedef struct sb_import_op_name {
    char format[32];
    char name[128];
    char op[64];
    char default_dtype[16];
} sb_import_op_name;

typedef struct sb_import_ctx sb_import_ctx;
struct sb_import_ctx {
    const char *path;         /* as given */
    const char *base;         /* base name, for source.file */
    const char *format;
    sb_import_options opts;
    sb_sku_table *skus;
    sb_import_op_name *ops;
    size_t n_ops;
    sb_import_stats *st;      /* never NULL inside a converter */
    /* Set by a converter whose format records no time (nvbench): the runs
     * carry the file's modification time, and storing gives a run that
     * only differs from a stored one of the same file and row in that time
     * the stored time instead, so a touched or copied file is recognised. */
    int time_from_mtime;
    json_t *docs;             /* array the documents go to, when no sink */
    /* Where each document goes instead, as it is made (storage); borrowed. */
    int (*sink)(sb_import_ctx *ctx, json_t *doc, sb_error *err);
    void *sink_data;
};

/* Converters: hand each document to sb_import_emit; on error fill err. */
int sb_import_liger_csv(sb_import_ctx *ctx, const char *buf, size_t len, sb_error *err);
int sb_import_nvbench_json(sb_import_ctx *ctx, json_t *root, sb_error *err);
int sb_import_gbench_json(sb_import_ctx *ctx, json_t *root, sb_error *err);
int sb_import_pytest_benchmark_json(sb_import_ctx *ctx, json_t *root, sb_error *err);
int sb_import_hyperfine_json(sb_import_ctx *ctx, json_t *root, sb_error *err);
int sb_import_asv_json(sb_import_ctx *ctx, json_t *root, sb_error *err);
int sb_import_torch_benchmark_json(sb_import_ctx *ctx, json_t *root, sb_error *err);
int sb_import_triton_perf_csv(sb_import_ctx *ctx, const char *buf, size_t len, sb_error *err);

/* Device object for a host CPU (kind, arch and sku "cpu"): name NULL gives
 * "unknown"; ncpu -1 when unknown (it goes to sm_count). */
json_t *sb_import_cpu_device(const char *name, long long ncpu);

/* timing object of one repeat of samples in seconds: each becomes
 * seconds x 1e3 ms in timing.samples, with the statistics computed from
 * them; *median_ms receives the median. NULL when n is 0. */
json_t *sb_import_timing_seconds(const double *seconds, size_t n, double *median_ms);

/* Case parameters from a tool's {name: value} object: integers >= 0 go to
 * shape (key made by sb_import_key), other scalars to params as they are,
 * arrays and objects to params as compact JSON text. *dtype is set to the
 * first string value that names a dtype, when still NULL. */
void sb_import_case_params(json_t *given, json_t *shape, json_t *params, const char **dtype);

/* The file's modification time as RFC 3339 UTC, for formats that record
 * none (sets ctx->time_from_mtime; docs/IMPORT.md). */
int sb_import_file_time(sb_import_ctx *ctx, char *out, size_t size, sb_error *err);

/* Canonical dtype ("fp32", "bf16", ...) for names tools use: torch.float32,
 * float, F32, __half, __nv_bfloat16, double, int8_t, ...; NULL when not one. */
const char *sb_import_dtype(const char *text);

/* Id for config.op / config.provider / config.suite: lower case, runs of
 * characters outside [a-z0-9._+-] become '-', trimmed. Empty when nothing
 * is left. */
void sb_import_id(const char *text, char *out, size_t size);

/* Shape/param key: characters outside [A-Za-z0-9_] become '_', a leading
 * digit gets a '_' in front. Empty when text is empty. */
void sb_import_key(const char *text, char *out, size_t size);

/* Reads data/import_op_names.csv into ctx (once a file, before its
 * converter runs). */
int sb_import_load_op_names(sb_import_ctx *ctx, sb_error *err);

/* Looks up (format, tool name) in data/import_op_names.csv; returns the row
 * or NULL. */
const sb_import_op_name *sb_import_op_lookup(const sb_import_ctx *ctx, const char *tool_name);

/* config.op for a tool's name: the table's op where data/import_op_names.csv
 * has a row for it, else sb_import_id of the name (empty when nothing is
 * left). Returns the row, or NULL. */
const sb_import_op_name *sb_import_op_named(const sb_import_ctx *ctx, const char *tool_name, char *op,
                                            size_t size);

/* Device object (provenance.device) for a GPU by name; memory_bytes 0 when
 * unknown, sm_count/l2 -1 when unknown, cc NULL when unknown. */
json_t *sb_import_gpu_device(const sb_import_ctx *ctx, const char *name, long long memory_bytes,
                             long long sm_count, long long l2_bytes, const char *cc);

/* Provenance with git unknown, host/software fields as given (NULL:
 * "unknown"). Steals device. */
json_t *sb_import_provenance(const char *tool_name, const char *tool_version,
                             const char *hostname, json_t *device,
                             const char *started_at, const char *finished_at);

/* Protocol of an imported run: timer "imported", l2 as given, counts null. */
json_t *sb_import_protocol(const char *l2);

/* Metrics object with nothing derived: every number null, bound unknown.
 * When bytes >= 0 and median_ms > 0, bytes and gbps are filled. */
json_t *sb_import_metrics(double bytes, double median_ms);

/* How many of s's first max bytes to print ("%.*s") so that a cut ends on
 * a whole character: a note holding a label cut inside a UTF-8 sequence is
 * no JSON text and would vanish from its run. s is UTF-8 (the readers
 * refuse other bytes). */
int sb_import_text_cut(const char *s, size_t max);

/* Builds the document and gives it to ctx->sink (or appends it to
 * ctx->docs); steals every json_t.
 * status "passed" needs timing; "skipped" needs reason and no timing. */
int sb_import_emit(sb_import_ctx *ctx, const char *status, const char *reason,
                   json_t *config, json_t *protocol, json_t *timing,
                   json_t *metrics, json_t *memory, json_t *provenance,
                   const char *notes, long long row, sb_error *err);

/* A count (bytes, items) recovered as a rate times the time it was taken
 * over: the nearest integer when v is within a millionth of it (the tool
 * divided an integer total by that time), else v. */
double sb_import_count(double v);

/* Reads a file another file names (nvbench's sample files, asv's machine
 * file): name is taken relative to the folder of ctx->path and must stay
 * inside it: an absolute name, a ".." part, a symbolic link on the way or
 * at the end, a hard link (a file with more than one name, which may be
 * any file elsewhere), or something other than a regular file is refused (SB_ERR,
 * err naming `where` and why). A file that is not there is SB_OK with
 * *data NULL. At most max_bytes are read; a larger file is refused.
 * *data is malloc'd and NUL-terminated; *len its size. */
int sb_import_read_beside(const sb_import_ctx *ctx, const char *name, const char *where, size_t max_bytes,
                          char **data, size_t *len, sb_error *err);

/* As sb_import_read_beside, from the parent of the document's folder:
 * for a file a tool keeps one level up at a fixed name (asv's
 * results/benchmarks.json above results/MACHINE/), never a name a
 * document gives. */
int sb_import_read_above(const sb_import_ctx *ctx, const char *name, const char *where, size_t max_bytes,
                         char **data, size_t *len, sb_error *err);

/* Parses a decimal number / integer that must fill the whole text. */
int sb_import_parse_double(const char *text, double *out);
int sb_import_parse_ll(const char *text, long long *out);

/* "2024-09-03 15:31:39" or RFC 3339 with a zone ("...+01:00", "Z") to
 * RFC 3339 UTC ("2024-09-03T15:31:39Z"); times without a zone are taken
 * as UTC. SB_ERR when not a date. */
int sb_import_time_utc(const char *text, char *out, size_t size);

#endif
