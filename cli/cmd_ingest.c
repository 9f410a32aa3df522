/* cmd_ingest.c - `solbook ingest`: validate result files and store them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "error.h"
#include "gather.h"
#include "home.h"
#include "import.h"
#include "ingest.h"
#include "ingest_verdicts.h"
#include "plausible.h"
#include "term.h"

static const char *const ingest_usage[] = {
    "solbook ingest [--db PATH] [--strict] [--quiet] FILE|DIR...",
    "solbook ingest [--db PATH] --ncu FILE.csv --run ID [FILE|DIR...]",
    "solbook ingest [--db PATH] --nsys FILE.csv --run ID [FILE|DIR...]",
    "solbook ingest [--db PATH] --format FORMAT [--dtype D] [--provider P] [--suite S]",
    "               [--commit SHA [--branch B]] FILE...",
    "solbook ingest [--db PATH] --format triton-perf-csv --y-unit ms --y-stat median",
    "               [--x-cols N] [--dtype D] FILE.csv...",
    "solbook ingest [--db PATH] [--strict] --fleet DIR...",
    "",
    "Validates solbook JSON files (result, training, calibration; the schema is",
    "chosen by each file's \"schema\" field) and stores them in the database.",
    "Directories are walked recursively in sorted order for *.json files and",
    "archives; an Nsight Compute CSV named NAME.ncu.csv, and an Nsight Systems",
    "kernel summary named NAME.nsys.csv, next to NAME.json are attached to that",
    "run. Archives are read where they lie: .tar, .tar.gz and .tgz (their",
    "NAME.json members, with NAME.ncu.csv and NAME.nsys.csv members beside them), and",
    ".jsonl, .jsonl.gz (one document a line); a member is named ARCHIVE:MEMBER.",
    "A tar archive's members are all held in memory before the first is stored:",
    "one member over --max-member-mb inflated, or members together over",
    "--max-held-mb (counted as the memory they take: bytes, names, records),",
    "refuses the archive in one line naming ARCHIVE:MEMBER. Directories'",
    "symbolic links that lead out of the folder given are not followed; a",
    "sidecar that is a link (symbolic or hard) refuses its document.",
    "A result document (a file, a NAME.json member, a JSON Lines line) over",
    "--max-doc-mb is refused unparsed, in one line naming it (a member or line",
    "with its archive): parsed, a document takes up to about 21 times its size,",
    "and one whose tree would take more than 384 MiB is refused unparsed too.",
    "Of a file, at most one byte past the bound is read, even one that grows",
    "after its size was looked at. A sidecar over --max-sidecar-mb is refused",
    "with its document, in one line naming it; one within it is stored as it",
    "is read, so its rows cost no memory. A sidecar that would store more rows",
    "than --max-sidecar-rows, or take the rows of every sidecar of the ingest",
    "past --max-sidecar-rows-total, is refused with its document the same way,",
    "none of its rows kept.",
    "Each file or member is stored whole or not at all; identical content is",
    "stored once and reported as a duplicate.",
    "Each result run stored is held against its card's ceilings (docs/REPORTS.md,",
    "\"Plausibility\") and the verdict stored: a line names each implausible one",
    "(file, case, run, and the reason with its figure and ceiling), and a count",
    "follows, before the summary. A calibration stored judges the runs of its SKU",
    "again, and the number whose verdict changed is printed.",
    "",
    "Exit status: 0 all files stored or already there (implausible runs too),",
    "1 some file refused, 2 usage or database error.",
    NULL,
};

typedef struct ctx {
    int quiet;
} ctx;

static void on_error(void *c, const sb_error *e)
{
    (void)c;
    sb_error_print(e, stderr);
}

/* --format: each path is one file of another tool's format (auto: told by
 * its content; a solbook file found so goes through the ordinary ingest). */
