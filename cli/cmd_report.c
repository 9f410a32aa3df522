/* cmd_report.c - `solbook report geomean|weekly|note|table|evidence|standing|regressions|roofline|training`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "geomean.h"
#include "home.h"
#include "casetable.h"
#include "evidence.h"
#include "isoweek.h"
#include "note.h"
#include "plots.h"
#include "regress.h"
#include "repro.h"
#include "results.h"
#include "sku.h"
#include "standing.h"
#include "strbuf.h"
#include "suggest.h"
#include "training.h"
#include "weekly.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: solbook report geomean [--db FILE] [--baseline PROVIDER] [--suite S] [--op O]\n"
            "                              [--format md|csv|json] [--out FILE]\n"
            "       solbook report weekly --week YYYY-Www [--db FILE] [--out DIR] [--baseline PROVIDER]\n"
            "                             [--alpha A] [--min-effect E]\n"
            "       solbook report note [--db FILE] [--arch a100,h100,h200] [--out FILE]\n"
            "       solbook report table --op O --sku SKU [--baseline PROVIDER] [--provider P]\n"
            "                            [--suite S] [--db FILE] [--out FILE]\n"
            "       solbook report evidence [--db FILE] [--out FILE]\n"
            "       solbook report standing [--db FILE] [--out FILE.md]\n"
            "       solbook report regressions [--db FILE] [--suite S] [--op O] [--alpha 0.01]\n"
            "                                  [--min-effect 0.03] [--history] [--format md|json]\n"
            "                                  [--out FILE]\n"
            "       solbook report roofline --sku SKU [--db FILE] [--suite S] [--op O] [--out FILE]\n"
            "       solbook report training [--db FILE] [--out FILE.md]\n"
            "\n"
            "geomean      speedup of every provider over a baseline, per op x mode x dtype x SKU,\n"
            "             and a cross-arch table (newest run per case; failed cases counted)\n"
            "weekly       DIR/YYYY-Www.md (under 64 KB), DIR/YYYY-Www-appendix.md, .html and SVG\n"
            "             plots for runs finished in that ISO week\n"
            "note         the ten-line result note about the GEMM spec and the completion gate\n"
            "table        per-shape times of a provider (default fused) and a baseline on one SKU,\n"
            "             the geomean at the foot\n"
            "evidence     docs/EVIDENCE.md: the targets checked against the stored runs\n"
            "standing     the generated tables of docs/KERNELS.md: --out rewrites the blocks between\n"
            "             its '<!-- solbook report standing: NAME -->' lines in place; without\n"
            "             --out every block is printed with its marker lines\n"
            "regressions  newest commit against the previous one per case, provider and SKU\n"
            "             (Mann-Whitney U on the samples; commits in the order they were first\n"
            "             measured); --history: every commit against the one before it; exits 1\n"
            "             when a case regressed at its newest commit\n"
            "roofline     the roofline SVG of one SKU\n"
            "training     end-to-end training runs, patched against baseline, beside the op-level\n"
            "             speedups of the same kernels (with --out, training-tokens.svg beside it)\n"
            "\n"
            "--db defaults to $SOLBOOK_DB or ./solbook.db. Speedups are over huggingface, then\n"
            "torch-compile and liger where an op has passing runs of them (an op with none of\n"
            "them: its provider with the most passing cases); --baseline P uses P alone.\n"
            "'reference' is the project's diagnostic stand-in, a baseline only when named.\n"
            "Rules for every figure: docs/CLAIMS.md; formats: docs/REPORTS.md.\n");
}

typedef struct opts {
    const char *db, *baseline, *suite, *op, *format, *out, *week, *sku, *arch, *provider;
    double alpha, min_effect;
    int history;
    const char *given[16]; /* long names of the options given */
    size_t ngiven;
} opts;

/* Options each report takes; any other given option is a usage error. */
static int check_allowed(const opts *o, const char *sub, const char *const *allowed)
{
    for (size_t i = 0; i < o->ngiven; i++) {
        int ok = 0;
        for (size_t k = 0; allowed[k] && !ok; k++)
            ok = strcmp(allowed[k], o->given[i]) == 0;
        if (!ok) {
            fprintf(stderr, "solbook report %s: --%s does not apply to this report; see "
                            "'solbook report --help'\n", sub, o->given[i]);
            return 2;
        }
    }
    return 0;
}

