/* test_rmsnorm_fwd_plan.c - the RMSNorm forward's launch plans
 * (sbk_rmsnorm_fwd_plan_make, bench/kernels/fused_rows.cu) as a machine
 * without a GPU makes them: the default's layouts, the requests it takes,
 * the ones it refuses, and the names results record; and the backward's
 * layouts and experiment switches (sbk_rmsnorm_bwd_plan_make,
 * sbk_rmsnorm_bwd_env_check) the same way; and the one-row kernels'
 * layouts under SOLBENCH_ROW_VECTORS (sbk_rows_layout_name). Where a CUDA device
 * is present the plans depend on the card (clusters, shared memory):
 * skipped there, tests/kernels/gpu_kernels.sh runs every plan on the card. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "sbk_cuda.h"

static int make(int64_t M, int64_t N, sbk_dtype dt, sbk_dtype wdt, const char *req, sbk_rmsnorm_fwd_plan *p)
{
    return sbk_rmsnorm_fwd_plan_make(M, N, dt, wdt, req, p);
}

static void name_is(const sbk_rmsnorm_fwd_plan *p, const char *want)
{
    char buf[64];
    sbk_rmsnorm_fwd_plan_name(p, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* auto: the whole row in registers when it fits (thread count and vectors
 * as pick_row_layout gives them), else in memory: without clusters a
 * long row is not split */
static void test_auto_layouts(void **st)
{
    (void)st;
    sbk_rmsnorm_fwd_plan p;
    assert_int_equal(make(16384, 7168, SBK_BF16, SBK_BF16, NULL, &p), 0);
    assert_int_equal(p.cluster, 1);
    assert_int_equal(p.smem, 0);
    assert_int_equal(p.threads, 224);
    assert_int_equal(p.maxv, 4);
    name_is(&p, "block:1 threads=224 vectors=4");
    assert_int_equal(make(2048, 32768, SBK_BF16, SBK_BF16, "auto", &p), 0);
    name_is(&p, "block:1 threads=512 vectors=8");
    assert_int_equal(make(2048, 4096, SBK_F32, SBK_F32, "", &p), 0);
    name_is(&p, "block:1 threads=256 vectors=4");
    /* 65536 bf16 is 8192 vectors: more than 512 threads hold in registers */
    assert_int_equal(make(2048, 65536, SBK_BF16, SBK_BF16, NULL, &p), 0);
    assert_int_equal(p.cluster, 1);
    assert_int_equal(p.maxv, -1);
    name_is(&p, "block:1 threads=512 in memory");
    /* not a whole number of 16-byte vectors: single elements, in memory */
    assert_int_equal(make(37, 1001, SBK_BF16, SBK_F32, NULL, &p), 0);
    assert_int_equal(p.maxv, 0);
    name_is(&p, "block:1 threads=256 in memory");
}

static void test_requests(void **st)
{
    (void)st;
    sbk_rmsnorm_fwd_plan p;
    assert_int_equal(make(4096, 4096, SBK_BF16, SBK_BF16, "block", &p), 0);
    name_is(&p, "block:1 threads=256 vectors=2");
    assert_int_equal(make(4096, 4096, SBK_BF16, SBK_BF16, "block:1", &p), 0);
    name_is(&p, "block:1 threads=256 vectors=2");
    /* the row in shared memory: 8 KiB fits the 48 KiB any device allows */
    assert_int_equal(make(4096, 4096, SBK_BF16, SBK_BF16, "smem", &p), 0);
    assert_int_equal(p.smem, 1);
    assert_int_equal((int)p.smem_bytes, 8192);
    name_is(&p, "smem:1 threads=256 smem_bytes=8192");
    assert_int_equal(make(4096, 7168, SBK_F16, SBK_F32, "smem:1", &p), 0);
    name_is(&p, "smem:1 threads=256 smem_bytes=14336");
    /* the row read through L2 in both passes: 512 threads (or one a vector
     * of a shorter row, rounded up to a warp); l2fit: 4 vectors a thread,
     * as few warps as hold the row so (maxv -10 - Q) */
    static const struct {
        int64_t M, N;
        sbk_dtype dt;
        const char *req;
        int maxv;
        const char *name;
    } l2[] = {
        {16384, 8192, SBK_BF16, "l2", -14, "l2v4 threads=512"},
        {16384, 8192, SBK_BF16, "l2v1", -11, "l2v1 threads=512"},
        {16384, 7168, SBK_F32, "l2v2/plain-store", -12, "l2v2 threads=512 hints=plain-store"},
        {64, 1000, SBK_BF16, "l2v4", -14, "l2v4 threads=128"},
        {16384, 8192, SBK_BF16, "l2fit", -14, "l2v4 threads=256"},
        {16384, 6144, SBK_F32, "l2fit", -14, "l2v4 threads=384"},
        {16384, 65536, SBK_F32, "l2fit", -14, "l2v4 threads=512"},
        {64, 1000, SBK_BF16, "l2fit", -14, "l2v4 threads=32"},
    };
    for (size_t i = 0; i < sizeof l2 / sizeof l2[0]; i++) {
        assert_int_equal(make(l2[i].M, l2[i].N, l2[i].dt, l2[i].dt, l2[i].req, &p), 0);
        assert_int_equal(p.maxv, l2[i].maxv);
        name_is(&p, l2[i].name);
    }
}

