/* cmd_report.c - `solbook report geomean|weekly|note|table|evidence|standing|regressions|roofline|training|plausibility`. */
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "encode.h"
#include "error.h"
#include "claims.h"
#include "gate.h"
#include "geomean.h"
#include "geomean_render.h"
#include "json_file.h"
#include "sessions.h"
#include "home.h"
#include "casetable.h"
#include "evidence.h"
#include "evidence_render.h"
#include "isoweek.h"
#include "note.h"
#include "rg_stored_db.h"
#include "term.h"
#include "plausible.h"
#include "plausible_render.h"
#include "plots.h"
#include "regress.h"
#include "regress_render.h"
#include "repro.h"
#include "results.h"
#include "results_query.h"
#include "run_details_read.h"
#include "site_plaus.h"
#include "site_rg.h"
#include "site_weekly_read.h"
#include "sku.h"
#include "snapshot_read.h"
#include "standing_render.h"
#include "strbuf.h"
#include "suggest.h"
#include "training_render.h"
#include "weekly_render.h"

static const char *const report_usage[] = {
    "solbook report geomean [--db FILE] [--baseline PROVIDER] [--suite S] [--op O]",
    "                       [--format md|csv|json] [--out FILE]",
    "solbook report weekly --week YYYY-Www [--db FILE] [--out DIR] [--baseline PROVIDER]",
    "                      [--alpha A] [--min-effect E] [--repo-url URL]",
    "solbook report note [--db FILE] [--arch a100,h100,h200] [--out FILE]",
    "solbook report table --op O --sku SKU [--baseline PROVIDER] [--provider P]",
    "                     [--suite S] [--db FILE] [--out FILE]",
    "solbook report evidence [--db FILE] [--out FILE]",
    "solbook report standing [--db FILE] [--out FILE.md]",
    "solbook report regressions [--db FILE] [--suite S] [--op O] [--alpha 0.01]",
    "                           [--min-effect 0.03] [--history] [--format md|json]",
    "                           [--repo-url URL] [--out FILE]",
    "solbook report roofline --sku SKU [--db FILE] [--suite S] [--op O] [--out FILE]",
    "solbook report training [--db FILE] [--out FILE.md]",
    "solbook report plausibility [--db FILE] [--suite S] [--op O] [--out FILE.md]",
    "",
    "geomean      speedup of every provider over a baseline, per op x mode x dtype x SKU,",
    "             and a cross-arch table (newest run per case; failed cases counted)",
    "weekly       DIR/YYYY-Www.md (under 64 KB), DIR/YYYY-Www-appendix.md, .html and SVG",
    "             plots for runs finished in that ISO week",
    "note         the ten-line result note about the GEMM spec and the completion gate",
    "table        per-shape times of a provider (default fused) and a baseline on one SKU,",
    "             the geomean at the foot",
    "evidence     EVIDENCE.md: the targets checked against the stored runs",
    "standing     the generated tables of KERNELS.md: --out rewrites the blocks between a",
    "             copy's '<!-- solbook report standing: NAME -->' lines in place; without",
    "             --out every block is printed with its marker lines",
    "regressions  each series (case, provider, SKU, protocol, environment) at its newest",
    "             commit against the commit before it (Mann-Whitney U on the samples; git",
    "             order where `solbook commits import` stored it); the project's kernels",
    "             counted, other providers and protocol or environment changes apart;",
    "             --history: every step; exits 1 when a regression is counted",
    "roofline     the roofline SVG of one SKU",
    "training     end-to-end training runs, patched against baseline, beside the op-level",
    "             speedups of the same kernels (with --out, training-tokens.svg beside it)",
    "plausibility passing runs faster than their card's ceilings allow (left out of every",
    "             headline) or small enough to stay in L2, and speedups above 10x with",
    "             both times",
    "",
    "Speedups are over huggingface, then torch-compile and liger where an op has passing",
    "runs of them (an op with none of them: its provider with the most passing cases).",
    "'reference' is the project's diagnostic stand-in, a baseline only when named.",
    "Rules for every figure: docs/CLAIMS.md; formats: docs/REPORTS.md.",
    NULL,
};

