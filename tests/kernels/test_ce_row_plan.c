/* test_ce_row_plan.c - how the fused cross entropy holds a row of logits
 * (sbk_ce_row_plan, sbk_ce_row_name, bench/kernels/fused_ce.cu): the plans
 * SOLBENCH_CE_ROW may name, the ones refused (with the line the CLI
 * prints), and the names results record as row_layout. Without a device
 * (here, and in CI) shared memory is taken as 48 KiB a block and clusters
 * as absent, so a cluster plan falls back to the default's choice.
 * Launches nothing: tests/kernels/gpu_kernels.sh runs every plan on a card. */
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

static int plan_of(const char *v, char *bad, size_t n)
{
    if (v)
        setenv("SOLBENCH_CE_ROW", v, 1);
    else
        unsetenv("SOLBENCH_CE_ROW");
    bad[0] = '\0';
    return sbk_ce_row_plan(bad, n);
}

static void test_plans(void **st)
{
    (void)st;
    char bad[160];
    assert_int_equal(plan_of(NULL, bad, sizeof bad), SBK_CE_ROW_AUTO);
    assert_int_equal(plan_of("auto", bad, sizeof bad), SBK_CE_ROW_AUTO);
    assert_int_equal(plan_of("smem", bad, sizeof bad), SBK_CE_ROW_SMEM);
    assert_int_equal(plan_of("regs", bad, sizeof bad), SBK_CE_ROW_REGS);
    assert_int_equal(plan_of("l2", bad, sizeof bad), SBK_CE_ROW_L2);
    assert_int_equal(plan_of("cluster:2", bad, sizeof bad), SBK_CE_ROW_CLUSTER(2));
    assert_int_equal(plan_of("cluster:8", bad, sizeof bad), SBK_CE_ROW_CLUSTER(8));
    assert_string_equal(bad, "");
    const char *refused[] = {"cluster:3", "cluster:16", "cluster", "L2", "", "smem ", NULL};
    for (int i = 0; refused[i]; i++) {
        assert_int_equal(plan_of(refused[i], bad, sizeof bad), -1);
        char want[64];
        snprintf(want, sizeof want, "SOLBENCH_CE_ROW=%s: ", refused[i]);
        assert_non_null(strstr(bad, want));
        assert_non_null(strstr(bad, "cluster:8"));
    }
    unsetenv("SOLBENCH_CE_ROW");
}

static void name_is(int plan, int64_t V, sbk_dtype dt, int grad, const char *want)
{
    char buf[96];
    sbk_ce_row_name(plan, V, dt, grad, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_names(void **st)
{
    (void)st;
    /* a row within shared memory: one block's copy of it */
    name_is(SBK_CE_ROW_AUTO, 12288, SBK_BF16, 1, "smem threads=256 smem_bytes=24576");
    name_is(SBK_CE_ROW_SMEM, 3072, SBK_F32, 1, "smem threads=256 smem_bytes=12288");
    /* a row beyond it (no Hopper here, so no cluster): in memory, read twice */
    name_is(SBK_CE_ROW_AUTO, 128256, SBK_BF16, 1, "memory threads=512");
    /* in registers where it fits them */
    name_is(SBK_CE_ROW_REGS, 12288, SBK_BF16, 1, "registers threads=192 vectors=8");
    /* through L2: as few warps as hold the row at 4 vectors a thread, at most 512 */
    name_is(SBK_CE_ROW_L2, 32768, SBK_F32, 1, "l2v4 threads=512");
    name_is(SBK_CE_ROW_L2, 4096, SBK_BF16, 1, "l2v4 threads=128");
    /* not whole vectors: the default's choice */
    name_is(SBK_CE_ROW_L2, 1001, SBK_BF16, 1, "memory threads=256");
    /* no cluster without a Hopper card: the default's choice */
    name_is(SBK_CE_ROW_CLUSTER(8), 12288, SBK_BF16, 1, "smem threads=256 smem_bytes=24576");
    name_is(SBK_CE_ROW_CLUSTER(4), 128256, SBK_BF16, 1, "memory threads=512");
}

/* The default: measured on an H200 (227 KiB of shared memory a block less
 * 1 KiB for the reductions); examples/h200/ce-row/ */
static void test_default(void **st)
{
    (void)st;
    const size_t h200 = 227 * 1024 - 1024;
    /* the loss alone: rows over 64 KiB stream through L2 */
    assert_int_equal(sbk_ce_row_default(32768, SBK_F32, 0, h200), SBK_CE_ROW_L2);
    assert_int_equal(sbk_ce_row_default(128256, SBK_BF16, 0, h200), SBK_CE_ROW_L2);
    assert_int_equal(sbk_ce_row_default(16384, SBK_F32, 0, h200), SBK_CE_ROW_SMEM);
    assert_int_equal(sbk_ce_row_default(12288, SBK_BF16, 0, h200), SBK_CE_ROW_SMEM);
    /* with the gradient: in one block's shared memory when it fits, else
     * the fewest cluster slices of at most 64 KiB */
    assert_int_equal(sbk_ce_row_default(32768, SBK_F32, 1, h200), SBK_CE_ROW_SMEM);
    assert_int_equal(sbk_ce_row_default(12288, SBK_BF16, 1, h200), SBK_CE_ROW_SMEM);
    assert_int_equal(sbk_ce_row_default(128256, SBK_BF16, 1, h200), SBK_CE_ROW_CLUSTER(4));
    assert_int_equal(sbk_ce_row_default(65536, SBK_F32, 1, h200), SBK_CE_ROW_CLUSTER(4));
    assert_int_equal(sbk_ce_row_default(131072, SBK_F32, 1, h200), SBK_CE_ROW_CLUSTER(8));
    assert_int_equal(sbk_ce_row_default(128256, SBK_F32, 1, h200), SBK_CE_ROW_CLUSTER(8));
    /* slices that would exceed 64 KiB or not be whole vectors: as before */
    assert_int_equal(sbk_ce_row_default(262144, SBK_F32, 1, h200), SBK_CE_ROW_SMEM);
    assert_int_equal(sbk_ce_row_default(128008, SBK_BF16, 1, h200), SBK_CE_ROW_SMEM);
    assert_int_equal(sbk_ce_row_default(50257, SBK_BF16, 1, h200), SBK_CE_ROW_SMEM);
    assert_int_equal(sbk_ce_row_default(50257, SBK_BF16, 0, h200), SBK_CE_ROW_SMEM);
    /* no device: the default's names as they would run here */
    name_is(SBK_CE_ROW_AUTO, 128256, SBK_BF16, 0, "l2v4 threads=512");
    name_is(SBK_CE_ROW_AUTO, 1001, SBK_BF16, 0, "memory threads=256");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
