/* write_regress_fixture.c - writes the database cli_regressions.sh reads:
 * one rmsnorm case on h100 at three commits a, b, c (in git order, the
 * file commits.txt beside the database), 50 samples a run:
 *   fused        card 1 at every commit; c 10 % slower (a regression of
 *                the project's code) and a paired re-measure of b and c
 *                on card 1 (suite ab-compare) that is 10 % slower too;
 *   huggingface  cards 1, 2, 1 and torch 2.11 throughout; c 12 % slower
 *                (another provider's drift: not counted);
 *   liger        liger-kernel 0.8.5 at a and b, 0.9.0 at c, 15 % slower
 *                (an environment change: listed as such).
 * With TOOL, the fused runs are that tool's (session.py: confirm measures
 * them by sessions, not by ab_compare.sh).
 * Usage: write_regress_fixture DB COMMITS_FILE [TOOL] */
#include <stdio.h>

#include "fixture.h"

#define SHA_A "a000000000000000000000000000000000000000"
#define SHA_B "b000000000000000000000000000000000000000"
#define SHA_C "c000000000000000000000000000000000000000"
#define CARD_1 "GPU-11111111-1111-1111-1111-111111111111"
#define CARD_2 "GPU-22222222-2222-2222-2222-222222222222"

static double base[50], slow10[50], slow12[50], slow15[50];

static void add(sb_db *db, const char *tool, const char *provider, const char *suite, const char *sha,
                const char *when, const char *card, const char *packages, const double *samples)
{
    fx_result r = {0};
    r.suite = suite;
    r.op = "rmsnorm";
    r.dtype = "bf16";
    r.provider = provider;
    r.shape_key = "BT=4096,H=4096";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.git_sha = sha;
    r.finished_at = when;
    r.gpu_uuid = card;
    r.packages = packages;
    r.tool = tool;
    r.samples = samples;
    r.nsamples = 50;
    fx_add_result(db, &r);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: write_regress_fixture DB COMMITS_FILE [TOOL]\n");
        return 2;
    }
    const char *tool = argc == 4 ? argv[3] : NULL;
    for (int i = 0; i < 50; i++) {
        base[i] = 0.2 * (1.0 + 0.0004 * (double)((i * 37) % 50 - 25));
        slow10[i] = base[i] * 1.10;
        slow12[i] = base[i] * 1.12;
        slow15[i] = base[i] * 1.15;
    }
    sb_db *db = fx_create(argv[1]);
    const char *shas[] = {SHA_A, SHA_B, SHA_C};
    const char *when[] = {"2026-11-16T08:00:00Z", "2026-11-17T08:00:00Z", "2026-11-18T08:00:00Z"};
    const char *hf_card[] = {CARD_1, CARD_2, CARD_1};
    const char *liger_pkg[] = {"{\"liger-kernel\":\"0.8.5\"}", "{\"liger-kernel\":\"0.8.5\"}",
                               "{\"liger-kernel\":\"0.9.0\"}"};
    for (int k = 0; k < 3; k++) {
        add(db, tool, "fused", "memory-bound", shas[k], when[k], CARD_1, NULL, k == 2 ? slow10 : base);
        add(db, NULL, "huggingface", "liger-perkernel", shas[k], when[k], hf_card[k],
            "{\"torch\":\"2.11.0+cu130\"}", k == 2 ? slow12 : base);
        add(db, NULL, "liger", "liger-perkernel", shas[k], when[k], CARD_1, liger_pkg[k],
            k == 2 ? slow15 : base);
    }
    add(db, tool, "fused", "ab-compare", SHA_B, "2026-11-19T08:00:00Z", CARD_1, NULL, base);
    add(db, tool, "fused", "ab-compare", SHA_C, "2026-11-19T08:00:10Z", CARD_1, NULL, slow10);
    sb_db_close(db);
    FILE *f = fopen(argv[2], "w");
    if (!f || fprintf(f, "%s %s 300\n%s %s 200\n%s 100\n", SHA_C, SHA_B, SHA_B, SHA_A, SHA_A) < 0 ||
        fclose(f) != 0) {
        fprintf(stderr, "write_regress_fixture: cannot write %s\n", argv[2]);
        return 1;
    }
    printf("%s: crafted database written\n", argv[1]);
    return 0;
}