static void test_refusals(void **st)
{
    (void)st;
    sbk_rmsnorm_fwd_plan p;
    const char *bad[] = {"wave", "rows", "blockx", "smem:", "block:3", "block:16", "smem:2x", ":2", "block:-1",
                         "bulk", "bulk:4", /* bulk: the backward's layout, not a plan of the forward */
                         "l2v3", "l2:2", "l2v", "l2v44"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(make(4096, 4096, SBK_BF16, SBK_BF16, bad[i], &p), -1);
    /* clusters need Hopper: none here */
    assert_int_equal(make(4096, 4096, SBK_BF16, SBK_BF16, "block:2", &p), -1);
    assert_int_equal(make(4096, 4096, SBK_BF16, SBK_BF16, "smem:4", &p), -1);
    /* 128 KiB of shared memory is more than the 48 KiB a device-less plan assumes */
    assert_int_equal(make(2048, 65536, SBK_BF16, SBK_BF16, "smem", &p), -1);
    /* a shared-memory row, or one read through L2, must be whole vectors */
    assert_int_equal(make(37, 1001, SBK_BF16, SBK_BF16, "smem", &p), -1);
    assert_int_equal(make(37, 1001, SBK_BF16, SBK_BF16, "l2", &p), -1);
    /* bad shapes and types */
    assert_int_equal(make(0, 4096, SBK_BF16, SBK_BF16, NULL, &p), -1);
    assert_int_equal(make(4096, 0, SBK_BF16, SBK_BF16, NULL, &p), -1);
    assert_int_equal(make(4096, 4096, SBK_BF16, SBK_F16, NULL, &p), -1);
    /* a launch with a plan that was never made is refused, not run */
    memset(&p, 0, sizeof p);
    assert_int_equal(sbk_rmsnorm_fwd(NULL, NULL, NULL, 4, 4096, 1e-6f, SBK_BF16, SBK_BF16, &p, 0),
                     cudaErrorInvalidValue);
}

static void bwd_is(int64_t N, sbk_dtype dt, const char *want)
{
    sbk_rmsnorm_bwd_plan p;
    assert_int_equal(sbk_rmsnorm_bwd_plan_make(524288, N, dt, dt, &p), 0);
    assert_string_equal(p.name, want);
    /* no device: one partial row a block of the most blocks there may be */
    assert_int_equal(p.blocks, SBK_RMSNORM_BWD_MAX_BLOCKS);
}

/* The backward's layout by row length (no device: no clusters), and what
 * the experiment switches change */
static void test_bwd_layouts(void **st)
{
    (void)st;
    unsetenv("SOLBENCH_RMSNORM_BWD_LAYOUT");
    unsetenv("SOLBENCH_RMSNORM_BWD_DISCARD");
    bwd_is(4096, SBK_BF16, "regs+prefetch:1 threads=256 smem_bytes=0 partials dropped from L2");
    bwd_is(7168, SBK_BF16, "smem2:1 threads=256 smem_bytes=57344 partials dropped from L2");
    /* rows past the double buffer that fit registers: registers */
    bwd_is(7168, SBK_F32, "regs:1 threads=448 smem_bytes=0 partials dropped from L2");
    bwd_is(16384, SBK_BF16, "regs:1 threads=512 smem_bytes=0 partials dropped from L2");
    /* not whole 128-byte partial rows, not whole vectors: in memory, written back */
    bwd_is(1001, SBK_F16, "mem:1 threads=256 smem_bytes=0 partials written back");
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "smem1", 1);
    bwd_is(7168, SBK_F32, "smem1:1 threads=256 smem_bytes=57344 partials dropped from L2");
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "regs", 1);
    bwd_is(7168, SBK_F32, "regs:1 threads=448 smem_bytes=0 partials dropped from L2");
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "smem1", 1);
    bwd_is(16384, SBK_BF16, "smem1:1 threads=256 smem_bytes=65536 partials dropped from L2");
    /* bulk copies need Hopper: without one, the default layout runs, and
     * the name says so */
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "bulk:4", 1);
    bwd_is(4096, SBK_BF16, "regs+prefetch:1 threads=256 smem_bytes=0 partials dropped from L2");
    setenv("SOLBENCH_RMSNORM_BWD_DISCARD", "0", 1);
    bwd_is(7168, SBK_BF16, "smem2:1 threads=256 smem_bytes=57344 partials written back");
    unsetenv("SOLBENCH_RMSNORM_BWD_LAYOUT");
    unsetenv("SOLBENCH_RMSNORM_BWD_DISCARD");
}

