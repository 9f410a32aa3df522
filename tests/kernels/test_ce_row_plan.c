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

static void name_is(int plan, int64_t V, sbk_dtype dt, const char *want)
{
    char buf[96];
    sbk_ce_row_name(plan, V, dt, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_names(void **st)
{
    (void)st;
    /* a row within shared memory: one block's copy of it */
    name_is(SBK_CE_ROW_AUTO, 12288, SBK_BF16, "smem threads=256 smem_bytes=24576");
    name_is(SBK_CE_ROW_SMEM, 3072, SBK_F32, "smem threads=256 smem_bytes=12288");
    /* a row beyond it: in memory, read twice with the gradient */
    name_is(SBK_CE_ROW_AUTO, 128256, SBK_BF16, "memory threads=512");
    /* in registers where it fits them */
    name_is(SBK_CE_ROW_REGS, 12288, SBK_BF16, "registers threads=192 vectors=8");
    /* through L2: as few warps as hold the row at 4 vectors a thread, at most 512 */
    name_is(SBK_CE_ROW_L2, 32768, SBK_F32, "l2v4 threads=512");
    name_is(SBK_CE_ROW_L2, 4096, SBK_BF16, "l2v4 threads=128");
    /* not whole vectors: the default's choice */
    name_is(SBK_CE_ROW_L2, 1001, SBK_BF16, "memory threads=256");
    /* no cluster without a Hopper card: the default's choice */
    name_is(SBK_CE_ROW_CLUSTER(8), 12288, SBK_BF16, "smem threads=256 smem_bytes=24576");
    name_is(SBK_CE_ROW_CLUSTER(4), 128256, SBK_BF16, "memory threads=512");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
