/* cmd_compare.c - `solbook compare A B`: two commits, or two run sets
 * chosen by filters, side by side (report/compare.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "compare_render.h"
#include "error.h"
#include "home.h"
#include "json_file.h"
#include "regress.h"
#include "repro.h"
#include "results.h"
#include "results_query.h"
#include "run_devices.h"
#include "site_rg.h"
#include "strbuf.h"
#include "term.h"

static const char *const compare_usage[] = {
    "solbook compare [<options>] A B",
    "",
    "Puts the runs A selects beside the runs B selects: per case (op, mode, dtype,",
    "shape, params), provider and SKU, the newest passing run of each side, both",
    "medians, B/A, and a two-sided Mann-Whitney U verdict on the stored samples",
    "(slower, faster, same or inconclusive), with the geomean of B/A. Runs timed",
    "under a profiler never count. A change counts past its threshold: the case's",
    "A/A noise on one card or across two where the A/A sessions measured it, else",
    "the SKU's cross-card noise across cards, never below --threshold (as `report",
    "regressions` judges a step); --aa-db takes the A/A runs from another database.",
    "",
    "A and B: a commit (4 to 40 hex digits, a prefix of the SHA), or filters",
    "KEY=VALUE[,KEY=VALUE...] with keys sha, branch, suite, sku, arch, provider, op,",
    "session (a measuring session's id prefix; its runs take part only so) and copy",
    "(the session's A/A copy, 0 or 1),",
    "e.g.  solbook compare a7d808f f82e263",
    "      solbook compare sku=h100-sxm5-80gb sku=h200-sxm-141gb   (card against card)",
    "      solbook compare session=d9cade58,copy=0 session=d9cade58,copy=1   (A/A)",
    "The other options narrow both sides alike.",
    "",
    "Exit status: 0 no case slower; 1 some case significantly slower by more than the",
    "threshold; 2 usage or database error, or no case on both sides.",
    NULL,
};

/* Judges the pairs of r one at a time: reads a pair's kernel times or
 * samples, hands them over and frees them before the next, so that one
 * pair's samples are in memory at a time. */
static int judge_pairs(sb_db *db, sb_cmp_result *r, const sb_cmp_opts *o, sb_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        const sb_cmp_row *row = &r->v[i];
        char *ja = NULL, *jb = NULL;
        double *x = NULL, *y = NULL;
        size_t nx = 0, ny = 0;
        int rc = SB_OK;
        if (sb_cmp_wants_kernel(row)) {
            rc = sb_kernel_samples_text(db, row->a->run_id, &ja, err);
            if (rc == SB_OK)
                rc = sb_kernel_samples_text(db, row->b->run_id, &jb, err);
            if (!ja || !jb) {
                free(ja);
                free(jb);
                ja = jb = NULL;
            }
        }
        sb_cmp_samples s = {ja, jb, NULL, NULL, 0, 0};
        if (rc == SB_OK && sb_cmp_wants_samples(row, &s)) {
            rc = sb_samples_load(db, row->a->run_id, &x, &nx, err);
            if (rc == SB_OK)
                rc = sb_samples_load(db, row->b->run_id, &y, &ny, err);
        }
        s.x = x;
        s.nx = nx;
        s.y = y;
        s.ny = ny;
        if (rc == SB_OK)
            rc = sb_cmp_judge(r, i, &s, o, err);
        free(ja);
        free(jb);
        free(x);
        free(y);
        if (rc != SB_OK)
            return rc;
    }
    sb_cmp_finish(r);
    return SB_OK;
}