static void test_bwd_env_check(void **st)
{
    (void)st;
    char bad[160] = "";
    unsetenv("SOLBENCH_RMSNORM_BWD_LAYOUT");
    unsetenv("SOLBENCH_RMSNORM_BWD_DISCARD");
    assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), 0);
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "split", 1);
    setenv("SOLBENCH_RMSNORM_BWD_DISCARD", "1", 1);
    assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), 0);
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "auto", 1); /* the default, by name */
    assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), 0);
    bwd_is(7168, SBK_BF16, "smem2:1 threads=256 smem_bytes=57344 partials dropped from L2");
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "bulk", 1);
    assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), 0);
    setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", "bulk:16", 1);
    assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), 0);
    const char *typos[] = {"smem", "bulk:1", "bulk:17", "bulk:", "bulk:3x", "bulks"};
    for (size_t i = 0; i < sizeof typos / sizeof typos[0]; i++) {
        char want[160];
        setenv("SOLBENCH_RMSNORM_BWD_LAYOUT", typos[i], 1); /* a typo must not run the default */
        assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), -1);
        snprintf(want, sizeof want,
                 "SOLBENCH_RMSNORM_BWD_LAYOUT=%s: expected auto, regs, smem1, split, bulk or bulk:S (S stages, 2 to 16)",
                 typos[i]);
        assert_string_equal(bad, want);
    }
    unsetenv("SOLBENCH_RMSNORM_BWD_LAYOUT");
    setenv("SOLBENCH_RMSNORM_BWD_DISCARD", "no", 1);
    assert_int_equal(sbk_rmsnorm_bwd_env_check(bad, sizeof bad), -1);
    assert_string_equal(bad, "SOLBENCH_RMSNORM_BWD_DISCARD=no: expected 0 or 1");
    unsetenv("SOLBENCH_RMSNORM_BWD_DISCARD");
}

/* SOLBENCH_ROW_VECTORS=K: at most K vectors of row data a thread where 512
 * threads can hold the row with fewer than 256 threads do, in the
 * one-row kernels (rows held two at a time in add+RMSNorm and the softmax
 * backward) and the forward's block plans; 4 by default (env NULL); 8 is
 * 256 threads whenever they fit. kind -1: the RMSNorm forward's plan. */
