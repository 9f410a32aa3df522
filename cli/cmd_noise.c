/* cmd_noise.c - `solbook noise`: what A/A runs of measuring sessions say
 * about the noise of a comparison (report/sessions.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "home.h"
#include "sessions.h"
#include "stats.h"
#include "regress.h"
#include "session_query.h"
#include "term.h"

static const char *const noise_usage[] = {
    "solbook noise [<options>] [--misses] [--input-sets N] [SESSION...]",
    "",
    "The noise of a comparison, from A/A runs: the same code measured twice.",
    "  same card, one session: a provider's two copies in one session (session.py",
    "    --aa), paired round by round, judged as `solbook session` judges a pair;",
    "  same card, two sessions: one provider's runs of one case in two sessions on",
    "    the same GPU, each side's round medians, Mann-Whitney at --alpha and",
    "    --unpaired-threshold;",
    "  two cards of one SKU: the same across two GPUs of one SKU.",
    "Runs are compared only under one timing method, check and protocol of inputs",
    "(session.py --fresh-inputs is a protocol of its own).",
    "For each: the comparisons, how many were flagged (a false alarm: nothing",
    "changed), the 50th, 95th and 99th percentiles of |ratio - 1|, and the power:",
    "the share of comparisons that say slower when one side's samples are made",
    "2%, 3%, 5% or 10% slower. Every comparison is judged once more with a",
    "threshold of its case's own, held out: the larger of --threshold (paired) or",
    "--unpaired-threshold and 1.5 times the 95th percentile of |ratio - 1| of the",
    "same case, provider and SKU on the same relation of cards in sessions other",
    "than its two. Comparisons where a run's held launch was let go in a round (the",
    "op waited on the host, so its kernel time holds the wait) have a held-out table",
    "of their own. Then each SKU's cross-card noise by hold, as `report",
    "regressions` takes it for a step with no A/A runs of its case.",
    "--misses lists instead each held-out comparison a 5% or 10% slowdown is not",
    "caught in: its case, threshold, its own A/A ratio and its rounds' spread.",
    "--input-sets N judges only the sessions whose runs had N sets of inputs",
    "(protocol.input_sets: 1 for one set, the rounds with --fresh-inputs), so",
    "one protocol's thresholds are held out of its own sessions alone.",
    "",
    "Exit status: 0; 2 usage or database error, or no A/A comparison.",
    NULL,
};

/* The sessions among runs (their ids, *n of them, pointing into runs)
 * whose runs had input_sets sets of inputs: a session is one protocol,
 * so its first run says. */
static const char **sessions_of_protocol(const sb_session_runs *runs, int input_sets, size_t *n)
{
    const char **ids = malloc((runs->n ? runs->n : 1) * sizeof *ids);
    *n = 0;
    if (!ids)
        return NULL;
    for (size_t i = 0; i < runs->n; i++) {
        const sb_session_run *r = &runs->v[i];
        if (r->input_sets != input_sets)
            continue;
        size_t k = 0;
        while (k < *n && strcmp(ids[k], r->session_id) != 0)
            k++;
        if (k == *n)
            ids[(*n)++] = r->session_id;
    }
    return ids;
}

/* Each SKU's cross-card A/A change by hold (sb_noise_sku_change) and
 * the threshold 1.5 times it. */
static int sku_table(const sb_noise_report *r, sb_error *err)
{
    printf("| cross-card A/A of one SKU | hold | comparisons | p95 | threshold |\n");
    printf("| --- | --- | ---: | ---: | ---: |\n");
    for (size_t i = 0; i < r->ncmp; i++) {
        const char *sku = r->cmp[i].a->sku;
        int first = r->cmp[i].kind == SB_NOISE_SKU;
        for (size_t j = 0; j < i && first; j++)
            first = !(r->cmp[j].kind == SB_NOISE_SKU && strcmp(r->cmp[j].a->sku, sku) == 0);
        if (!first)
            continue;
        for (int let_go = 0; let_go <= 1; let_go++) {
            double change;
            size_t n;
            if (sb_noise_sku_change(r, sku, let_go, &change, &n, err) != SB_OK)
                return SB_ERR;
            if (n)
                sb_term_line(stdout, "| %s | %s | %zu | %.2f%% | %.2f%% |", sku, let_go ? "let go" : "held", n,
                             100.0 * change, 100.0 * sb_aa_threshold(change, 0.0));
        }
    }
    return SB_OK;
}

/* Why a slowdown by shift was not caught in c: the threshold is at the
 * shift or above (0), the comparison's own A/A ratio, below 1, keeps the
 * slowed ratio under the threshold (1), or the test does not reject (2). */
static int miss_reason(const sb_noise_cmp *c, double shift)
{
    if (c->threshold >= shift)
        return 0;
    return c->ratio * (1.0 + shift) <= 1.0 + c->threshold ? 1 : 2;
}

static const char *const miss_reasons[3] = {"threshold at or above the shift",
                                            "A/A ratio below 1 keeps it under the threshold",
                                            "the test does not reject"};

/* Every held-out comparison that a 5% or a 10% slowdown of its later side
 * is not caught in, with what decides it: the threshold against the
 * comparison's own A/A ratio and the spread of each side's round medians
 * (their standard deviation over their mean); then the misses counted by
 * reason, held launches apart. */