static int parse_double(const char *s, const char *name, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || end == s || !(v >= lo && v <= hi)) {
        fprintf(stderr, "solbook report: %s must be a number in [%g, %g], not '%s'\n", name, lo,
                hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    static const struct option lo[] = {
        {"db", required_argument, NULL, 'd'},       {"baseline", required_argument, NULL, 'b'},
        {"suite", required_argument, NULL, 's'},    {"op", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},   {"out", required_argument, NULL, 'O'},
        {"week", required_argument, NULL, 'w'},     {"sku", required_argument, NULL, 'k'},
        {"alpha", required_argument, NULL, 'a'},    {"min-effect", required_argument, NULL, 'e'},
        {"arch", required_argument, NULL, 'A'},     {"provider", required_argument, NULL, 'p'},
        {"history", no_argument, NULL, 'H'},        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->alpha = 0.01;
    o->min_effect = 0.03;
    optind = 1;
    opterr = 0;
    int c, idx = -1;
    while ((c = getopt_long(argc, argv, ":h", lo, &idx)) != -1) {
        if (idx >= 0 && c != 'h' && o->ngiven < sizeof o->given / sizeof o->given[0])
            o->given[o->ngiven++] = lo[idx].name;
        idx = -1;
        switch (c) {
        case 'd': o->db = optarg; break;
        case 'b': o->baseline = optarg; break;
        case 's': o->suite = optarg; break;
        case 'o': o->op = optarg; break;
        case 'f': o->format = optarg; break;
        case 'O': o->out = optarg; break;
        case 'w': o->week = optarg; break;
        case 'k': o->sku = optarg; break;
        case 'A': o->arch = optarg; break;
        case 'p': o->provider = optarg; break;
        case 'H': o->history = 1; break;
        case 'a':
            if (parse_double(optarg, "--alpha", 1e-12, 0.5, &o->alpha))
                return 2;
            break;
        case 'e':
            if (parse_double(optarg, "--min-effect", 0, 10, &o->min_effect))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':':
        default:
            return sb_cli_refused_option(stderr, "report", c, argv[optind - 1], lo);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "solbook report: unexpected argument '%s'\n", argv[optind]);
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
        if (sb_write_buf(o->out, b, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            return 2;
        }
        return 0;
    }
    fwrite(sb_buf_str(b), 1, b->len, stdout);
    return fflush(stdout) == 0 ? 0 : 2;
}

static int open_db(const opts *o, sqlite3 **db)
{
    sb_error err;
    sb_error_clear(&err);
    if (sb_report_db_open(o->db ? o->db : sb_default_db_path(), db, &err) != SB_OK) {
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
static int open_db_and_skus(const opts *o, sqlite3 **db, sb_sku_table **skus)
{
    if (open_db(o, db))
        return 2;
    if (load_skus(skus)) {
        sb_report_db_close(*db);
        *db = NULL;
        return 2;
    }
    return 0;
}

/* The database and the result runs a report reads. */
typedef struct report_input {
    sqlite3 *db;
    sb_sku_table *skus; /* with READ_SKUS */
    sb_result_set set;
    sb_pick *picks; /* with READ_PICKS: the latest run of each case */
    size_t np;
} report_input;

enum { READ_SKUS = 1, READ_PICKS = 2 };

static void report_input_free(report_input *in)
{
    free(in->picks);
    sb_results_free(&in->set);
    sb_sku_table_free(in->skus);
    sb_report_db_close(in->db);
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
    if (sb_results_load(in->db, &f, &in->set, &err) != SB_OK ||
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
        fprintf(stderr, "solbook report geomean: --format must be md, csv or json, not '%s'\n", fmt);
        return 2;
    }
    report_input in;
    if (report_input_load(o, NULL, READ_PICKS, &in))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    sb_geo_table geo = {0};
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if (sb_geo_compute(&in.set, in.picks, in.np, o->baseline, &geo, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (in.set.n == 0) {
        fprintf(stderr, "solbook report geomean: no result runs%s%s%s%s in %s\n",
                o->suite ? " in suite " : "", o->suite ? o->suite : "", o->op ? " of op " : "",
                o->op ? o->op : "", o->db ? o->db : sb_default_db_path());
        rc = 1;
        goto done;
    }
    if (strcmp(fmt, "md") == 0) {
        sb_geo_render_md(&geo, &b);
    } else if (strcmp(fmt, "csv") == 0) {
        sb_geo_render_csv(&geo, &b);
    } else if (sb_geo_render_json(&geo, &b, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    rc = emit(o, &b);
done:
    sb_buf_free(&b);
    sb_geo_free(&geo);
    report_input_free(&in);
    return rc;
}

static int run_regressions(const opts *o)
{
    const char *fmt = o->format ? o->format : "md";
    if (strcmp(fmt, "md") && strcmp(fmt, "json")) {
        fprintf(stderr, "solbook report regressions: --format must be md or json, not '%s'\n", fmt);
        return 2;
    }
    report_input in;
    if (report_input_load(o, NULL, 0, &in))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    sb_rg_list rg = {0};
    sb_rg_opts ro = {o->alpha, o->min_effect};
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if ((o->history ? sb_rg_history(in.db, &in.set, &ro, &rg, &err)
                    : sb_rg_commits(in.db, &in.set, &ro, &rg, &err)) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (strcmp(fmt, "md") == 0) {
        sb_rg_render_md(&rg, &ro, &b);
    } else if (sb_rg_render_json(&rg, &ro, &b, &err) != SB_OK) {
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
    sqlite3 *db = NULL;
    sb_sku_table *skus = NULL;
    if (open_db_and_skus(o, &db, &skus))
        return 2;
    sb_weekly_summary sum;
    int rc = 0;
    if (sb_weekly_write(db, skus, &wo, &sum, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        rc = 2;
    } else {
        printf("%s: %zu bytes, %zu lines; %zu result runs (%zu passing, %zu failed, %zu skipped), "
               "%zu training runs, %zu plots, %zu regressions since the previous week\n%s\n%s\n",
               sum.md_path, sum.md_bytes, sum.md_lines, sum.runs, sum.passing, sum.failed,
               sum.skipped, sum.training, sum.plots, sum.regressions, sum.appendix_path,
               sum.html_path);
    }
    sb_sku_table_free(skus);
    sb_report_db_close(db);
    return rc;
}

static int run_roofline(const opts *o)
{
    if (!o->sku) {
        fprintf(stderr, "solbook report roofline: --sku SKU is required (an id of db/skus.csv "
                        "as stored in provenance.sku)\n");
        return 2;
    }
    report_input in;
    if (report_input_load(o, o->sku, READ_SKUS | READ_PICKS, &in))
        return 2;
    sb_error err;
    sb_error_clear(&err);
    size_t drawn = 0;
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if (in.set.n == 0) {
        fprintf(stderr, "solbook report roofline: no result runs on SKU %s\n", o->sku);
        rc = 1;
        goto done;
    }
    if (sb_plot_roofline(in.db, in.skus, in.picks, in.np, o->sku, &b, &drawn, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    rc = emit(o, &b);
    if (rc == 0 && o->out)
        printf("%s: %zu points\n", o->out, drawn);
done:
    sb_buf_free(&b);
    report_input_free(&in);
    return rc;
}

/* A report made from the database and the SKU table into one buffer. */
typedef int (*sku_report_fn)(sqlite3 *db, const sb_sku_table *skus, const opts *o, sb_buf *out,
                             sb_error *err);

static int note_of(sqlite3 *db, const sb_sku_table *skus, const opts *o, sb_buf *out, sb_error *err)
{
    return sb_note_render(db, skus, o->arch ? o->arch : "a100,h100,h200", out, err);
}

static int evidence_of(sqlite3 *db, const sb_sku_table *skus, const opts *o, sb_buf *out,
                       sb_error *err)
{
    (void)o;
    return sb_evidence_render(db, skus, out, err);
}

/* With --out, the document there with its blocks rewritten (emit writes it
 * back atomically); without, every block between its marker lines. */
static int standing_of(sqlite3 *db, const sb_sku_table *skus, const opts *o, sb_buf *out,
                       sb_error *err)
{
    sb_standing *s = NULL;
    if (sb_standing_open(db, skus, &s, err) != SB_OK)
        return SB_ERR;
    int rc = o->out ? sb_standing_rewrite_doc(s, o->out, out, NULL, err)
                    : sb_standing_render_all(s, out, err);
    sb_standing_close(s);
    return rc;
}

static int run_sku_report(const opts *o, sku_report_fn fn)
{
    sqlite3 *db = NULL;
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
    sb_report_db_close(db);
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
        fprintf(stderr, "solbook report table: --provider and --baseline are both '%s'\n", provider);
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

static int run_training(const opts *o)
{
    sqlite3 *db = NULL;
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
    sb_training_opts to = {0};
    to.plot_dir = o->out ? dir : NULL;
    sb_training_summary sum;
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if (sb_training_render_md(db, &to, &b, &sum, &err) != SB_OK) {
        sb_error_print(&err, stderr);
    } else {
        rc = emit(o, &b);
        if (rc == 0 && o->out)
            printf("%s: %zu training runs, %zu compared with a baseline%s\n", o->out, sum.runs, sum.pairs,
                   sum.plot_written ? ", plot training-tokens.svg" : "");
    }
    sb_buf_free(&b);
    sb_report_db_close(db);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    opts o;
    int r = parse(argc - 1, argv + 1, &o);
    if (r >= 0)
        return r;
    static const char *const geomean_opts[] = {"db", "baseline", "suite", "op", "format", "out", NULL};
    static const char *const weekly_opts[] = {"db", "week", "out", "baseline", "alpha", "min-effect",
                                              NULL};
    static const char *const note_opts[] = {"db", "arch", "out", NULL};
    static const char *const evidence_opts[] = {"db", "out", NULL};
    static const char *const standing_opts[] = {"db", "out", NULL};
    static const char *const table_opts[] = {"db", "op", "sku", "baseline", "provider", "suite",
                                             "out", NULL};
    static const char *const regress_opts[] = {"db", "suite", "op", "alpha", "min-effect",
                                               "history", "format", "out", NULL};
    static const char *const roofline_opts[] = {"db", "sku", "suite", "op", "out", NULL};
    static const char *const training_opts[] = {"db", "out", NULL};
    if (strcmp(sub, "geomean") == 0)
        return check_allowed(&o, sub, geomean_opts) ? 2 : run_geomean(&o);
    if (strcmp(sub, "weekly") == 0)
        return check_allowed(&o, sub, weekly_opts) ? 2 : run_weekly(&o);
    if (strcmp(sub, "regressions") == 0)
        return check_allowed(&o, sub, regress_opts) ? 2 : run_regressions(&o);
    if (strcmp(sub, "evidence") == 0)
        return check_allowed(&o, sub, evidence_opts) ? 2 : run_sku_report(&o, evidence_of);
    if (strcmp(sub, "standing") == 0)
        return check_allowed(&o, sub, standing_opts) ? 2 : run_sku_report(&o, standing_of);
    if (strcmp(sub, "note") == 0)
        return check_allowed(&o, sub, note_opts) ? 2 : run_sku_report(&o, note_of);
    if (strcmp(sub, "table") == 0)
        return check_allowed(&o, sub, table_opts) ? 2 : run_table(&o);
    if (strcmp(sub, "roofline") == 0)
        return check_allowed(&o, sub, roofline_opts) ? 2 : run_roofline(&o);
    if (strcmp(sub, "training") == 0)
        return check_allowed(&o, sub, training_opts) ? 2 : run_training(&o);
    static const char *const reports[] = {"geomean", "weekly", "note", "table", "evidence", "standing",
                                          "regressions", "roofline", "training", NULL};
    const char *close = sub[0] != '-' ? sb_suggest(sub, reports) : NULL;
    if (close)
        fprintf(stderr, "solbook report: unknown report '%s'; did you mean '%s'?\n", sub, close);
    else
        fprintf(stderr, "solbook report: unknown report '%s' (geomean, weekly, note, table, "
                        "evidence, standing, regressions, roofline, training)\n",
                sub);
    return 2;
}
