/* cmd_noise.c - `solbook noise`: what A/A runs of measuring sessions say
 * about the noise of a comparison (report/sessions.h). */
#include <stdio.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "sessions.h"
#include "stats.h"
#include "session_query.h"

static const char *const noise_usage[] = {
    "solbook noise [<options>] [SESSION...]",
    "",
    "The noise of a comparison, from A/A runs: the same code measured twice.",
    "  same card, one session: a provider's two copies in one session (session.py",
    "    --aa), paired round by round, judged as `solbook session` judges a pair;",
    "  same card, two sessions: one provider's runs of one case in two sessions on",
    "    the same GPU, each side's round medians, Mann-Whitney at --alpha and",
    "    --unpaired-threshold;",
    "  two cards of one SKU: the same across two GPUs of one SKU.",
    "For each: the comparisons, how many were flagged (a false alarm: nothing",
    "changed), the 50th, 95th and 99th percentiles of |ratio - 1|, and the power:",
    "the share of comparisons that say slower when one side's samples are made",
    "2%, 3%, 5% or 10% slower. Every comparison is judged once more with a",
    "threshold of its case's own, held out: the larger of --threshold (paired) or",
    "--unpaired-threshold and 1.5 times the largest |ratio - 1| of the same case,",
    "provider and SKU on the same relation of cards in sessions other than its two.",
    "Comparisons where a run's held launch was let go in a round (the op waited on",
    "the host, so its kernel time holds the wait) have a held-out table of their own.",
    "",
    "Exit status: 0; 2 usage or database error, or no A/A comparison.",
    NULL,
};

/* The held-out table: the held launches (let_go 0) or the comparisons
 * where a hold was let go (1). */
static void held_table(const char *title, const sb_noise_report *r, int let_go)
{
    printf("| %s | comparisons | flagged | rate | power at 2%% | 3%% | 5%% | 10%% |\n", title);
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int k = 0; k < SB_NOISE_KINDS; k++) {
        const sb_noise_kind *nk = &r->kind[k];
        size_t n = let_go ? nk->let_go_n : nk->derived_n;
        size_t flagged = let_go ? nk->let_go_flagged : nk->derived_flagged;
        const size_t *detected = let_go ? nk->let_go_detected : nk->derived_detected;
        if (!n) {
            printf("| %s | 0 | - | - | - | - | - | - |\n", sb_noise_kind_name(k));
            continue;
        }
        printf("| %s | %zu | %zu | %.1f%% |", sb_noise_kind_name(k), n, flagged, 100.0 * (double)flagged / (double)n);
        for (int j = 0; j < 4; j++)
            printf(" %.0f%% |", 100.0 * (double)detected[j] / (double)n);
        printf("\n");
    }
}

int cmd_noise(int argc, char **argv)
{
    const char *db_path = sb_default_db_path();
    sb_noise_opts o = {0.95, 0.02, 0.01, 0.03};
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING(0, "db", &db_path, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_DOUBLE(0, "level", &o.level, "p", 0.5, 0.999, "confidence level of a paired interval (default 0.95)"),
        SB_OPT_DOUBLE(0, "threshold", &o.paired_threshold, "t", 0, 1,
                      "smallest change a paired verdict counts (default 0.02)"),
        SB_OPT_DOUBLE(0, "alpha", &o.alpha, "a", 1e-12, 0.5, "level of the unpaired tests (default 0.01)"),
        SB_OPT_DOUBLE(0, "unpaired-threshold", &o.unpaired_threshold, "t", 0, 1,
                      "smallest change an unpaired verdict counts (default 0.03)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "noise", options, noise_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    sb_error err;
    sb_error_clear(&err);
    sb_session_runs runs = {0};
    sb_noise_report r = {0};
    int rc = 2;
    if (sb_session_runs_read(db_path, (const char *const *)argv, (size_t)argc, &runs, &err) != SB_OK ||
        sb_noise_measure(&runs, &o, &r, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    size_t total = 0;
    for (int k = 0; k < SB_NOISE_KINDS; k++)
        total += r.kind[k].n;
    if (!total) {
        fprintf(stderr, "solbook noise: no A/A comparison in %s (%zu session runs)\n", db_path, runs.n);
        goto done;
    }
    printf("| A/A | comparisons | flagged | rate | p50 | p95 | p99 | power at 2%% | 3%% | 5%% | 10%% |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int k = 0; k < SB_NOISE_KINDS; k++) {
        const sb_noise_kind *nk = &r.kind[k];
        if (!nk->n) {
            printf("| %s | 0 | - | - | - | - | - | - | - | - | - |\n", sb_noise_kind_name(k));
            continue;
        }
        printf("| %s | %zu | %zu | %.1f%% | %.2f%% | %.2f%% | %.2f%% |", sb_noise_kind_name(k), nk->n, nk->flagged,
               100.0 * (double)nk->flagged / (double)nk->n, 100.0 * sb_quantile_sorted(nk->abs_change, nk->n, 0.5),
               100.0 * sb_quantile_sorted(nk->abs_change, nk->n, 0.95), 100.0 * sb_quantile_sorted(nk->abs_change, nk->n, 0.99));
        for (int j = 0; j < 4; j++)
            printf(" %.0f%% |", 100.0 * (double)nk->detected[j] / (double)nk->power_n);
        printf("\n");
    }
    printf("\nHeld out: each comparison judged with a threshold of its case's own, from the A/A\n"
           "comparisons of the same case, provider and SKU on the same relation of cards in\n"
           "sessions other than its two (the larger of the kind's threshold and 1.5 times the\n"
           "largest |ratio - 1| there).\n\n");
    held_table("A/A, held-out threshold", &r, 0);
    printf("\nHeld out as above, the comparisons where a run's held launch was let go in a\n"
           "round (the op waited on the host, so its kernel time holds that wait):\n\n");
    held_table("A/A, held-out, hold let go", &r, 1);
    printf("\npaired: a %.0f%% interval and a %.1f%% threshold; unpaired: Mann-Whitney at %g and a %.1f%% threshold\n",
           o.level * 100.0, o.paired_threshold * 100.0, o.alpha, o.unpaired_threshold * 100.0);
    rc = fflush(stdout) == 0 ? 0 : 2;
done:
    sb_noise_report_free(&r);
    sb_session_runs_free(&runs);
    return rc;
}