static void misses_table(const sb_noise_report *r)
{
    printf("| relation | hold | case | provider | SKU | sessions | threshold | from | A/A ratio | "
           "rounds' spread | missed at | why (the larger shift missed) |\n");
    printf("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- | --- | --- |\n");
    /* by hold (held, let go), shift (5%, 10%) and reason */
    size_t missed[2][2][3] = {{{0}}}, judged[2] = {0, 0};
    for (size_t i = 0; i < r->ncmp; i++) {
        const sb_noise_cmp *c = &r->cmp[i];
        if (isnan(c->threshold))
            continue;
        judged[c->let_go]++;
        for (int j = 0; j < 2; j++)
            if (!c->detected[2 + j])
                missed[c->let_go][j][miss_reason(c, sb_noise_shifts[2 + j])]++;
        if (c->detected[2] && c->detected[3])
            continue;
        const char *at = !c->detected[2] && !c->detected[3] ? "5%, 10%" : !c->detected[2] ? "5%" : "10%";
        int why = miss_reason(c, sb_noise_shifts[c->detected[3] ? 2 : 3]);
        sb_term_line(stdout, "| %s | %s | %s %s %s %s | %s | %s | %.8s %.8s | %.1f%% | %zu | %.3f | %.1f%%, %.1f%% | %s | %s |",
                     sb_noise_kind_name(c->kind), c->let_go ? "let go" : "held", c->a->op, c->a->mode, c->a->dtype,
                     c->a->shape_key, c->a->provider, c->a->sku, c->a->session_id, c->b->session_id,
                     100.0 * c->threshold, c->held_out, c->ratio, 100.0 * c->spread_a, 100.0 * c->spread_b, at,
                     miss_reasons[why]);
    }
    printf("\n");
    for (int h = 0; h <= 1; h++)
        for (int j = 0; j < 2; j++)
            printf("%s: of %zu held-out comparisons a %.0f%% slowdown is missed in %zu: %s %zu, %s %zu, %s %zu.\n",
                   h ? "A hold let go" : "Held launches", judged[h], 100.0 * sb_noise_shifts[2 + j],
                   missed[h][j][0] + missed[h][j][1] + missed[h][j][2], miss_reasons[0], missed[h][j][0],
                   miss_reasons[1], missed[h][j][1], miss_reasons[2], missed[h][j][2]);
}

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
    int misses = 0, input_sets = 0;
    const sb_option options[] = {
        SB_OPT_STRING(0, "db", &db_path, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_DOUBLE(0, "level", &o.level, "p", 0.5, 0.999, "confidence level of a paired interval (default 0.95)"),
        SB_OPT_DOUBLE(0, "threshold", &o.paired_threshold, "t", 0, 1,
                      "smallest change a paired verdict counts (default 0.02)"),
        SB_OPT_DOUBLE(0, "alpha", &o.alpha, "a", 1e-12, 0.5, "level of the unpaired tests (default 0.01)"),
        SB_OPT_DOUBLE(0, "unpaired-threshold", &o.unpaired_threshold, "t", 0, 1,
                      "smallest change an unpaired verdict counts (default 0.03)"),
        SB_OPT_BOOL(0, "misses", &misses,
                    "list the held-out comparisons a 5% or 10% slowdown is not caught in, and why"),
        SB_OPT_INT(0, "input-sets", &input_sets, "n", 1, 1000000,
                   "only the sessions whose runs had n sets of inputs (one protocol)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "noise", options, noise_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    /* an empty prefix would name every session */
    for (int i = 0; i < argc; i++)
        if (!argv[i][0]) {
            fprintf(stderr, "solbook noise: an empty SESSION names no session (give an id or a prefix of one)\n");
            return 2;
        }
    sb_error err;
    sb_error_clear(&err);
    sb_session_runs runs = {0};
    sb_noise_report r = {0};
    int rc = 2;
    if (sb_session_runs_read(db_path, (const char *const *)argv, (size_t)argc, &runs, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    if (input_sets) {
        /* read again, the sessions of that protocol alone */
        size_t n = 0;
        const char **ids = sessions_of_protocol(&runs, input_sets, &n);
        sb_session_runs all = runs;
        memset(&runs, 0, sizeof runs);
        int read = !ids ? sb_error_set(&err, NULL, NULL, "out of memory")
                   : !n ? sb_error_set(&err, db_path, NULL, "no session whose runs had %d sets of inputs", input_sets)
                        : sb_session_runs_read(db_path, ids, n, &runs, &err);
        free(ids);
        sb_session_runs_free(&all);
        if (read != SB_OK) {
            sb_error_print(&err, stderr);
            goto done;
        }
    }
    if (sb_noise_measure(&runs, &o, &r, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    size_t total = 0;
    for (int k = 0; k < SB_NOISE_KINDS; k++)
        total += r.kind[k].n;
    if (!total) {
        sb_term_line(stderr, "solbook noise: no A/A comparison in %s (%zu session runs)", db_path, runs.n);
        goto done;
    }
    if (misses) {
        misses_table(&r);
        rc = fflush(stdout) == 0 ? 0 : 2;
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
           "95th percentile of |ratio - 1| there).\n\n");
    held_table("A/A, held-out threshold", &r, 0);
    printf("\nHeld out as above, the comparisons where a run's held launch was let go in a\n"
           "round (the op waited on the host, so its kernel time holds that wait):\n\n");
    held_table("A/A, held-out, hold let go", &r, 1);
    printf("\nThe noise across two cards of one SKU by hold, the threshold of a step there with no\n"
           "A/A runs of its case (`report regressions`: at least %d comparisons):\n\n",
           SB_RG_AA_MIN_COMPARISONS);
    if (sku_table(&r, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    printf("\npaired: a %.0f%% interval and a %.1f%% threshold; unpaired: Mann-Whitney at %g and a %.1f%% threshold\n",
           o.level * 100.0, o.paired_threshold * 100.0, o.alpha, o.unpaired_threshold * 100.0);
    rc = fflush(stdout) == 0 ? 0 : 2;
done:
    sb_noise_report_free(&r);
    sb_session_runs_free(&runs);
    return rc;
}
