/* test_elem_plan.c - the elementwise kernels' launch plans
 * (sbk_elem_plan_make, bench/kernels/fused_elem.cu): each kernel's default, the
 * requests SOLBENCH_ELEM_PLAN may name, the ones refused (which leave the
 * default), and the names results record as elem_plan. Launches nothing:
 * tests/kernels/gpu_kernels.sh runs every plan on a card. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "sbk_cuda.h"

static void plan_is(sbk_elem_kernel k, const char *req, int tile, int per_thread, int threads, const char *name)
{
    sbk_elem_plan p = {-1, -1, -1};
    char buf[64];
    assert_int_equal(sbk_elem_plan_make(k, req, &p), 0);
    assert_int_equal(p.tile, tile);
    assert_int_equal(p.per_thread, per_thread);
    assert_int_equal(p.threads, threads);
    sbk_elem_plan_name(&p, buf, sizeof buf);
    assert_string_equal(buf, name);
}

/* each kernel's measured default: SwiGLU tiles, RoPE strides */
static void test_default(void **st)
{
    (void)st;
    plan_is(SBK_ELEM_SWIGLU, NULL, 1, 1, 256, "tile:1 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "", 1, 1, 256, "tile:1 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "auto", 1, 1, 256, "tile:1 threads=256");
    plan_is(SBK_ELEM_ROPE, NULL, 0, 1, 256, "stride:1 threads=256");
    plan_is(SBK_ELEM_ROPE, "auto", 0, 1, 256, "stride:1 threads=256");
}

static void test_requests(void **st)
{
    (void)st;
    plan_is(SBK_ELEM_SWIGLU, "stride", 0, 1, 256, "stride:1 threads=256");
    plan_is(SBK_ELEM_ROPE, "tile:2", 1, 2, 256, "tile:2 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "stride:4", 0, 4, 256, "stride:4 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "stride:2/128", 0, 2, 128, "stride:2 threads=128");
    plan_is(SBK_ELEM_SWIGLU, "tile", 1, 1, 256, "tile:1 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "tile:2", 1, 2, 256, "tile:2 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "tile:4/256", 1, 4, 256, "tile:4 threads=256");
    plan_is(SBK_ELEM_SWIGLU, "tile/128", 1, 1, 128, "tile:1 threads=128");
}

static void test_refusals(void **st)
{
    (void)st;
    const char *bad[] = {"tiles", "tile:3", "tile:8", "tile:", "tile:12", "stride/64", "stride:2/",
                         "stride:2/1280", "grid", "Tile", "tile:2:4", "stride 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int k = SBK_ELEM_ROPE; k <= SBK_ELEM_SWIGLU; k++) {
            sbk_elem_plan p = {-1, -1, -1};
            if (sbk_elem_plan_make((sbk_elem_kernel)k, bad[i], &p) != -1)
                fail_msg("took %s", bad[i]);
            /* the kernel's default, so that a caller that goes on runs
             * something known */
            assert_int_equal(p.tile, k == SBK_ELEM_SWIGLU);
            assert_int_equal(p.per_thread, 1);
            assert_int_equal(p.threads, 256);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