static const struct row_case {
    const char *env;
    int kind;
    int64_t N;
    sbk_dtype dt;
    const char *want;
} row_cases[] = {
    {NULL, SBK_ROWS_LAYERNORM, 7168, SBK_F32, "registers threads=448 vectors=4"},
    {NULL, SBK_ROWS_LAYERNORM, 4096, SBK_F32, "registers threads=256 vectors=4"},
    {NULL, SBK_ROWS_LAYERNORM, 7168, SBK_BF16, "registers threads=224 vectors=4"},
    {NULL, SBK_ROWS_ADD_RMSNORM, 7168, SBK_BF16, "registers threads=448 vectors=2"},
    {NULL, SBK_ROWS_ADD_RMSNORM, 7168, SBK_F32, "registers threads=448 vectors=4"},
    {NULL, SBK_ROWS_ADD_RMSNORM, 4096, SBK_F32, "registers threads=512 vectors=2"},
    {NULL, SBK_ROWS_SOFTMAX_BWD, 4096, SBK_BF16, "registers threads=256 vectors=2"},
    /* the softmax forward's row in shared memory while it fits 48 KiB (no device) */
    {NULL, SBK_ROWS_SOFTMAX_FWD, 8192, SBK_F32, "smem threads=256 smem_bytes=32768"},
    /* 512 threads of 8 vectors either way */
    {NULL, SBK_ROWS_SOFTMAX_FWD, 16384, SBK_F32, "registers threads=512 vectors=8"},
    {NULL, SBK_ROWS_LAYERNORM, 16384, SBK_F32, "registers threads=512 vectors=8"},
    {NULL, SBK_ROWS_LAYERNORM, 1001, SBK_F16, "memory threads=256"},
    {NULL, SBK_ROWS_LAYERNORM, 70000, SBK_BF16, "memory threads=512"},
    {NULL, -1, 16384, SBK_BF16, "block:1 threads=512 vectors=4"},
    {NULL, -1, 7168, SBK_BF16, "block:1 threads=224 vectors=4"},
    {NULL, -1, 32768, SBK_BF16, "block:1 threads=512 vectors=8"},
    {"4", SBK_ROWS_LAYERNORM, 7168, SBK_F32, "registers threads=448 vectors=4"},
    {"8", SBK_ROWS_LAYERNORM, 7168, SBK_F32, "registers threads=224 vectors=8"},
    {"8", SBK_ROWS_ADD_RMSNORM, 7168, SBK_BF16, "registers threads=224 vectors=4"},
    {"8", SBK_ROWS_ADD_RMSNORM, 4096, SBK_F32, "registers threads=256 vectors=4"},
    {"8", -1, 16384, SBK_BF16, "block:1 threads=256 vectors=8"},
    {"1", SBK_ROWS_LAYERNORM, 8192, SBK_BF16, "registers threads=512 vectors=2"},
    {"1", SBK_ROWS_SOFTMAX_BWD, 4096, SBK_BF16, "registers threads=512 vectors=1"},
    {"1", -1, 7168, SBK_BF16, "block:1 threads=448 vectors=2"},
    {"1", -1, 6144, SBK_F32, "block:1 threads=384 vectors=4"},
    /* l2vQ: the LayerNorm forward's row and the softmax backward's two
     * read through L2 (l2fit: 2 vectors of each of the softmax's rows a
     * thread); the others as 4 */
    {"l2v4", SBK_ROWS_LAYERNORM, 7168, SBK_F32, "l2v4 threads=512"},
    {"l2v2", SBK_ROWS_LAYERNORM, 8192, SBK_BF16, "l2v2 threads=512"},
    {"l2v2", SBK_ROWS_LAYERNORM, 1000, SBK_BF16, "l2v2 threads=128"},
    {"l2fit", SBK_ROWS_LAYERNORM, 4096, SBK_F32, "l2v4 threads=256"},
    {"l2fit", SBK_ROWS_LAYERNORM, 6144, SBK_F32, "l2v4 threads=384"},
    {"l2fit", SBK_ROWS_SOFTMAX_FWD, 16384, SBK_F32, "registers threads=512 vectors=8"},
    {"l2v4", SBK_ROWS_LAYERNORM, 1001, SBK_F16, "memory threads=256"},
    {"l2v4", SBK_ROWS_ADD_RMSNORM, 7168, SBK_F32, "registers threads=448 vectors=4"},
    {"l2v4", SBK_ROWS_SOFTMAX_BWD, 4096, SBK_BF16, "l2v4 threads=512"},
    {"l2fit", SBK_ROWS_SOFTMAX_BWD, 4096, SBK_BF16, "l2v2 threads=256"},
    {"l2fit", SBK_ROWS_SOFTMAX_BWD, 6144, SBK_F32, "l2v2 threads=512"},
    {"l2v2", SBK_ROWS_SOFTMAX_BWD, 8192, SBK_F16, "l2v2 threads=512"},
    {"l2fit", SBK_ROWS_SOFTMAX_BWD, 1001, SBK_BF16, "memory threads=256"},
    {"l2v2", -1, 7168, SBK_BF16, "block:1 threads=224 vectors=4"},
};