static void import_paths(sb_ingest *ing, char **paths, int n, const char *format,
                         const sb_import_options *io, sb_ingest_walk *walk, sb_ingest_stats *stats)
{
    const ctx *x = walk->ctx;
    for (int i = 0; i < n; i++) {
        sb_error err;
        sb_error_clear(&err);
        const char *f = format;
        if (strcmp(format, "auto") == 0 && sb_import_detect(paths[i], &f, &err) != SB_OK) {
            stats->files_seen++;
            stats->refused++;
            sb_error_print(&err, stderr);
            continue;
        }
        if (strcmp(f, "solbook") == 0) {
            sb_ingest_stats one = {0};
            sb_ingest_paths(ing, &paths[i], 1, walk, &one);
            stats->files_seen += one.files_seen;
            stats->stored += one.stored;
            stats->duplicates += one.duplicates;
            stats->refused += one.refused;
            stats->ncu_attached += one.ncu_attached;
            stats->nsys_attached += one.nsys_attached;
            continue;
        }
        stats->files_seen++;
        sb_import_stats ist = {0};
        if (sb_import_file_opts(ing, paths[i], f, io, &ist, &err) != SB_OK) {
            stats->refused++;
            sb_error_print(&err, stderr);
            continue;
        }
        stats->stored += ist.stored;
        stats->duplicates += ist.duplicates;
        if (!x->quiet)
            sb_term_line(stdout, "import: %s: %s, %ld rows, %ld runs (%ld stored, %ld already there, %ld skipped)",
                         paths[i], f, ist.rows, ist.runs, ist.stored, ist.duplicates, ist.skipped_runs);
    }
}

static void on_file(void *c, const char *path, long long run_id, int duplicate, long ncu_rows)
{
    const ctx *x = c;
    if (x->quiet)
        return;
    if (duplicate)
        sb_term_line(stdout, "duplicate: %s: identical content already stored as run %lld", path, run_id);
    else if (ncu_rows > 0)
        sb_term_line(stdout, "ncu: %s: %ld metric values attached to run %lld", path, ncu_rows, run_id);
}

static void on_summary(void *c, const char *path, long long run_id, long kernels)
{
    const ctx *x = c;
    if (!x->quiet)
        sb_term_line(stdout, "nsys: %s: %ld kernels attached to run %lld", path, kernels, run_id);
}

/* A passing run stored implausible (report/plausible.h): where it came
 * from, its case, and the reason, which says the figure and the ceiling. */
static void on_implausible(void *c, const sb_result *r, const sb_plaus_verdict *v)
{
    (void)c;
    sb_term_line(stdout, "implausible: %s: %s %s %s %s %s on %s, run %lld: %s", r->source_path, r->op, r->mode,
                 r->dtype, r->shape_key, r->provider, r->sku, r->run_id, v->reason);
}

/* Judges the runs stored without a verdict, and again those a new
 * calibration or a changed table touches (sb_plaus_store_verdicts,
 * ingest_verdicts.h), and
 * says what it found. */