int cmd_compare(int argc, char **argv)
{
    const char *db_path = sb_default_db_path(), *fmt = "md", *out_path = NULL, *aa_path = NULL;
    sb_result_filter f = {0};
    sb_cmp_opts o = {0.01, 0.03};
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING(0, "db", &db_path, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING(0, "op", &f.op, "op", "only this op, on both sides"),
        SB_OPT_STRING(0, "suite", &f.suite, "suite", "only this suite"),
        SB_OPT_STRING(0, "provider", &f.provider, "provider", "only this provider"),
        SB_OPT_STRING(0, "sku", &f.sku, "sku", "only this SKU"),
        SB_OPT_STRING(0, "arch", &f.arch, "arch", "only this arch"),
        SB_OPT_DOUBLE(0, "alpha", &o.alpha, "a", 1e-12, 0.5, "significance level (default 0.01)"),
        SB_OPT_DOUBLE(0, "threshold", &o.threshold, "t", 0, 10,
                      "the floor of the smallest relative change of the median that counts (default 0.03)"),
        SB_OPT_STRING(0, "aa-db", &aa_path, "file", "take the A/A noise from the sessions of this database"),
        SB_OPT_STRING(0, "format", &fmt, "md|json", "the output format (default md)"),
        SB_OPT_STRING(0, "out", &out_path, "file", "write there instead of stdout"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "compare", options, compare_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    if (strcmp(fmt, "md") && strcmp(fmt, "json")) {
        sb_term_line(stderr, "solbook compare: --format must be md or json, not '%s'", fmt);
        return 2;
    }
    if (argc != 2) {
        fprintf(stderr, "solbook compare: give two selectors, A and B; see 'solbook compare --help'\n");
        return 2;
    }
    sb_error err;
    sb_error_clear(&err);
    sb_cmp_side a, b;
    if (sb_cmp_side_parse(argv[0], &a, &err) != SB_OK) {
        sb_term_line(stderr, "solbook compare: A %s", err.msg);
        return 2;
    }
    if (sb_cmp_side_parse(argv[1], &b, &err) != SB_OK) {
        sb_term_line(stderr, "solbook compare: B %s", err.msg);
        sb_cmp_side_free(&a);
        return 2;
    }
    sb_db *db = NULL, *aa_db = NULL;
    sb_result_set set = {0};
    sb_cmp_result r = {0};
    sb_rg_aa *aa = NULL;
    sb_run_devices dev = {0};
    sb_buf out = SB_BUF_INIT;
    sb_result_filter fs[2];
    /* the thresholds take the A/A runs of the sessions of --aa-db, else
     * of the compared database */
    sb_rg_opts ro = {o.alpha, o.threshold, NULL, 0, NULL};
    int rc = 2;
    if (sb_db_open_reader(db_path, &db, &err) != SB_OK ||
        (aa_path && sb_db_open_reader(aa_path, &aa_db, &err) != SB_OK) ||
        sb_results_load_any(db, fs, sb_cmp_filters(&f, &a, &b, fs), &set, &err) != SB_OK ||
        sb_site_rg_aa(aa_db ? aa_db : db, &ro, &aa, &err) != SB_OK ||
        sb_run_devices_load_set(db, &set, &dev, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (sb_cmp_pairs(&set, &a, &b, &o, aa, &dev, &r, &err) != SB_OK || judge_pairs(db, &r, &o, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (r.n == 0) {
        fprintf(stderr,
                "solbook compare: no case has a passing run on both sides (A matched %zu passing "
                "run(s), B %zu) in %s\n",
                r.runs_a, r.runs_b, db_path);
        goto done;
    }
    if (strcmp(fmt, "md") == 0)
        sb_cmp_render_md(&r, &a, &b, &o, &out);
    else if (sb_cmp_render_json(&r, &a, &b, &o, &out, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (sb_buf_failed(&out)) {
        fprintf(stderr, "solbook compare: out of memory\n");
        goto done;
    }
    if (out_path) {
        if (sb_file_write_buf(out_path, &out, &err) != SB_OK) {
            sb_error_print(&err, stderr);
            goto done;
        }
    } else {
        fwrite(sb_buf_str(&out), 1, out.len, stdout);
        if (fflush(stdout) != 0)
            goto done;
    }
    rc = r.counts[SB_CMP_SLOWER] ? 1 : 0;
    if (rc)
        fprintf(stderr, "solbook compare: %zu case(s) slower in B\n", r.counts[SB_CMP_SLOWER]);
done:
    sb_buf_free(&out);
    sb_cmp_free(&r);
    sb_rg_aa_free(aa);
    sb_run_devices_free(&dev);
    sb_results_free(&set);
    if (db)
        sb_db_close(db);
    sb_db_close(aa_db);
    sb_cmp_side_free(&a);
    sb_cmp_side_free(&b);
    return rc;
}
