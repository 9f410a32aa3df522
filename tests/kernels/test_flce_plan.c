/* test_flce_plan.c - how the fused FLCE cuts its work (bench/kernels/
 * fused_ce.cu): rows per chunk for the two dW accumulators, columns per
 * vocabulary slice (accum=vocab), and the scratch each asks for, which is
 * what the peak-memory figures of the results are made of. Host functions
 * only: tests/kernels/gpu_kernels.sh runs the kernels on a card. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sbk_cuda.h"

#define LLAMA_V 128256
#define LLAMA_H 4096

static size_t up256(size_t n) { return (n + 255) / 256 * 256; }

static void test_chunk_rows(void **st)
{
    (void)st;
    /* fp32 accumulator: 1 GiB of fp32 logits and bf16 dlogits, 1024 rows of
     * 128256, or Liger's rule where that is more (BT / 32 at H 4096) */
    assert_int_equal(sbk_flce_chunk_rows(4096, LLAMA_H, LLAMA_V, 0, SBK_BF16, SBK_FLCE_ACCUM_FP32), 1024);
    assert_int_equal(sbk_flce_chunk_rows(65536, LLAMA_H, LLAMA_V, 0, SBK_BF16, SBK_FLCE_ACCUM_FP32), 2048);
    /* in place: 128 MiB of bf16 logits, 512 rows */
    assert_int_equal(sbk_flce_chunk_rows(4096, LLAMA_H, LLAMA_V, 0, SBK_BF16, SBK_FLCE_ACCUM_INPUT), 512);
    /* a chunk given: at most BT */
    assert_int_equal(sbk_flce_chunk_rows(64, 256, 1000, 16, SBK_BF16, SBK_FLCE_ACCUM_FP32), 16);
    assert_int_equal(sbk_flce_chunk_rows(64, 256, 1000, 100, SBK_BF16, SBK_FLCE_ACCUM_FP32), 64);
}

static void test_by_vocab(void **st)
{
    (void)st;
    assert_true(sbk_flce_by_vocab(SBK_FLCE_ACCUM_VOCAB, 1));
    assert_true(sbk_flce_by_vocab(SBK_FLCE_ACCUM_VOCAB, 0));
    /* the loss alone with fp32 logits: slices (no second GEMM there) */
    assert_true(sbk_flce_by_vocab(SBK_FLCE_ACCUM_FP32, 0));
    assert_false(sbk_flce_by_vocab(SBK_FLCE_ACCUM_FP32, 1));
    assert_false(sbk_flce_by_vocab(SBK_FLCE_ACCUM_INPUT, 0));
    assert_false(sbk_flce_by_vocab(SBK_FLCE_ACCUM_INPUT, 1));
}

static void test_slice_cols(void **st)
{
    (void)st;
    /* 64 MiB for fp32 logits and bf16 dlogits of all rows, whole 256s */
    assert_int_equal(sbk_flce_slice_cols(4096, LLAMA_V, 0, SBK_BF16, 1), 2560);
    assert_int_equal(sbk_flce_slice_cols(8192, LLAMA_V, 0, SBK_BF16, 1), 1280);
    /* the loss alone: fp32 logits only */
    assert_int_equal(sbk_flce_slice_cols(4096, LLAMA_V, 0, SBK_BF16, 0), 4096);
    /* never under 1024 columns (the GEMMs stay large), never over V */
    assert_int_equal(sbk_flce_slice_cols(32768, LLAMA_V, 0, SBK_BF16, 1), 1024);
    assert_int_equal(sbk_flce_slice_cols(8, 500, 0, SBK_BF16, 1), 500);
    /* columns given */
    assert_int_equal(sbk_flce_slice_cols(4096, LLAMA_V, 3000, SBK_BF16, 1), 3000);
    assert_int_equal(sbk_flce_slice_cols(64, 1000, 4096, SBK_BF16, 1), 1000);
}

static void test_workspace(void **st)
{
    (void)st;
    const size_t BT = 8192, H = LLAMA_H, V = LLAMA_V, rows = 3 * up256(BT * 4);
    /* vocab, full: the slice's fp32 logits and bf16 dlogits, the fp32 dH
     * accumulator, nvalid and three floats a row; no V x H accumulator */
    const size_t Vc = 1280;
    assert_int_equal(sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_VOCAB, 1),
                     up256(BT * Vc * 4) + SBK_CE_WORKSPACE_BYTES + rows + up256(BT * Vc * 2) + up256(BT * H * 4));
    /* fp32 inputs: dH is its own accumulator */
    assert_int_equal(sbk_flce_workspace(BT, H, V, 1280, SBK_F32, SBK_FLCE_ACCUM_VOCAB, 1),
                     up256(BT * Vc * 4) + SBK_CE_WORKSPACE_BYTES + rows + up256(BT * Vc * 4));
    /* the loss alone: the slice and the rows' floats, with the fp32
     * accumulator's setting too (it slices the vocabulary then) */
    assert_int_equal(sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_VOCAB, 0),
                     up256(BT * 2048 * 4) + SBK_CE_WORKSPACE_BYTES + rows);
    assert_int_equal(sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_FP32, 0),
                     up256(BT * 2048 * 4) + SBK_CE_WORKSPACE_BYTES + rows);
    /* in place (Liger's way), the loss alone: 512 rows of bf16 logits in 128 MiB */
    assert_int_equal(sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_INPUT, 0),
                     up256(512 * V * 2) + SBK_CE_WORKSPACE_BYTES);
    /* the fp32 accumulator's chunks against it: 1024 rows of fp32 logits
     * and bf16 dlogits, and V x H x 4 bytes */
    assert_int_equal(sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_FP32, 1),
                     up256(1024 * V * 4) + SBK_CE_WORKSPACE_BYTES + up256(1024 * V * 2) + up256(V * H * 4));
    assert_true(sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_VOCAB, 1) * 10 <
                sbk_flce_workspace(BT, H, V, 0, SBK_BF16, SBK_FLCE_ACCUM_FP32, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_rows),
        cmocka_unit_test(test_by_vocab),
        cmocka_unit_test(test_slice_cols),
        cmocka_unit_test(test_workspace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