static void test_row_vectors(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof row_cases / sizeof row_cases[0]; i++) {
        const struct row_case *c = &row_cases[i];
        char buf[128];
        if (c->env)
            setenv("SOLBENCH_ROW_VECTORS", c->env, 1);
        else
            unsetenv("SOLBENCH_ROW_VECTORS");
        if (c->kind < 0) {
            sbk_rmsnorm_fwd_plan p;
            assert_int_equal(make(2048, c->N, c->dt, c->dt, NULL, &p), 0);
            sbk_rmsnorm_fwd_plan_name(&p, buf, sizeof buf);
        } else {
            sbk_rows_layout_name((sbk_rows_kernel)c->kind, c->N, c->dt, sbk_row_vectors(), buf, sizeof buf);
        }
        if (strcmp(buf, c->want) != 0)
            fail_msg("row case %zu (SOLBENCH_ROW_VECTORS=%s, N=%lld): \"%s\", want \"%s\"", i,
                     c->env ? c->env : "unset", (long long)c->N, buf, c->want);
    }
    unsetenv("SOLBENCH_ROW_VECTORS");
}

/* the cache-hint suffix: any layout request may carry one; the plan keeps
 * the layout it would have without it and names the hints */
static void test_fwd_hints(void **st)
{
    (void)st;
    sbk_rmsnorm_fwd_plan p;
    assert_int_equal(make(16384, 7168, SBK_BF16, SBK_BF16, "auto/plain-store", &p), 0);
    assert_int_equal(p.hints, SBK_FWD_PLAIN_STORE);
    name_is(&p, "block:1 threads=224 vectors=4 hints=plain-store");
    assert_int_equal(make(16384, 8192, SBK_F16, SBK_F32, "block:1/plain-load", &p), 0);
    assert_int_equal(p.hints, SBK_FWD_PLAIN_LOAD);
    name_is(&p, "block:1 threads=256 vectors=4 hints=plain-load");
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "/plain", &p), 0);
    assert_int_equal(p.hints, SBK_FWD_PLAIN_LOAD | SBK_FWD_PLAIN_STORE);
    name_is(&p, "block:1 threads=256 vectors=4 hints=plain");
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "block/cs", &p), 0);
    assert_int_equal(p.hints, 0);
    name_is(&p, "block:1 threads=256 vectors=4");
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "block/", &p), -1);
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "block/plain-stores", &p), -1);
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "bloc/plain", &p), -1);
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "block:3/plain", &p), -1);
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "block:1/plain/cs", &p), -1);
    assert_int_equal(make(16384, 8192, SBK_BF16, SBK_BF16, "a-layout-name-longer-than-the-buffer-it-goes-in/cs", &p), -1);
}

/* The wide rows' default read through L2: only on a card of 30 GB/s of
 * DRAM an SM or more (an H200: 37; an H100 SXM: 25), only the measured
 * widths (RMSNorm fp32 4096-8192 and 16-bit 6144-8192, LayerNorm fp32
 * 4096-8192, both as l2fit) and from 16384 rows; no other kernel. Without a device (here) the plan and the
 * layouts stay as they were. */
