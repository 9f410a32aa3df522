/* cmd_confirm.c - `solbook confirm`: the commands that measure a flagged
 * regression again as a paired comparison, both commits on one card
 * (report/regress.h says how the stored pair then confirms or refutes
 * it). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "encode.h"
#include "error.h"
#include "home.h"
#include "regress.h"
#include "repro.h"
#include "results.h"
#include "results_query.h"
#include "site_rg.h"
#include "strbuf.h"
#include "term.h"

static const char *const confirm_usage[] = {
    "solbook confirm [<options>] [RUN|CASE...]",
    "",
    "Prints the shell commands that measure flagged regressions again as a",
    "paired comparison: the old and the new commit built side by side and",
    "measured in turn on one card, in suite " SB_RG_CONFIRM_SUITE ", then stored.",
    "Runs of solbench go through bench/scripts/ab_compare.sh (case by case,",
    "old, new, old, new) with the protocol of the flagged runs; runs of",
    "session.py through sessions of each build in turn on one --device (20",
    "rounds of fresh inputs, the protocol whose A/A power docs/SESSIONS.md",
    "gives). Once",
    "the runs are stored, `solbook report regressions` marks the regression",
    "confirmed (the pair is a regression at --min-effect) or refuted.",
    "",
    "RUN: the new run of a flagged step (the 'new run' column of",
    "report regressions --history); CASE: a case_key (report regressions",
    "--format json), for its flagged steps at the newest commit. Without",
    "arguments: every regression report regressions counts.",
    "",
    "Exit status: 0 commands printed (or nothing to confirm); 2 usage or",
    "database error, or an argument that names no flagged step.",
    NULL,
};

typedef struct confirm_opts {
    const char *db, *out;
    int device;
    sb_rg_opts rg;
} confirm_opts;

static int flagged(const sb_rg_row *r)
{
    return r->old_run &&
           (r->verdict == SB_RG_REGRESSION || r->verdict == SB_RG_NOW_FAILING ||
            r->verdict == SB_RG_IMPROVEMENT);
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* The solbench arguments of run r without the program, the suite and the
 * output (ab_compare.sh adds its own): sb_repro_case's line cut down.
 * A run solbench cannot be given again (a parameter whose name is no
 * option) leaves out alone and gets in why the comment line that says
 * so: one such run is no reason to list no step at all. */
static int solbench_args(const sb_repro *rp, const sb_result *r, sb_buf *out, sb_buf *why, sb_error *err)
{
    sb_buf line = SB_BUF_INIT;
    if (sb_repro_case(rp, r, &line, err) != SB_OK) {
        sb_buf_free(&line);
        return SB_ERR;
    }
    const char *s = sb_buf_str(&line);
    const char *prog = "solbench ", *tail = " --out results/";
    size_t len = strlen(s), tl = strlen(tail);
    if (strncmp(s, prog, strlen(prog)) != 0 || len < tl || strcmp(s + len - tl, tail) != 0) {
        if (s[0] == '#') /* sb_repro_case's comment, its text encoded */
            sb_buf_puts(why, s);
        else
            sb_buf_printf(why, "# run %lld: no solbench command line to repeat", r->run_id);
        sb_buf_free(&line);
        return SB_OK;
    }
    const char *b = s + strlen(prog), *e = s + len - tl;
    /* ab_compare.sh splits a case's line at spaces and expands its words
     * as file patterns, quotes or no quotes: a word that needed quoting
     * (a value with a space, a quote or a pattern character) would reach
     * solbench as several, a value such as "x --calibration FILE" as an
     * option of its own */
    if (memchr(b, '\'', (size_t)(e - b))) {
        sb_buf_printf(why,
                      "# run %lld is not re-measured: a value of its case needs shell quoting, which "
                      "bench/scripts/ab_compare.sh does not read (it splits a case's line at spaces)",
                      r->run_id);
        sb_buf_free(&line);
        return SB_OK;
    }
    const char *suite = strstr(b, " --suite=");
    if (suite && suite < e) {
        const char *after = suite + strlen(" --suite=");
        if (*after == '\'') {
            after = strchr(after + 1, '\'');
            after = after ? after + 1 : e;
        }
        while (after < e && *after != ' ')
            after++;
        sb_buf_printf(out, "%.*s%.*s", (int)(suite - b), b, (int)(e - after), after);
    } else {
        sb_buf_printf(out, "%.*s", (int)(e - b), b);
    }
    sb_buf_free(&line);
    return SB_OK;
}