typedef struct opts {
    const char *db, *baseline, *suite, *op, *format, *out, *week, *sku, *arch, *provider, *repo_url;
    double alpha, min_effect;
    int history;
} opts;

/* Every report option, into out (room for cap); those not in takes (NULL:
 * all apply) are refused as not applying to the report. */
static void report_options(opts *o, const char *const *takes, sb_option *out, size_t cap)
{
    const sb_option all[] = {
        SB_OPT_STRING(0, "db", &o->db, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING(0, "baseline", &o->baseline, "provider", "the one baseline of every speedup"),
        SB_OPT_STRING(0, "provider", &o->provider, "provider", "table: the provider timed (default fused)"),
        SB_OPT_STRING(0, "suite", &o->suite, "suite", "only runs of this suite"),
        SB_OPT_STRING(0, "op", &o->op, "op", "only this op"),
        SB_OPT_STRING(0, "sku", &o->sku, "sku", "table, roofline: the SKU"),
        SB_OPT_STRING(0, "arch", &o->arch, "a100,h100,h200", "note: the archs of the completion gate"),
        SB_OPT_STRING(0, "week", &o->week, "YYYY-Www", "weekly: the ISO week"),
        SB_OPT_DOUBLE(0, "alpha", &o->alpha, "a", 1e-12, 0.5,
                      "weekly, regressions: significance level (default 0.01)"),
        SB_OPT_DOUBLE(0, "min-effect", &o->min_effect, "e", 0, 10,
                      "weekly, regressions: smallest relative change that counts\n(default 0.03)"),
        SB_OPT_BOOL(0, "history", &o->history, "regressions: every commit against the one before it"),
        SB_OPT_STRING(0, "repo-url", &o->repo_url, "url",
                      "weekly, regressions: the repository's web address; commit ranges\nlink to "
                      "URL/compare/OLD...NEW (default: $SOLBOOK_REPO_URL)"),
        SB_OPT_STRING(0, "format", &o->format, "md|csv|json", "geomean, regressions: the output format"),
        SB_OPT_STRING(0, "out", &o->out, "path", "write there instead of stdout (weekly: a directory)"),
        SB_OPT_END(),
    };
    sb_options_only(all, takes, out, cap);
}

/* Parses a report's argv (argv[0] its name) with the options it takes.
 * Returns the exit status when the command is done (help, usage error),
 * -1 to go on. */
static int parse(int argc, char **argv, const char *const *takes, opts *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.01;
    o->min_effect = 0.03;
    o->repo_url = getenv("SOLBOOK_REPO_URL");
    sb_option options[24];
    report_options(o, takes, options, sizeof options / sizeof options[0]);
    char command[64];
    int exit_status;
    snprintf(command, sizeof command, "report %s", argv[0]);
    argc = sb_cli_parse_options(argc, argv, command, options, report_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (argc > 0) {
        sb_term_line(stderr, "solbook %s: unexpected argument '%s'", command, argv[0]);
        return 2;
    }
    for (size_t i = 0; takes[i]; i++)
        if (strcmp(takes[i], "repo-url") == 0 && o->repo_url && *o->repo_url && !sb_url_link_safe(o->repo_url)) {
            /* the same rule the site refuses by: links in either must not
             * differ because one output dropped them silently */
            sb_error err;
            sb_error_set(&err, NULL, NULL,
                         "repository URL '%s' (--repo-url or $SOLBOOK_REPO_URL): expected an http(s) "
                         "address of URL characters only (no spaces, quotes, brackets, '|' or parentheses)",
                         o->repo_url);
            sb_error_print(&err, stderr);
            return 2;
        }
    return -1;
}

/* Writes buf to --out or stdout. */
static int emit(const opts *o, const sb_buf *b)
{
    if (sb_buf_failed(b)) {
        fprintf(stderr, "solbook report: out of memory\n");
        return 2;
    }
    if (o->out) {
        sb_error err;
        sb_error_clear(&err);
        if (sb_file_write_buf(o->out, b, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            return 2;
        }
        return 0;
    }
    fwrite(sb_buf_str(b), 1, b->len, stdout);
    return fflush(stdout) == 0 ? 0 : 2;
}

static int open_db(const opts *o, sb_db **db)
{
    sb_error err;
    sb_error_clear(&err);
    if (sb_db_open_reader(o->db ? o->db : sb_default_db_path(), db, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    return 0;
}

static int load_skus(sb_sku_table **t)
{
    sb_error err;
    sb_error_clear(&err);
    if (sb_sku_table_load(NULL, t, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    return 0;
}

/* Opens the database and loads the SKU table, for the reports that name
 * SKUs; on failure nothing stays open. */
static int open_db_and_skus(const opts *o, sb_db **db, sb_sku_table **skus)
{
    if (open_db(o, db))
        return 2;
    if (load_skus(skus)) {
        sb_db_close(*db);
        *db = NULL;
        return 2;
    }
    return 0;
}

/* The database and the result runs a report reads. */
typedef struct report_input {
    sb_db *db;
    sb_sku_table *skus; /* with READ_SKUS */
    sb_result_set set;
    sb_pick *picks; /* with READ_PICKS: the latest run of each case */
    size_t np;
} report_input;

/* READ_LATEST: only the newest run of each case, provider and SKU (with
 * every left-out run), for reports made of picks alone; READ_UNMARKED:
 * the runs without their plausibility marks (sb_plaus_mark), for a
 * report that never reads them (regressions, on every run) */
enum { READ_SKUS = 1, READ_PICKS = 2, READ_LATEST = 4, READ_UNMARKED = 8 };

static void report_input_free(report_input *in)
{
    free(in->picks);
    sb_results_free(&in->set);
    sb_sku_table_free(in->skus);
    sb_db_close(in->db);
}

/* Opens the database and loads the result runs of --suite and --op on sku
 * (NULL: every SKU), with what READ_* asks for besides; on failure prints
 * the error and keeps nothing. */
static int report_input_load(const opts *o, const char *sku, int what, report_input *in)
{
    memset(in, 0, sizeof *in);
    if ((what & READ_SKUS) ? open_db_and_skus(o, &in->db, &in->skus) : open_db(o, &in->db))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    sb_result_filter f = {0};
    f.suite = o->suite;
    f.op = o->op;
    f.sku = sku;
    if (((what & READ_LATEST) ? sb_results_load_latest(in->db, &f, &in->set, &err)
                              : sb_results_load(in->db, &f, &in->set, &err)) != SB_OK ||
        (!(what & READ_UNMARKED) && sb_site_plaus_mark(in->db, &in->set, &err) != SB_OK) ||
        ((what & READ_PICKS) && sb_picks_latest(&in->set, &in->picks, &in->np, &err) != SB_OK)) {
        sb_error_print(&err, stderr);
        report_input_free(in);
        return 2;
    }
    return 0;
}

static int run_geomean(const opts *o)
{
    const char *fmt = o->format ? o->format : "md";
    if (strcmp(fmt, "md") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
        sb_term_line(stderr, "solbook report geomean: --format must be md, csv or json, not '%s'", fmt);
        return 2;
    }
    report_input in;
    if (report_input_load(o, NULL, READ_PICKS | READ_LATEST, &in))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    sb_geo_table geo = {0};
    sb_session_headlines paired = {0};
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    /* the headline: pairs within one session (docs/CLAIMS.md, rule 8);
     * the newest runs of everything else in their own section */
    sb_session_runs sruns = {0};
    if (sb_site_plaus_session_runs(in.db, NULL, 0, o->suite, &sruns, &err) != SB_OK ||
        sb_claims_headlines_take(&sruns, o->op, o->baseline, 0, 0, &paired, &err) != SB_OK ||
        sb_geo_compute_unpaired(&in.set, in.picks, in.np, o->baseline, &paired, &geo, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (in.set.n == 0 && paired.n == 0) {
        fprintf(stderr, "solbook report geomean: no result runs%s%s%s%s in %s\n",
                o->suite ? " in suite " : "", o->suite ? o->suite : "", o->op ? " of op " : "",
                o->op ? o->op : "", o->db ? o->db : sb_default_db_path());
        rc = 1;
        goto done;
    }
    if (strcmp(fmt, "md") == 0) {
        sb_geo_render_report_md(&paired, &geo, &b);
    } else if (strcmp(fmt, "csv") == 0) {
        sb_geo_render_report_csv(&paired, &geo, &b);
    } else if (sb_geo_render_report_json(&paired, &geo, &b, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    rc = emit(o, &b);
done:
    sb_buf_free(&b);
    sb_geo_free(&geo);
    sb_session_headlines_free(&paired);
    report_input_free(&in);
    return rc;
}

/* Stores the regression steps of every run again (sb_site_rg_update)
 * when the stored ones no longer hold and the database may be written; a
 * database that may not be written is left as it is, and its reports walk
 * the runs themselves. 0 or 2 (printed). */
static int refresh_steps(const opts *o, const sb_rg_opts *ro)
{
    const char *path = o->db ? o->db : sb_default_db_path();
    sb_db *db = NULL;
    if (open_db(o, &db))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    int fresh = 0;
    sb_rg_stored stored;
    int rc = sb_rg_stored_read(db, 0, &stored, &err);
    if (rc == SB_OK)
        rc = sb_rg_fresh(&stored, ro, &fresh, &err);
    sb_rg_stored_free(&stored);
    sb_db_close(db);
    db = NULL;
    if (rc == SB_OK && !fresh && access(path, W_OK) == 0) {
        sb_rg_update_info info;
        sb_rg_aa *aa = NULL;
        rc = sb_db_open(path, SB_DB_WRITE, &db, &err);
        if (rc == SB_OK)
            rc = sb_site_rg_aa(db, ro, &aa, &err);
        if (rc == SB_OK)
            rc = sb_site_rg_update(db, ro, aa, &info, &err);
        sb_rg_aa_free(aa);
        sb_db_close(db);
    }
    if (rc != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    return 0;
}

static int run_regressions(const opts *o)
{
    const char *fmt = o->format ? o->format : "md";
    if (strcmp(fmt, "md") && strcmp(fmt, "json")) {
        sb_term_line(stderr, "solbook report regressions: --format must be md or json, not '%s'", fmt);
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_rg_list rg = {0};
    sb_rg_aa *aa = NULL;
    /* change points only for the --history list, the one that shows them */
    sb_rg_opts ro = {o->alpha, o->min_effect, o->repo_url, o->history, NULL};
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    report_input in;
    memset(&in, 0, sizeof in);
    /* the whole history always: the count is the one every output gives;
     * its latest steps from the stored history where that holds, else
     * from a walk over every run */
    int found = 0;
    if (!o->history && !o->suite && !o->op) {
        if (refresh_steps(o, &ro) || open_db(o, &in.db))
            return 2;
        sb_rg_stored stored;
        int lrc = sb_rg_stored_read(in.db, 1, &stored, &err);
        if (lrc == SB_OK)
            lrc = sb_site_rg_latest(in.db, &stored, &ro, LLONG_MAX, &rg, &found, &err);
        sb_rg_stored_free(&stored);
        if (lrc != SB_OK) {
            sb_error_print(&err, stderr);
            goto done;
        }
        if (!found) {
            sb_db_close(in.db);
            in.db = NULL;
        }
    }
    if (!found) {
        if (report_input_load(o, NULL, READ_UNMARKED, &in))
            return 2;
        if (sb_site_rg_aa(in.db, &ro, &aa, &err) != SB_OK ||
            sb_site_rg_history(in.db, &in.set, NULL, &ro, aa, &rg, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            goto done;
        }
    }
    if (strcmp(fmt, "md") == 0) {
        sb_rg_render_md(&rg, &ro, !o->history, &b);
    } else if (sb_rg_render_json(&rg, &ro, !o->history, &b, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    rc = emit(o, &b);
    if (rc == 0 && sb_rg_count_regressions(&rg) > 0) {
        fprintf(stderr, "solbook report regressions: %zu regression(s)\n",
                sb_rg_count_regressions(&rg));
        rc = 1;
    }
done:
    sb_buf_free(&b);
    sb_rg_free(&rg);
    sb_rg_aa_free(aa);
    report_input_free(&in);
    return rc;
}

static int run_weekly(const opts *o)
{
    if (!o->week) {
        fprintf(stderr, "solbook report weekly: --week YYYY-Www is required (e.g. 2026-W47)\n");
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_weekly_opts wo = {0};
    if (sb_isoweek_parse(o->week, &wo.year, &wo.week, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        return 2;
    }
    wo.out_dir = o->out ? o->out : ".";
    wo.baseline = o->baseline;
    wo.db_label = o->db;
    wo.rg.alpha = o->alpha;
    wo.rg.min_effect = o->min_effect;
    wo.rg.repo_url = o->repo_url;
    sb_db *db = NULL;
    sb_sku_table *skus = NULL;
    /* the week's regressions from the stored history where it holds */
    if (refresh_steps(o, &wo.rg) || open_db_and_skus(o, &db, &skus))
        return 2;
    sb_weekly_summary sum;
    sb_snapshot *snap = NULL;
    int rc = 0;
    if (sb_snapshot_read(db, skus, &snap, &err) == SB_OK)
        wo.snap = snap;
    sb_file_set files = {0};
    sb_site_weekly week_rows;
    /* the week's rows read once; its files merged into the folder whole
     * or not at all: a failure leaves the week's earlier writeup as it was */
    int read = snap && sb_site_weekly_read(db, skus, &wo, NULL, &week_rows, &err) == SB_OK;
    if (read)
        wo.regressions = week_rows.regressions;
    if (!read || sb_weekly_build(&week_rows.snap, &week_rows.steps, skus, &wo, &sum, &files, &err) != SB_OK ||
        sb_file_set_publish(&files, wo.out_dir, SB_STAGE_MERGE, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = 2;
    } else {
        printf("%s: %zu bytes, %zu lines; %zu result runs (%zu passing, %zu failed, %zu skipped), "
               "%zu training runs, %zu plots, %zu regressions of the project's kernels (as report regressions counts them)\n%s\n%s\n%s\n",
               sum.md_path, sum.md_bytes, sum.md_lines, sum.runs, sum.passing, sum.failed,
               sum.skipped, sum.training, sum.plots, sum.regressions, sum.appendix_path,
               sum.reproduce_path, sum.html_path);
        if (sum.left_out)
            printf("%zu list entries past the writeup's limits are in the appendix only\n", sum.left_out);
    }
    if (read)
        sb_site_weekly_free(&week_rows);
    sb_file_set_free(&files);
    sb_snapshot_free(snap);
    sb_sku_table_free(skus);
    sb_db_close(db);
    return rc;
}

static int run_roofline(const opts *o)
{
    if (!o->sku) {
        fprintf(stderr, "solbook report roofline: --sku SKU is required (an id of data/skus.csv "
                        "as stored in provenance.sku)\n");
        return 2;
    }
    report_input in;
    if (report_input_load(o, o->sku, READ_SKUS | READ_PICKS | READ_LATEST, &in))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    size_t drawn = 0;
    sb_buf b = SB_BUF_INIT;
    sb_snapshot *snap = NULL;
    int rc = 2;
    if (in.set.n == 0) {
        fprintf(stderr, "solbook report roofline: no result runs on SKU %s\n", o->sku);
        rc = 1;
        goto done;
    }
    if (sb_snapshot_read(in.db, in.skus, &snap, &err) != SB_OK ||
        sb_plot_roofline(snap, in.skus, in.picks, in.np, o->sku, &b, &drawn, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    rc = emit(o, &b);
    if (rc == 0 && o->out)
        printf("%s: %zu points\n", o->out, drawn);
done:
    sb_buf_free(&b);
    sb_snapshot_free(snap);
    report_input_free(&in);
    return rc;
}

/* A report made from the database and the SKU table into one buffer. */
typedef int (*sku_report_fn)(sb_db *db, const sb_sku_table *skus, const opts *o, sb_buf *out,
                             sb_error *err);

static int note_of(sb_db *db, const sb_sku_table *skus, const opts *o, sb_buf *out, sb_error *err)
{
    const char *arches = o->arch ? o->arch : "a100,h100,h200";
    sb_result_filter f = sb_note_filter();
    sb_result_set runs = {0};
    sb_details_ask ask = {0};
    sb_run_details *det = NULL;
    int rc = SB_ERR;
    if (sb_results_load(db, &f, &runs, err) == SB_OK && sb_note_ask(&runs, arches, &ask, err) == SB_OK &&
        sb_run_details_read(db, &ask, &det, err) == SB_OK)
        rc = sb_note_render(&runs, det, skus, arches, out, err);
    sb_run_details_free(det);
    sb_details_ask_free(&ask);
    sb_results_free(&runs);
    return rc;
}

/* What the evidence page and the standing blocks read: every result run
 * with its plausibility marks, every session's checked headlines, and the
 * cards' calibrations. */
typedef struct marked_runs {
    sb_result_set set;
    sb_session_runs sruns; /* taken over by paired */
    sb_session_headlines paired;
    sb_snapshot *snap;
} marked_runs;

static void marked_runs_free(marked_runs *m)
{
    sb_snapshot_free(m->snap);
    sb_session_headlines_free(&m->paired);
    sb_results_free(&m->set);
}

/* On failure m is freed. */
static int marked_runs_read(sb_db *db, const sb_sku_table *skus, marked_runs *m, sb_error *err)
{
    memset(m, 0, sizeof *m);
    if (sb_results_load(db, NULL, &m->set, err) == SB_OK && sb_site_plaus_mark(db, &m->set, err) == SB_OK &&
        sb_site_plaus_session_runs(db, NULL, 0, NULL, &m->sruns, err) == SB_OK &&
        sb_claims_headlines_take(&m->sruns, NULL, NULL, 0, 0, &m->paired, err) == SB_OK &&
        sb_snapshot_read(db, skus, &m->snap, err) == SB_OK)
        return SB_OK;
    marked_runs_free(m);
    return SB_ERR;
}

static int evidence_of(sb_db *db, const sb_sku_table *skus, const opts *o, sb_buf *out,
                       sb_error *err)
{
    (void)o;
    marked_runs m;
    if (marked_runs_read(db, skus, &m, err) != SB_OK)
        return SB_ERR;
    sb_details_ask ask = {0};
    sb_run_details *det = NULL;
    int rc = SB_ERR;
    if (sb_evidence_ask(&m.set, &ask, err) == SB_OK && sb_run_details_read(db, &ask, &det, err) == SB_OK)
        rc = sb_evidence_render(&m.set, &m.paired, m.snap, det, skus, out, err);
    sb_run_details_free(det);
    sb_details_ask_free(&ask);
    marked_runs_free(&m);
    return rc;
}

/* With --out, the document there with its blocks rewritten (emit writes it
 * back atomically); without, every block between its marker lines. */
static int standing_of(sb_db *db, const sb_sku_table *skus, const opts *o, sb_buf *out,
                       sb_error *err)
{
    marked_runs m;
    if (marked_runs_read(db, skus, &m, err) != SB_OK)
        return SB_ERR;
    sb_standing *s = NULL;
    int rc = sb_standing_open(&m.set, &m.paired, m.snap, skus, &s, err);
    if (rc == SB_OK)
        rc = o->out ? sb_standing_rewrite_doc(s, o->out, out, NULL, err)
                    : sb_standing_render_all(s, out, err);
    sb_standing_close(s);
    marked_runs_free(&m);
    return rc;
}

static int run_sku_report(const opts *o, sku_report_fn fn)
{
    sb_db *db = NULL;
    sb_sku_table *skus = NULL;
    if (open_db_and_skus(o, &db, &skus))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if (fn(db, skus, o, &b, &err) != SB_OK)
        sb_error_print(&err, stderr);
    else
        rc = emit(o, &b);
    sb_buf_free(&b);
    sb_sku_table_free(skus);
    sb_db_close(db);
    return rc;
}

static int run_table(const opts *o)
{
    if (!o->op || !o->sku) {
        fprintf(stderr, "solbook report table: --op O and --sku SKU are required (e.g. --op rmsnorm "
                        "--sku h100-sxm5-80gb)\n");
        return 2;
    }
    const char *provider = o->provider ? o->provider : SB_PROJECT_PROVIDER;
    const char *baseline = o->baseline ? o->baseline : sb_headline_baselines[0];
    if (strcmp(provider, baseline) == 0) {
        sb_term_line(stderr, "solbook report table: --provider and --baseline are both '%s'", provider);
        return 2;
    }
    report_input in;
    if (report_input_load(o, o->sku, READ_PICKS, &in))
        return 2;
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if (in.set.n == 0) {
        fprintf(stderr, "solbook report table: no result runs of op %s on SKU %s%s%s in %s\n", o->op,
                o->sku, o->suite ? " in suite " : "", o->suite ? o->suite : "",
                o->db ? o->db : sb_default_db_path());
        rc = 1;
        goto done;
    }
    size_t compared = sb_case_table_render(in.picks, in.np, o->op, o->sku, provider, baseline, &b);
    rc = emit(o, &b);
    if (rc == 0 && compared == 0) {
        fprintf(stderr, "solbook report table: no case of %s on %s where both %s and %s passed\n",
                o->op, o->sku, provider, baseline);
        rc = 1;
    }
done:
    sb_buf_free(&b);
    report_input_free(&in);
    return rc;
}

static int run_plausibility(const opts *o)
{
    report_input in;
    if (report_input_load(o, NULL, READ_SKUS | READ_PICKS, &in))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    sb_buf b = SB_BUF_INIT;
    sb_plaus_summary sum;
    sb_snapshot *cards = NULL;
    sb_result_set sessions = {0};
    sb_result_filter f = {0};
    f.suite = o->suite;
    f.op = o->op;
    f.only_sessions = 1;
    int rc = 2;
    sb_plaus_snap snap = {0};
    if (sb_results_load(in.db, &f, &sessions, &err) != SB_OK ||
        sb_site_plaus_snap_listing(in.db, in.picks, in.np, &sessions, &snap, &err) != SB_OK ||
        sb_plaus_render_md(&snap, in.picks, in.np, &sessions, "#", &b, &sum, &err) != SB_OK ||
        sb_snapshot_read(in.db, in.skus, &cards, &err) != SB_OK) {
        sb_error_print(&err, stderr);
    } else {
        sb_plaus_render_set_aside_md(cards, "#", &b);
        rc = emit(o, &b);
        if (rc == 0 && o->out)
            printf("%s: %zu runs checked, %zu implausible, %zu cache-resident, %zu speedups above "
                   "10x; %zu session runs checked, %zu implausible, %zu cache-resident\n",
                   o->out, sum.checked, sum.implausible, sum.cache_resident, sum.big_speedups,
                   sum.session_checked, sum.session_implausible, sum.session_cache_resident);
    }
    sb_results_free(&sessions);
    sb_plaus_snap_free(&snap);
    sb_snapshot_free(cards);
    sb_buf_free(&b);
    report_input_free(&in);
    return rc;
}

static int run_training(const opts *o)
{
    sb_db *db = NULL;
    if (open_db(o, &db))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    char dir[4096] = ".";
    if (o->out) {
        const char *slash = strrchr(o->out, '/');
        if (slash && (size_t)(slash - o->out) < sizeof dir)
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - o->out), o->out);
    }
    sb_buf plot = SB_BUF_INIT;
    sb_training_opts to = {0};
    to.plot = o->out ? &plot : NULL;
    sb_training_summary sum;
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    char plot_path[4200];
    snprintf(plot_path, sizeof plot_path, "%s/training-tokens.svg", dir);
    sb_training_set runs = {0};
    sb_result_set all = {0};
    to.runs = &runs;
    to.all = &all;
    if (sb_training_load(db, 0, 0, 0, &runs, &err) != SB_OK ||
        sb_results_load(db, NULL, &all, &err) != SB_OK ||
        sb_site_plaus_mark(db, &all, &err) != SB_OK ||
        sb_training_render_md(&to, &b, &sum, &err) != SB_OK ||
        (sum.plot_drawn && sb_file_write_buf(plot_path, &plot, &err) != SB_OK)) {
        sb_error_print(&err, stderr);
    } else {
        rc = emit(o, &b);
        if (rc == 0 && o->out)
            printf("%s: %zu training runs, %zu training sessions paired, %zu compared with a baseline one after "
                   "the other (not paired)%s\n",
                   o->out, sum.runs, sum.sessions, sum.pairs, sum.plot_drawn ? ", plot training-tokens.svg" : "");
    }
    sb_results_free(&all);
    sb_training_free(&runs);
    sb_buf_free(&plot);
    sb_buf_free(&b);
    sb_db_close(db);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    opts all;
    sb_option options[24];
    int help_status;
    report_options(&all, NULL, options, sizeof options / sizeof options[0]);
    if (sb_cli_subcommand_help(argc, argv, report_usage, options, &help_status))
        return help_status;
    const char *sub = argv[1];
    static const char *const reports[] = {"geomean", "weekly", "note", "table", "evidence", "standing",
                                          "regressions", "roofline", "training", "plausibility", NULL};
    static const char *const takes[][10] = {
        {"db", "baseline", "suite", "op", "format", "out", NULL},
        {"db", "week", "out", "baseline", "alpha", "min-effect", "repo-url", NULL},
        {"db", "arch", "out", NULL},
        {"db", "op", "sku", "baseline", "provider", "suite", "out", NULL},
        {"db", "out", NULL},
        {"db", "out", NULL},
        {"db", "suite", "op", "alpha", "min-effect", "history", "format", "repo-url", "out", NULL},
        {"db", "sku", "suite", "op", "out", NULL},
        {"db", "out", NULL},
        {"db", "suite", "op", "out", NULL},
    };
    size_t r = 0;
    while (reports[r] && strcmp(reports[r], sub) != 0)
        r++;
    if (!reports[r]) {
        const char *close = sub[0] != '-' ? sb_suggest(sub, reports) : NULL;
        if (close)
            sb_term_line(stderr, "solbook report: unknown report '%s'; did you mean '%s'?", sub, close);
        else
            sb_term_line(stderr, "solbook report: unknown report '%s' (geomean, weekly, note, table, "
                                 "evidence, standing, regressions, roofline, training, plausibility)",
                    sub);
        return 2;
    }
    opts o;
    int status = parse(argc - 1, argv + 1, takes[r], &o);
    if (status >= 0)
        return status;
    if (strcmp(sub, "geomean") == 0)
        return run_geomean(&o);
    if (strcmp(sub, "weekly") == 0)
        return run_weekly(&o);
    if (strcmp(sub, "regressions") == 0)
        return run_regressions(&o);
    if (strcmp(sub, "evidence") == 0)
        return run_sku_report(&o, evidence_of);
    if (strcmp(sub, "standing") == 0)
        return run_sku_report(&o, standing_of);
    if (strcmp(sub, "note") == 0)
        return run_sku_report(&o, note_of);
    if (strcmp(sub, "table") == 0)
        return run_table(&o);
    if (strcmp(sub, "roofline") == 0)
        return run_roofline(&o);
    if (strcmp(sub, "training") == 0)
        return run_training(&o);
    if (strcmp(sub, "plausibility") == 0)
        return run_plausibility(&o);
    return 2;
}