static int store_verdicts(sb_ingest *ing)
{
    sb_error err;
    sb_error_clear(&err);
    sb_plaus_stored st;
    if (sb_plaus_store_verdicts(sb_ingest_db(ing), on_implausible, NULL, &st, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return SB_ERR;
    }
    printf("plausibility: %zu new run%s judged, %zu implausible (stored, left out of every headline)\n",
           st.new_runs, st.new_runs == 1 ? "" : "s", st.new_implausible);
    if (st.rejudged)
        printf("plausibility: %zu run%s judged again (%s), %zu changed verdict\n", st.rejudged,
               st.rejudged == 1 ? "" : "s", st.why, st.changed);
    return SB_OK;
}

int cmd_ingest(int argc, char **argv)
{
    const char *db_path = sb_default_db_path(), *ncu = NULL, *nsys = NULL, *run = NULL, *format = NULL;
    sb_import_options io = {0};
    ctx x = {0};
    int strict = 0, fleet = 0, exit_status;
    int member_mb = (int)(SB_INGEST_MEMBER_BYTES >> 20), held_mb = (int)(SB_INGEST_HELD_BYTES >> 20);
    int doc_mb = (int)(SB_INGEST_DOC_BYTES >> 20);
    int sidecar_mb = (int)(SB_INGEST_SIDECAR_BYTES >> 20), sidecar_rows = (int)SB_INGEST_SIDECAR_ROWS;
    int sidecar_rows_total = (int)SB_INGEST_SIDECAR_ROWS_TOTAL;
    const sb_option options[] = {
        SB_OPT_STRING('d', "db", &db_path, "path",
                      "database (default: $SOLBOOK_DB, else ./solbook.db); created if missing"),
        SB_OPT_BOOL('s', "strict", &strict,
                    "one transaction for all files: nothing is stored if any is refused"),
        SB_OPT_BOOL(0, "fleet", &fleet,
                    "DIRs are fleet output trees (docs/FLEET.md): only one final result per\n"
                    "case, provider and arch is stored; duplicates and partial files are\n"
                    "named by path and refused"),
        SB_OPT_STRING('n', "ncu", &ncu, "FILE.csv",
                      "attach 'ncu --csv --page raw' output to the run given by --run"),
        SB_OPT_STRING(0, "nsys", &nsys, "FILE.csv",
                      "attach 'nsys stats --report cuda_gpu_kern_sum --format csv' output\n"
                      "(per-kernel GPU time, launches and share) to the run given by --run"),
        SB_OPT_STRING('r', "run", &run, "id", "run id (see 'solbook runs') for --ncu or --nsys"),
        SB_OPT_STRING(0, "format", &format, "format",
                      "import other tools' results (docs/IMPORT.md): liger-csv,\n"
                      "nvbench-json, gbench-json, pytest-benchmark-json, hyperfine-json,\n"
                      "asv-json, torch-benchmark-json, triton-perf-csv, or auto (told by\n"
                      "content; triton-perf-csv never is)"),
        SB_OPT_STRING(0, "dtype", &io.dtype, "dtype",
                      "dtype of imported runs whose file names none (fp32, bf16...)"),
        SB_OPT_STRING(0, "provider", &io.provider, "name",
                      "provider of imported runs (default: the tool's name)"),
        SB_OPT_STRING(0, "suite", &io.suite, "name",
                      "suite of imported runs (default: liger-bench, or the tool's name)"),
        SB_OPT_STRING(0, "commit", &io.commit, "sha",
                      "the commit imported runs were measured at (40 hex digits)"),
        SB_OPT_STRING(0, "branch", &io.branch, "branch", "the branch that commit was on (with --commit)"),
        SB_OPT_STRING(0, "y-unit", &io.y_unit, "unit",
                      "triton-perf-csv: the unit of its figures (ms, us, s, ns)"),
        SB_OPT_STRING(0, "y-stat", &io.y_stat, "stat",
                      "triton-perf-csv: the statistic its figures are (median, mean)"),
        SB_OPT_INT(0, "x-cols", &io.x_cols, "N", 1, 64,
                   "triton-perf-csv: the number of x columns before the providers' (default 1)"),
        SB_OPT_INT(0, "max-member-mb", &member_mb, "MiB", 1, 4096,
                   "refuse an archive with a member larger than this inflated (default 256)"),
        SB_OPT_INT(0, "max-held-mb", &held_mb, "MiB", 1, 65536,
                   "refuse a tar archive whose members together pass this inflated,\n"
                   "names and records included, as the memory they take (they are all\n"
                   "held before any is stored; default 128)"),
        SB_OPT_INT(0, "max-doc-mb", &doc_mb, "MiB", 1, 256,
                   "refuse a result document (file, archive member or JSON Lines line)\n"
                   "larger than this, before it is parsed (default 1; the largest\n"
                   "result in examples/ is 16 KB)"),
        SB_OPT_INT(0, "max-sidecar-mb", &sidecar_mb, "MiB", 1, 4096,
                   "refuse an Nsight Compute or Nsight Systems sidecar (NAME.ncu.csv,\n"
                   "NAME.nsys.csv, --ncu, --nsys) larger than this, with its document\n"
                   "(default 32; the largest ncu CSV in examples/ is 112 KB)"),
        SB_OPT_INT(0, "max-sidecar-rows", &sidecar_rows, "N", 1, 1000000000,
                   "refuse a sidecar that would store more rows than this (an ncu CSV's\n"
                   "metric values, an nsys summary's kernels), with its document, its\n"
                   "rows taken back (default 1000000; the largest ncu CSV in examples/\n"
                   "holds 7510)"),
        SB_OPT_INT(0, "max-sidecar-rows-total", &sidecar_rows_total, "N", 1, 1000000000,
                   "refuse a sidecar whose rows would take those every sidecar of this\n"
                   "ingest stores past this, with its document, its rows taken back\n"
                   "(default 2000000; the 32 ncu profiles of examples/ hold 36300)"),
        SB_OPT_BOOL('q', "quiet", &x.quiet, "do not list duplicates and attached profiles"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "ingest", options, ingest_usage,
                                SB_PARSE_STOP_AT_NON_OPTION, &exit_status);
    if (argc < 0)
        return exit_status;
    if (format && strcmp(format, "auto") != 0 && !sb_import_format_known(format)) {
        fprintf(stderr, "solbook ingest: --format %s: not liger-csv, nvbench-json, gbench-json, pytest-benchmark-json, hyperfine-json, asv-json, torch-benchmark-json, triton-perf-csv or auto\n", format);
        return 2;
    }
    if ((io.y_unit || io.y_stat || io.x_cols) && !(format && strcmp(format, "triton-perf-csv") == 0)) {
        fprintf(stderr, "solbook ingest: --y-unit, --y-stat and --x-cols apply to --format triton-perf-csv\n");
        return 2;
    }
    if ((io.dtype || io.provider || io.suite || io.commit || io.branch) && !format) {
        fprintf(stderr, "solbook ingest: --dtype, --provider, --suite, --commit and --branch apply to "
                        "imports (solbook files carry their own): give --format\n");
        return 2;
    }
    if (io.commit && (strlen(io.commit) != 40 || strspn(io.commit, "0123456789abcdef") != 40)) {
        fprintf(stderr, "solbook ingest: --commit %s: expected the full SHA, 40 lowercase hex digits\n",
                io.commit);
        return 2;
    }
    if (io.branch && (!io.commit || !*io.branch)) {
        fprintf(stderr, "solbook ingest: --branch names the branch of --commit: give both\n");
        return 2;
    }
    if (fleet && (format || ncu || nsys)) {
        fprintf(stderr, "solbook ingest: --fleet takes directories of solbook files: not with --format, --ncu or --nsys\n");
        return 2;
    }
    if ((ncu != NULL || nsys != NULL) != (run != NULL)) {
        fprintf(stderr, "solbook ingest: --run goes with --ncu or --nsys, and they with it\n");
        return 2;
    }
    long long run_id = 0;
    if (run) {
        char *end;
        run_id = strtoll(run, &end, 10);
        if (!*run || *end || run_id <= 0) {
            fprintf(stderr, "solbook ingest: --run %s: not a run id (a positive integer)\n", run);
            return 2;
        }
    }
    if (argc == 0 && !ncu && !nsys) {
        fprintf(stderr, "solbook ingest: no files or directories given; see 'solbook ingest --help'\n");
        return 2;
    }

    sb_error err;
    sb_error_clear(&err);
    char schemas[4096];
    sb_ingest *ing;
    /* A run from another folder must not start an empty database unseen. */
    int implicit_new = db_path == sb_default_db_path() && !getenv("SOLBOOK_DB") && access(db_path, F_OK) != 0;
    /* Solbook files are read (archives inflated) while the database opens. */
    sb_ingest_limits limits = {(size_t)member_mb << 20, (size_t)held_mb << 20, (size_t)doc_mb << 20,
                               (size_t)sidecar_mb << 20, (size_t)sidecar_rows, fleet, NULL};
    sb_ingest_reading *reading = NULL;
    if (argc > 0 && !format && !fleet)
        reading = sb_ingest_read_ahead(argv, (size_t)argc, &limits);
    if (sb_data_path(schemas, sizeof schemas, "schemas", &err) != SB_OK ||
        sb_ingest_open(db_path, schemas, &ing, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_ingest_reading_free(reading);
        return 2;
    }
    sb_ingest_set_sidecar_rows_total(ing, (size_t)sidecar_rows_total);
    if (implicit_new) {
        char cwd[4096];
        fprintf(stderr, "solbook ingest: no --db and no $SOLBOOK_DB: created a new database %s in %s\n", db_path,
                getcwd(cwd, sizeof cwd) ? cwd : "the current directory");
    }
    sb_gather fleet_set = {0};
    char **fleet_paths = NULL, **fleet_insides = NULL;
    size_t fleet_n = 0;
    if (fleet) { /* the gathering check (fleet/gather.h) picks the files */
        char *text = NULL;
        if (sb_gather_scan_dirs(argv, (size_t)argc, &fleet_set, &err) != SB_OK ||
            !(fleet_paths = sb_gather_accepted_paths(&fleet_set, &fleet_n)) ||
            !(fleet_insides = sb_gather_accepted_folders(&fleet_set, &fleet_n)) ||
            !(text = sb_gather_describe(&fleet_set))) {
            if (!err.msg[0])
                sb_error_set(&err, NULL, NULL, "out of memory");
            sb_error_print(&err, stderr);
            sb_gather_free(&fleet_set);
            free(fleet_paths);
            free(fleet_insides);
            sb_ingest_close(ing);
            return 2;
        }
        fputs(text, stderr);
        free(text);
    }
    limits.insides = fleet_insides;
    sb_ingest_walk walk = {.strict = strict, .on_error = on_error, .on_note = on_error, .on_file = on_file,
                           .on_summary = on_summary, .ctx = &x,
                           .limits = limits};
    sb_ingest_stats stats = {0};
    int refused = 0;
    long ncu_rows = 0, nsys_rows = 0;
    if (strict && sb_ingest_begin(ing, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        sb_ingest_reading_free(reading);
        sb_ingest_close(ing);
        return 2;
    }
    walk.strict = 0; /* the batch, if any, is ours: it also covers --ncu */
    io.in_batch = strict;
    if (argc > 0 && format)
        import_paths(ing, argv, argc, format, &io, &walk, &stats);
    else if (fleet) {
        sb_ingest_paths(ing, fleet_paths, fleet_n, &walk, &stats);
        stats.files_seen += (long)sb_gather_problems(&fleet_set);
        stats.refused += (long)sb_gather_problems(&fleet_set);
    } else if (reading)
        sb_ingest_paths_read(ing, reading, &walk, &stats);
    else if (argc > 0)
        sb_ingest_paths(ing, argv, (size_t)argc, &walk, &stats);
    if (ncu) {
        stats.files_seen++;
        if (sb_ingest_attach_ncu(ing, run_id, ncu, limits.sidecar_bytes, limits.sidecar_rows, &ncu_rows, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            stats.refused++;
        } else {
            stats.ncu_attached++;
            on_file(&x, ncu, run_id, 0, ncu_rows);
        }
    }
    if (nsys) {
        stats.files_seen++;
        if (sb_ingest_attach_nsys(ing, run_id, nsys, limits.sidecar_bytes, limits.sidecar_rows, &nsys_rows, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            stats.refused++;
        } else {
            stats.nsys_attached++;
            on_summary(&x, nsys, run_id, nsys_rows);
        }
    }
    refused = stats.refused > 0;
    int status = refused ? 1 : 0;
    if (strict) {
        if (refused) {
            sb_ingest_rollback(ing);
            stats.stored = 0;
            stats.ncu_attached = 0;
            stats.nsys_attached = 0;
            fprintf(stderr, "solbook: --strict: %ld file%s refused, nothing stored\n", stats.refused,
                    stats.refused == 1 ? "" : "s");
        } else if (sb_ingest_commit(ing, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            stats.stored = 0;
            stats.ncu_attached = 0;
            stats.nsys_attached = 0;
            status = 2;
        }
    }
    /* the verdicts first: the summary stays the last line */
    if (store_verdicts(ing) != SB_OK)
        status = 2;
    /* the database path is the caller's text: terminal-encoded, as in
     * every message */
    sb_buf sum = SB_BUF_INIT;
    sb_buf_printf(&sum, "ingest: %ld files, %ld stored, %ld duplicates, %ld refused (db %s)", stats.files_seen,
                  stats.stored, stats.duplicates, stats.refused, db_path);
    if (stats.ncu_attached)
        sb_buf_printf(&sum, "; %ld ncu profile%s attached", stats.ncu_attached, stats.ncu_attached == 1 ? "" : "s");
    if (stats.nsys_attached)
        sb_buf_printf(&sum, "; %ld nsys kernel summar%s attached", stats.nsys_attached,
                      stats.nsys_attached == 1 ? "y" : "ies");
    sb_term_line(stdout, "%s", sb_buf_str(&sum));
    sb_buf_free(&sum);
    sb_ingest_close(ing);
    sb_gather_free(&fleet_set);
    free(fleet_paths);
    free(fleet_insides);
    return status;
}