static void word(sb_buf *b, const char *s)
{
    sb_buf_puts(b, " ");
    sb_enc_shell_arg(b, s);
}

static int commands_for(const confirm_opts *o, const sb_repro *rp, const sb_rg_row *r, const char *os,
                        const char *ns, const char *dir, const char *bo, const char *bn, sb_buf *b,
                        sb_error *err);

/* The commands for one flagged step into b. */
static int commands(const confirm_opts *o, const sb_repro *rp, const sb_rg_row *r, sb_buf *b,
                    sb_error *err)
{
    const sb_result *n = r->new_run, *old = r->old_run;
    char os[13], ns[13];
    snprintf(os, sizeof os, "%.12s", old->git_sha);
    snprintf(ns, sizeof ns, "%.12s", n->git_sha);
    /* --out is the user's text of any length: the names are built whole and
     * every one goes out as one shell word */
    sb_buf dirb = SB_BUF_INIT, bob = SB_BUF_INIT, bnb = SB_BUF_INIT;
    sb_buf_printf(&dirb, "%s-%s-%s", o->out, os, ns);
    sb_buf_printf(&bob, "%s-build-%s", o->out, os);
    sb_buf_printf(&bnb, "%s-build-%s", o->out, ns);
    int rc = commands_for(o, rp, r, os, ns, sb_buf_str(&dirb), sb_buf_str(&bob), sb_buf_str(&bnb), b, err);
    sb_buf_free(&dirb);
    sb_buf_free(&bob);
    sb_buf_free(&bnb);
    return rc;
}