static void test_row_l2_default(void **st)
{
    (void)st;
    const double h200 = 37.0, h100 = 25.0;
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 16384, 7168, SBK_F32, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 65536, 8192, SBK_F32, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 16384, 7168, SBK_F32, h100), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 16384, 6144, SBK_F32, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 131072, 4096, SBK_F32, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 65536, 6144, SBK_F16, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 65536, 4096, SBK_BF16, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 65536, 2048, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 65536, 6148, SBK_BF16, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 16384, 8196, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 4096, 7168, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 16384, 8192, SBK_BF16, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_RMSNORM_FWD, 4096, 8192, SBK_BF16, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 65536, 8192, SBK_BF16, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 16384, 6144, SBK_F32, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 65536, 4096, SBK_F32, h200), 4);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 65536, 4096, SBK_F32, h100), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 8192, 4096, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 65536, 2048, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 65536, 7168, SBK_F16, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_LAYERNORM, 65536, 7170, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_SOFTMAX_FWD, 65536, 7168, SBK_F32, h200), 0);
    assert_int_equal(sbk_row_l2_default(SBK_ROWS_ADD_RMSNORM, 65536, 7168, SBK_F32, h200), 0);
    /* no device: the default cap, or the variable's value when it is set */
    unsetenv("SOLBENCH_ROW_VECTORS");
    assert_int_equal(sbk_rows_most(SBK_ROWS_LAYERNORM, 65536, 7168, SBK_F32), 4);
    setenv("SOLBENCH_ROW_VECTORS", "l2v2", 1);
    assert_int_equal(sbk_rows_most(SBK_ROWS_LAYERNORM, 65536, 7168, SBK_F32), -2);
    setenv("SOLBENCH_ROW_VECTORS", "8", 1);
    assert_int_equal(sbk_rows_most(SBK_ROWS_LAYERNORM, 65536, 7168, SBK_F32), 8);
    unsetenv("SOLBENCH_ROW_VECTORS");
    sbk_rmsnorm_fwd_plan p;
    assert_int_equal(make(65536, 7168, SBK_F32, SBK_F32, NULL, &p), 0);
    name_is(&p, "block:1 threads=448 vectors=4");
}

static void test_row_vectors_env_check(void **st)
{
    (void)st;
    char bad[160] = "";
    unsetenv("SOLBENCH_ROW_VECTORS");
    assert_int_equal(sbk_row_vectors_env_check(bad, sizeof bad), 0);
    setenv("SOLBENCH_ROW_VECTORS", "4", 1);
    assert_int_equal(sbk_row_vectors_env_check(bad, sizeof bad), 0);
    setenv("SOLBENCH_ROW_VECTORS", "3", 1); /* not a choice: refused, not run as the default */
    assert_int_equal(sbk_row_vectors_env_check(bad, sizeof bad), -1);
    assert_string_equal(bad, "SOLBENCH_ROW_VECTORS=3: 1, 2, 4 or 8 (the most row vectors a thread while 512 threads "
                             "can hold fewer), l2v2, l2v4 or l2fit");
    setenv("SOLBENCH_ROW_VECTORS", "l2v4", 1);
    assert_int_equal(sbk_row_vectors_env_check(bad, sizeof bad), 0);
    assert_int_equal(sbk_row_vectors(), -4);
    setenv("SOLBENCH_ROW_VECTORS", "l2fit", 1);
    assert_int_equal(sbk_row_vectors_env_check(bad, sizeof bad), 0);
    assert_int_equal(sbk_row_vectors(), SBK_ROW_L2FIT);
    setenv("SOLBENCH_ROW_VECTORS", "l2v1", 1); /* the LayerNorm's l2 rows take 2 or 4 */
    assert_int_equal(sbk_row_vectors_env_check(bad, sizeof bad), -1);
    unsetenv("SOLBENCH_ROW_VECTORS");
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) {
        printf("test_rmsnorm_fwd_plan: a CUDA device is present: skipped (gpu_kernels.sh runs the plans)\n");
        return 77;
    }
    (void)cudaGetLastError();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_layouts),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_bwd_layouts),
        cmocka_unit_test(test_bwd_env_check),
        cmocka_unit_test(test_row_vectors),
        cmocka_unit_test(test_fwd_hints),
        cmocka_unit_test(test_row_vectors_env_check),
        cmocka_unit_test(test_row_l2_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
