/* plausible_mark.c - times what a report spends on plausibility: the
 * marks of every result run (sb_plaus_mark over sb_results_load, as the
 * weekly and geomean call it), the marks of every measuring session's
 * runs (sb_plaus_mark_sessions) and the listing of report plausibility
 * (sb_plaus_render_md over the newest runs), on the database given.
 * Prints the runs marked implausible and the median, lowest and highest
 * CPU time of 5 runs of each. Run by perf/plausible_mark.sh, with and
 * without stored verdicts that hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "plaus_snap_db.h"
#include "results_query.h"
#include "session_query.h"
#include "plausible.h"
#include "plausible_render.h"
#include "site_plaus.h"
#include "results.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"

#define ROUNDS 5

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void print_times(const char *what, const double *t, size_t flagged)
{
    double lo = t[0], hi = t[0];
    for (int r = 1; r < ROUNDS; r++) {
        lo = fmin(lo, t[r]);
        hi = fmax(hi, t[r]);
    }
    printf("%s: %zu implausible; CPU median of %d runs %.4f s (min %.4f, max %.4f)\n", what, flagged, ROUNDS,
           sb_median(t, ROUNDS), lo, hi);
}

static int run(sb_db *db, sb_error *e)
{
    sb_result_set set = {0};
    sb_session_runs sess = {0};
    double t[ROUNDS];
    size_t flagged = 0;
    if (sb_results_load(db, NULL, &set, e) != SB_OK)
        return SB_ERR;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = cpu_now();
        if (sb_site_plaus_mark(db, &set, e) != SB_OK) {
            sb_results_free(&set);
            return SB_ERR;
        }
        t[r] = cpu_now() - t0;
    }
    for (size_t i = 0; i < set.n; i++)
        flagged += set.v[i].implausible != 0;
    printf("%zu result runs\n", set.n);
    print_times("sb_plaus_mark, every result run", t, flagged);

    int rc = sb_session_runs_load(db, NULL, 0, &sess, e);
    for (int r = 0; rc == SB_OK && r < ROUNDS; r++) {
        double t0 = cpu_now();
        char tables[65];
        sb_plaus_snap snap;
        rc = sb_plaus_tables_sha256(NULL, NULL, tables, e);
        if (rc == SB_OK && (rc = sb_plaus_snap_read_sessions(db, tables, &sess, &snap, e)) == SB_OK) {
            rc = sb_plaus_mark_sessions(&snap, &sess, e);
            sb_plaus_snap_free(&snap);
        }
        t[r] = cpu_now() - t0;
    }
    flagged = 0;
    for (size_t i = 0; rc == SB_OK && i < sess.n; i++)
        flagged += sess.v[i].implausible != 0;
    if (rc == SB_OK) {
        printf("%zu session runs\n", sess.n);
        print_times("sb_plaus_mark_sessions", t, flagged);
    }
    sb_session_runs_free(&sess);

    sb_pick *picks = NULL;
    size_t np = 0;
    if (rc == SB_OK)
        rc = sb_picks_latest(&set, &picks, &np, e);
    for (int r = 0; rc == SB_OK && r < ROUNDS; r++) {
        sb_buf out = SB_BUF_INIT;
        sb_plaus_summary sum;
        double t0 = cpu_now();
        sb_plaus_snap snap;
        rc = sb_site_plaus_snap_listing(db, picks, np, NULL, &snap, e);
        if (rc == SB_OK) {
            rc = sb_plaus_render_md(&snap, picks, np, NULL, "#", &out, &sum, e);
            sb_plaus_snap_free(&snap);
        }
        t[r] = cpu_now() - t0;
        flagged = sum.implausible;
        sb_buf_free(&out);
    }
    if (rc == SB_OK)
        print_times("sb_plaus_render_md, the newest run of each case", t, flagged);
    free(picks);
    sb_results_free(&set);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: perf_plausible_mark DB\n");
        return 2;
    }
    sb_db *db = NULL;
    sb_error e;
    sb_error_clear(&e);
    if (sb_db_open(argv[1], SB_DB_READ, &db, &e) != SB_OK || run(db, &e) != SB_OK) {
        sb_error_print(&e, stderr);
        sb_db_close(db);
        return 2;
    }
    sb_db_close(db);
    return 0;
}