static int commands_for(const confirm_opts *o, const sb_repro *rp, const sb_rg_row *r, const char *os,
                        const char *ns, const char *dir, const char *bo, const char *bn, sb_buf *b,
                        sb_error *err)
{
    const sb_result *n = r->new_run, *old = r->old_run;
    sb_buf head = SB_BUF_INIT;
    sb_buf_printf(&head, "%s %s %s %s, %s on %s: %s", n->op, n->mode, n->dtype, n->shape_key,
                  n->provider, n->sku, sb_rg_verdict_name(r->verdict));
    if (!isnan(r->rel_change))
        sb_buf_printf(&head, " %+.1f%% (threshold %.1f%%, %s)", r->rel_change * 100.0,
                      r->threshold * 100.0,
                      r->same_card == 1 ? "one card" : r->same_card == 0 ? "two cards" : "cards not recorded");
    sb_buf_printf(&head, ", commits %s..%s, runs %lld -> %lld; %s; paired re-measure: %s", os, ns,
                  old->run_id, n->run_id, sb_rg_cause_name(r->cause), sb_rg_confirm_name(r->confirm));
    sb_buf_puts(b, "# ");
    sb_enc_shell_comment(b, sb_buf_str(&head), 0);
    sb_buf_puts(b, "\n");
    sb_buf_free(&head);
    int solbench = strcmp(n->tool_name, "solbench") == 0 && strcmp(old->tool_name, "solbench") == 0;
    int session = strcmp(n->tool_name, "session.py") == 0 && strcmp(old->tool_name, "session.py") == 0;
    if (!solbench && !session) {
        sb_buf_puts(b, "# ");
        sb_buf tmp = SB_BUF_INIT;
        sb_buf_printf(&tmp, "measured by %s: not built from the project's commits, so no paired "
                            "re-measure of two commits applies",
                      n->tool_name);
        sb_enc_shell_comment(b, sb_buf_str(&tmp), 0);
        sb_buf_free(&tmp);
        sb_buf_puts(b, "\n\n");
        return SB_OK;
    }
    sb_buf args = SB_BUF_INIT;
    if (solbench) {
        sb_buf why = SB_BUF_INIT;
        sb_buf_puts(&args, "= ");
        int rc = solbench_args(rp, n, &args, &why, err);
        if (rc == SB_OK && why.len) {
            sb_buf_puts(b, sb_buf_str(&why));
            sb_buf_puts(b, "\n\n");
        }
        int done = rc != SB_OK || why.len;
        sb_buf_free(&why);
        if (done) {
            sb_buf_free(&args);
            return rc;
        }
    }
    /* a checkout and build of each commit */
    const char *shas[2] = {old->git_sha, n->git_sha}, *builds[2] = {bo, bn};
    for (int k = 0; k < 2; k++) {
        sb_buf_puts(b, "git worktree add");
        word(b, builds[k]);
        word(b, shas[k]);
        sb_buf_puts(b, "\ncmake -S");
        word(b, builds[k]);
        sb_buf_puts(b, " -B");
        sb_buf tmp = SB_BUF_INIT;
        sb_buf_printf(&tmp, "%s/build", builds[k]);
        word(b, sb_buf_str(&tmp));
        sb_buf_puts(b, " -DCMAKE_BUILD_TYPE=Release && cmake --build");
        word(b, sb_buf_str(&tmp));
        sb_buf_puts(b, solbench ? " --target solbench\n" : " --target solbench sbk_fused\n");
        sb_buf_free(&tmp);
    }
    if (solbench) {
        sb_buf_puts(b, "printf '%s\\n'");
        word(b, sb_buf_str(&args));
        sb_buf_free(&args);
        sb_buf_printf(b, " | CUDA_VISIBLE_DEVICES=%d AB_BASE_GIT_SHA=", o->device);
        sb_enc_shell_arg(b, old->git_sha);
        sb_buf_puts(b, " SOLBOOK_GIT_SHA=");
        sb_enc_shell_arg(b, n->git_sha);
        sb_buf_puts(b, " bench/scripts/ab_compare.sh");
        for (int k = 0; k < 2; k++) {
            sb_buf prog = SB_BUF_INIT;
            sb_buf_printf(&prog, "%s/build/bench/solbench", builds[k]);
            word(b, sb_buf_str(&prog));
            sb_buf_free(&prog);
        }
        word(b, dir);
        sb_buf_puts(b, "\n");
    } else {
        /* session.py measures one build a session: the two builds in turn,
         * twice, on one card. Twenty rounds of fresh inputs is the protocol
         * whose A/A sessions catch a 10% step between two sessions on one
         * card in every held-out comparison (docs/SESSIONS.md); ten rounds
         * miss it where a case's rounds scatter by 6%. */
        sb_buf c = SB_BUF_INIT;
        sb_buf_printf(&c, "%s:%s:%s:%s", n->op, n->mode, n->dtype, n->shape_key);
        for (int round = 0; round < 4; round++) {
            const char *build = builds[round % 2];
            sb_buf tmp = SB_BUF_INIT;
            sb_buf_puts(b, "python3 bench/scripts/session.py --solbench");
            sb_buf_printf(&tmp, "%s/build/bench/solbench", build);
            word(b, sb_buf_str(&tmp));
            sb_buf_puts(b, " --case");
            word(b, sb_buf_str(&c));
            sb_buf_puts(b, " --providers");
            word(b, n->provider);
            sb_buf_printf(b, " --rounds 20 --fresh-inputs --suite %s --device %d --out", SB_RG_CONFIRM_SUITE,
                          o->device);
            sb_buf_reset(&tmp);
            sb_buf_printf(&tmp, "%s/%s-%d", dir, round % 2 ? "new" : "base", round / 2);
            word(b, sb_buf_str(&tmp));
            sb_buf_puts(b, "\n");
            sb_buf_free(&tmp);
        }
        sb_buf_free(&c);
    }
    sb_buf_puts(b, "solbook ingest --db");
    word(b, o->db);
    word(b, dir);
    sb_buf_puts(b, "\nsolbook report regressions --db");
    word(b, o->db);
    sb_buf_puts(b, "\n\n");
    return SB_OK;
}

