/* write_fixture.c - writes the crafted database the CLI script test uses:
 * the standard set (fixture.c), a complete GEMM spec result on h100 with
 * its ncu metrics, and one case that is 10 % slower at a newer commit
 * on the same card (50 samples each). Usage: write_fixture DB */
#include <stdio.h>

#include "fixture.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_fixture DB\n");
        return 2;
    }
    sb_db *db = fx_create(argv[1]);
    fx_standard(db);
    fx_result r = {0};
    r.suite = "gemm-spec";
    r.provider = "cublas";
    r.shape_key = "K=4096,M=4096,N=4096";
    r.sku = "h100-sxm5-80gb";
    r.arch = "h100";
    r.finished_at = "2026-11-18T08:00:00Z";
    r.median_ms = 0.19;
    r.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
    r.bytes = 3.0 * 2.0 * 4096.0 * 4096.0;
    fx_add_ncu(db, fx_add_result(db, &r), 6);
    double old_s[50], new_s[50];
    for (int i = 0; i < 50; i++) {
        old_s[i] = 0.5 * (1.0 + 0.0004 * (double)((i * 37) % 50 - 25));
        new_s[i] = old_s[i] * 1.10;
    }
    fx_result g = {0};
    g.suite = "gemm-sweep";
    g.provider = "solbook-mma";
    g.shape_key = "K=2048,M=2048,N=2048";
    g.sku = "h100-sxm5-80gb";
    g.arch = "h100";
    g.gpu_uuid = "GPU-9ee13f15-898f-7788-fe0b-4b64c524960b";
    g.git_sha = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    g.finished_at = "2026-11-17T08:00:00Z";
    g.samples = old_s;
    g.nsamples = 50;
    fx_add_result(db, &g);
    g.git_sha = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    g.finished_at = "2026-11-19T08:00:00Z";
    g.samples = new_s;
    fx_add_result(db, &g);
    sb_db_close(db);
    printf("%s: crafted database written\n", argv[1]);
    return 0;
}
