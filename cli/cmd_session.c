/* cmd_session.c - `solbook session`: the paired speedups of one provider
 * over the others, from measuring sessions (report/sessions.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "site_plaus.h"
#include "plausible.h"
#include "sessions.h"
#include "session_query.h"

static const char *const session_usage[] = {
    "solbook session [<options>] [SESSION...]",
    "",
    "Speedups of one provider (--target, default fused) over every other provider",
    "measured in the same session (bench/scripts/session.py): per case, the",
    "geometric mean over the rounds of base time / target time taken within each",
    "round (kernel time, held launch), with its confidence interval; per op, SKU",
    "and baseline, the geometric mean over the cases of the newest session that",
    "measured each, the worst case, and the cases the target wins and loses.",
    "Call time is shown beside kernel time, never mixed with it.",
    "A case is a win or a loss only past its threshold: the larger of --threshold",
    "and 1.5 times the 95th percentile of the A/A changes of either provider of",
    "that case on that GPU (session.py --aa), else of all the GPU's A/A changes;",
    "within it the verdict is same or unclear.",
    "Runs of different GPUs, timing methods or correctness checks are never paired.",
    "",
    "SESSION: a session id or a prefix of one (default: every session).",
    "",
    "Exit status: 0; 2 usage or database error, or no pair.",
    NULL,
};

static void print_groups(const sb_session_report *r, const char *target, double level)
{
    printf("| op | SKU | %s over | cases | geomean speedup | %.0f%% interval | worst case | worst | wins | losses |\n",
           target, level * 100.0);
    printf("| --- | --- | --- | ---: | ---: | --- | --- | ---: | ---: | ---: |\n");
    for (size_t g = 0; g < r->ngroups; g++) {
        const sb_session_group *gr = &r->groups[g];
        const sb_session_pair *w = &r->pairs[gr->worst];
        printf("| %s | %s | %s | %zu | %.3fx | %.3f-%.3f | %s %s %s | %.3fx | %zu | %zu |\n", gr->op, gr->sku,
               gr->baseline, gr->count, gr->geomean.ratio, gr->geomean.lo, gr->geomean.hi, w->target->mode,
               w->target->dtype, w->target->shape_key, w->kernel.ratio, gr->wins, gr->losses);
    }
}

static void print_cases(const sb_session_report *r, const char *target)
{
    printf("\n| case | SKU | over | %s ms | base ms | speedup (kernel) | interval | speedup (call) | session | "
           "threshold | verdict |\n",
           target);
    printf("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | --- | ---: | --- |\n");
    for (size_t g = 0; g < r->ngroups; g++)
        for (size_t c = 0; c < r->groups[g].count; c++) {
            const sb_session_pair *p = &r->pairs[r->groups[g].pair[c]];
            char call[32] = "-";
            if (p->has_call)
                snprintf(call, sizeof call, "%.3fx", p->call.ratio);
            printf("| %s %s %s %s | %s | %s | %.4f | %.4f | %.3fx | %.3f-%.3f | %s | %.8s | %.1f%% %s | %s |\n",
                   p->target->op, p->target->mode, p->target->dtype, p->target->shape_key, p->target->sku,
                   p->base->provider, p->target_ms, p->base_ms, p->kernel.ratio, p->kernel.lo, p->kernel.hi, call,
                   p->target->session_id, 100.0 * p->threshold, p->aa_cases ? "case A/A" : "GPU A/A",
                   sb_verdict_one[p->verdict]);
        }
}

int cmd_session(int argc, char **argv)
{
    const char *db_path = sb_default_db_path(), *target = "fused";
    double level = 0.95, floor = 0.02;
    int cases = 0, exit_status;
    const sb_option options[] = {
        SB_OPT_STRING(0, "db", &db_path, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_STRING(0, "target", &target, "provider", "the provider whose speedups are shown (default fused)"),
        SB_OPT_DOUBLE(0, "level", &level, "p", 0.5, 0.999, "confidence level of the intervals (default 0.95)"),
        SB_OPT_DOUBLE(0, "threshold", &floor, "t", 0, 1,
                      "smallest change a verdict counts where the A/A runs allow less (default 0.02)"),
        SB_OPT_BOOL(0, "cases", &cases, "every case's paired speedup too"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "session", options, session_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    /* an empty prefix would name every session */
    for (int i = 0; i < argc; i++)
        if (!argv[i][0]) {
            fprintf(stderr, "solbook session: an empty SESSION names no session (give an id or a prefix of one)\n");
            return 2;
        }
    sb_error err;
    sb_error_clear(&err);
    sb_session_runs runs = {0};
    sb_session_report r = {0};
    int rc = 2;
    sb_db *db = NULL;
    if (sb_db_open(db_path, SB_DB_READ, &db, &err) != SB_OK ||
        sb_site_plaus_session_runs(db, (const char *const *)argv, (size_t)argc, NULL, &runs, &err) != SB_OK ||
        sb_session_compare(&runs, target, level, floor, &r, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (r.npairs == 0) {
        fprintf(stderr, "solbook session: no session in %s pairs %s with another provider (%zu session runs)\n",
                db_path, target, runs.n);
        goto done;
    }
    printf("# Paired speedups of %s (kernel time: held launch; speedup = base time / %s time, round by round)\n\n",
           target, target);
    print_groups(&r, target, level);
    if (cases)
        print_cases(&r, target);
    if (r.refused)
        printf("\n%zu pair(s) left out as not like with like; the first: %s\n", r.refused, r.first_refusal);
    if (r.implausible)
        printf("\n%zu pair(s) left out: a side ran faster than its card's ceilings allow (solbook report "
               "plausibility lists the run)\n",
               r.implausible);
    rc = fflush(stdout) == 0 ? 0 : 2;
done:
    sb_session_report_free(&r);
    sb_session_runs_free(&runs);
    if (db)
        sb_db_close(db);
    return rc;
}