int cmd_confirm(int argc, char **argv)
{
    confirm_opts o = {sb_default_db_path(), "ab", 0, {0.01, 0.03, NULL, 0, NULL}};
    int exit_status;
    const sb_option options[] = {
        SB_OPT_STRING(0, "db", &o.db, "file", "database (default: $SOLBOOK_DB, else ./solbook.db)"),
        SB_OPT_DOUBLE(0, "alpha", &o.rg.alpha, "a", 1e-12, 0.5,
                      "significance level, as report regressions (default 0.01)"),
        SB_OPT_DOUBLE(0, "min-effect", &o.rg.min_effect, "e", 0, 10,
                      "smallest relative change that counts, as report regressions\n(default 0.03)"),
        SB_OPT_INT(0, "device", &o.device, "n", 0, 255, "the one card both commits run on (default 0)"),
        SB_OPT_STRING(0, "out", &o.out, "prefix",
                      "names of the checkouts and result folders the commands make\n(default ab)"),
        SB_OPT_END(),
    };
    argc = sb_cli_parse_options(argc, argv, "confirm", options, confirm_usage, 0, &exit_status);
    if (argc < 0)
        return exit_status;
    for (int i = 0; i < argc; i++)
        if (!argv[i][0]) {
            fprintf(stderr, "solbook confirm: an empty argument names no run and no case\n");
            return 2;
        }
    sb_error err;
    sb_error_clear(&err);
    sb_db *db = NULL;
    sb_result_set set = {0};
    sb_rg_list rg = {0};
    sb_rg_aa *aa = NULL;
    sb_repro *rp = NULL;
    sb_buf b = SB_BUF_INIT;
    int rc = 2;
    if (sb_db_open_reader(o.db, &db, &err) != SB_OK || sb_results_load(db, NULL, &set, &err) != SB_OK ||
        sb_site_rg_aa(db, &o.rg, &aa, &err) != SB_OK ||
        sb_site_rg_history(db, &set, NULL, &o.rg, aa, &rg, &err) != SB_OK || sb_repro_open(&rp, &err) != SB_OK) {
        sb_error_print(&err, stderr);
        goto done;
    }
    size_t shown = 0;
    if (argc == 0) {
        for (size_t i = 0; i < rg.n; i++)
            if (sb_rg_counts(&rg.v[i]) && rg.v[i].old_run) {
                if (commands(&o, rp, &rg.v[i], &b, &err) != SB_OK) {
                    sb_error_print(&err, stderr);
                    goto done;
                }
                shown++;
            }
    }
    for (int a = 0; a < argc; a++) {
        int by_run = all_digits(argv[a]);
        long long id = by_run ? strtoll(argv[a], NULL, 10) : -1;
        size_t found = 0;
        for (size_t i = 0; i < rg.n; i++) {
            const sb_rg_row *r = &rg.v[i];
            if (!flagged(r) || (by_run ? r->new_run->run_id != id
                                       : !r->latest || strcmp(r->new_run->case_key, argv[a]) != 0))
                continue;
            if (commands(&o, rp, r, &b, &err) != SB_OK) {
                sb_error_print(&err, stderr);
                goto done;
            }
            found++;
        }
        if (!found) {
            sb_term_line(stderr,
                         "solbook confirm: %s names no flagged step (report regressions "
                         "--history lists them)",
                         argv[a]);
            goto done;
        }
        shown += found;
    }
    if (!shown)
        fprintf(stderr, "solbook confirm: no regression of the project's kernels to confirm\n");
    if (sb_buf_failed(&b)) {
        fprintf(stderr, "solbook confirm: out of memory\n");
        goto done;
    }
    fputs(sb_buf_str(&b), stdout);
    rc = fflush(stdout) == 0 ? 0 : 2;
done:
    sb_buf_free(&b);
    sb_repro_close(rp);
    sb_rg_free(&rg);
    sb_rg_aa_free(aa);
    sb_results_free(&set);
    sb_db_close(db);
    return rc;
}
