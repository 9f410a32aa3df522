/* test_sku.c - the SKU table data/skus.csv: loading, refusal of malformed
 * files with file:line errors, identification, peaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sku.h"

#define GIB (1024LL * 1024LL * 1024LL)
#define MIB (1024LL * 1024LL)

static int setup_table(void **state)
{
    sb_sku_table *t = NULL;
    sb_error err;
    /* NULL: SOLBOOK_HOME/data/skus.csv, the shipped table (CTest sets the home). */
    if (sb_sku_table_load(NULL, &t, &err) != SB_OK) {
        char line[2048];
        sb_error_format(&err, line, sizeof line);
        fprintf(stderr, "cannot load the SKU table: %s\n", line);
        return -1;
    }
    *state = t;
    return 0;
}

static int teardown_table(void **state)
{
    sb_sku_table_free(*state);
    return 0;
}

static void test_table_rows(void **state)
{
    const sb_sku_table *t = *state;
    static const char *const ids[] = {
        "a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-40gb", "a100-pcie-80gb",
        "h100-sxm5-80gb", "h100-pcie-80gb", "h100-nvl-94gb", "h200-sxm-141gb",
        "h200-nvl-141gb",
    };
    assert_int_equal(sb_sku_count(t), 9);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const sb_sku *s = sb_sku_find(t, ids[i]);
        assert_non_null(s);
        assert_string_equal(s->id, ids[i]);
        assert_int_equal(strncmp(s->arch, ids[i], 4), 0);
        assert_non_null(strstr(s->source, "datasheet"));
        assert_true(s->memory_gb > 0);
        assert_true(s->hbm_tbps > 0);
        assert_true(s->fp16_tflops > s->fp32_tflops);
    }
    assert_null(sb_sku_find(t, "h100"));
    assert_null(sb_sku_find(t, NULL));
    assert_null(sb_sku_at(t, 9));
    assert_string_equal(sb_sku_at(t, 0)->id, "a100-sxm4-40gb");
    assert_string_equal(sb_sku_find(t, "h100-nvl-94gb")->display, "H100 NVL 94GB");
}

typedef struct name_case {
    const char *name;
    const char *pci;
    long long memory;
    const char *want;
} name_case;

static void check_cases(const sb_sku_table *t, const name_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char uid[64] = "x", uarch[16] = "x";
        const sb_sku *s = sb_sku_identify(t, c[i].name, c[i].pci, c[i].memory, uid, sizeof uid,
                                          uarch, sizeof uarch);
        if (!s || strcmp(s->id, c[i].want) != 0)
            fail_msg("\"%s\" pci %s mem %lld: got %s, want %s", c[i].name,
                     c[i].pci ? c[i].pci : "NULL", c[i].memory, s ? s->id : uid, c[i].want);
    }
}

static void test_identify_by_name(void **state)
{
    static const name_case cases[] = {
        {"NVIDIA H100 80GB HBM3", NULL, 0, "h100-sxm5-80gb"},
        {"NVIDIA H100 PCIe", NULL, 0, "h100-pcie-80gb"},
        {"NVIDIA H100 NVL", NULL, 0, "h100-nvl-94gb"},
        {"NVIDIA A100-SXM4-80GB", NULL, 0, "a100-sxm4-80gb"},
        {"NVIDIA A100-SXM4-40GB", NULL, 0, "a100-sxm4-40gb"},
        {"NVIDIA A100-PCIE-40GB", NULL, 0, "a100-pcie-40gb"},
        {"NVIDIA A100 80GB PCIe", NULL, 0, "a100-pcie-80gb"},
        {"NVIDIA H200", NULL, 0, "h200-sxm-141gb"},
        {"NVIDIA H200 NVL", NULL, 0, "h200-nvl-141gb"},
        /* older drivers leave out the "NVIDIA " prefix */
        {"A100-SXM4-40GB", "unknown", 0, "a100-sxm4-40gb"},
        /* white space around the name is not part of it */
        {"  NVIDIA H200 NVL\n", NULL, 0, "h200-nvl-141gb"},
    };
    check_cases(*state, cases, sizeof cases / sizeof cases[0]);
}

static void test_identify_with_pci_and_memory(void **state)
{
    /* What NVML reports on these boards: name, pciDeviceId, memory total. */
    static const name_case cases[] = {
        {"NVIDIA H100 80GB HBM3", "0x233010DE", 81559 * MIB, "h100-sxm5-80gb"},
        {"NVIDIA H100 PCIe", "0x233110DE", 81559 * MIB, "h100-pcie-80gb"},
        {"NVIDIA H100 NVL", "0x232110DE", 95830 * MIB, "h100-nvl-94gb"},
        {"NVIDIA H200", "0x233510DE", 143771 * MIB, "h200-sxm-141gb"},
        {"NVIDIA H200 NVL", "0x233B10DE", 143771 * MIB, "h200-nvl-141gb"},
        {"NVIDIA A100-SXM4-40GB", "0x20B010DE", 40536 * MIB, "a100-sxm4-40gb"},
        {"NVIDIA A100-SXM4-80GB", "0x20B210DE", 81920 * MIB, "a100-sxm4-80gb"},
        {"NVIDIA A100-PCIE-40GB", "0x20F110DE", 40536 * MIB, "a100-pcie-40gb"},
        {"NVIDIA A100 80GB PCIe", "0x20B510DE", 81920 * MIB, "a100-pcie-80gb"},
        /* the PCI device id decides when the name says nothing useful */
        {"NVIDIA Graphics Device", "0x233510DE", 0, "h200-sxm-141gb"},
        {"", "0x233b10de", 0, "h200-nvl-141gb"},
        {"NVIDIA H100", "0x232110DE", 0, "h100-nvl-94gb"},
        {"NVIDIA A100", "0x20B110DE", 0, "a100-pcie-40gb"},
        /* last resort: arch and form factor words plus memory size */
        {"NVIDIA A100 SXM4", NULL, 40 * GIB, "a100-sxm4-40gb"},
        {"NVIDIA A100 SXM4", "unknown", 80 * GIB, "a100-sxm4-80gb"},
        {"NVIDIA A100 PCIe", NULL, 40536 * MIB, "a100-pcie-40gb"},
        {"NVIDIA A100 PCIe", NULL, 81920 * MIB, "a100-pcie-80gb"},
        {"NVIDIA H100 NVL-like", NULL, 95830 * MIB, "h100-nvl-94gb"},
    };
    check_cases(*state, cases, sizeof cases / sizeof cases[0]);
}

static int id_matches_schema(const char *s)
{
    if (!s[0] || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || strchr("._+-", *s)))
            return 0;
    return 1;
}

static void expect_unknown(const sb_sku_table *t, const char *name, const char *pci,
                           long long memory, const char *want_id, const char *want_arch)
{
    char uid[64] = "x", uarch[16] = "x";
    const sb_sku *s = sb_sku_identify(t, name, pci, memory, uid, sizeof uid, uarch, sizeof uarch);
    if (s)
        fail_msg("\"%s\" identified as %s, want none", name ? name : "(null)", s->id);
    assert_string_equal(uid, want_id);
    assert_string_equal(uarch, want_arch);
    assert_true(id_matches_schema(uid));
}

static void test_identify_unknown(void **state)
{
    const sb_sku_table *t = *state;
    expect_unknown(t, "NVIDIA GeForce RTX 4090", NULL, 24 * GIB, "unknown-nvidia-geforce-rtx-4090",
                   "unknown");
    expect_unknown(t, "NVIDIA L40S", "0x26B910DE", 0, "unknown-nvidia-l40s", "unknown");
    /* GH200 is not an H200 */
    expect_unknown(t, "NVIDIA GH200 480GB", "0x234210DE", 0, "unknown-nvidia-gh200-480gb",
                   "unknown");
    /* an A100 name but two rows fit 80 GiB: ambiguous, so not guessed */
    expect_unknown(t, "NVIDIA A100", NULL, 80 * GIB, "unknown-nvidia-a100", "a100");
    expect_unknown(t, "NVIDIA A100X", NULL, 80 * GIB, "unknown-nvidia-a100x", "unknown");
    /* the name of a table row but a memory size no row of it has */
    expect_unknown(t, "NVIDIA H100 80GB HBM3", NULL, 64 * GIB, "unknown-nvidia-h100-80gb-hbm3",
                   "h100");
    expect_unknown(t, "NVIDIA H200", "0x999910DE", 96 * GIB, "unknown-nvidia-h200", "h200");
    /* markup and quotes never reach the id */
    expect_unknown(t, "<script>alert(\"H100\")</script> & 'x'", NULL, 0,
                   "unknown-script-alert-h100-script-x", "h100");
    expect_unknown(t, "NVIDIA \"H800\" <b>PCIe</b>; DROP TABLE runs;--", NULL, 0,
                   "unknown-nvidia-h800-b-pcie-b-drop-table-runs", "unknown");
    expect_unknown(t, "Ünïcødé GPU™ 9000", NULL, 0, "unknown-n-c-d-gpu-9000", "unknown");
    expect_unknown(t, "<>&\"'", NULL, 0, "unknown", "unknown");
    expect_unknown(t, "unknown", "unknown", 0, "unknown", "unknown");
    expect_unknown(t, NULL, NULL, 0, "unknown", "unknown");
    expect_unknown(t, "", NULL, 0, "unknown", "unknown");
}

static void test_unknown_id_is_cut_cleanly(void **state)
{
    char uid[13], uarch[4];
    const sb_sku *s = sb_sku_identify(*state, "NVIDIA RTX A6000", NULL, 0, uid, sizeof uid, uarch,
                                      sizeof uarch);
    assert_null(s);
    /* "unknown-nvidia-rtx-a6000" cut to 12 characters, no dangling '-' */
    assert_string_equal(uid, "unknown-nvid");
    assert_string_equal(uarch, "unk");
    s = sb_sku_identify(*state, "NVIDIA RTX A6000", NULL, 0, NULL, 0, NULL, 0);
    assert_null(s);
}

static void test_arch_and_slug(void **state)
{
    char slug[64];
    (void)state;
    assert_string_equal(sb_sku_arch_from_name("NVIDIA H100 80GB HBM3"), "h100");
    assert_string_equal(sb_sku_arch_from_name("NVIDIA A100-SXM4-40GB"), "a100");
    assert_string_equal(sb_sku_arch_from_name("NVIDIA H200 NVL"), "h200");
    assert_string_equal(sb_sku_arch_from_name("NVIDIA GH200 480GB"), "unknown");
    assert_string_equal(sb_sku_arch_from_name("NVIDIA H100L"), "unknown");
    assert_string_equal(sb_sku_arch_from_name(NULL), "unknown");
    sb_sku_slug("AMD EPYC 9454 48-Core Processor", slug, sizeof slug);
    assert_string_equal(slug, "amd-epyc-9454-48-core-processor");
    sb_sku_slug("--A__B--", slug, sizeof slug);
    assert_string_equal(slug, "a-b");
    sb_sku_slug("abcdef-ghij", slug, 8);
    assert_string_equal(slug, "abcdef");
}

static void test_peaks(void **state)
{
    const sb_sku_table *t = *state;
    const sb_sku *h = sb_sku_find(t, "h100-sxm5-80gb");
    const sb_sku *a = sb_sku_find(t, "a100-sxm4-80gb");
    const sb_sku *h200 = sb_sku_find(t, "h200-sxm-141gb");
    assert_non_null(h);
    assert_non_null(a);
    assert_non_null(h200);
    /* H100 SXM datasheet: tensor figures printed with sparsity, halved */
    assert_float_equal(sb_sku_peak_tflops(h, "fp16"), 989.5, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "bf16"), 989.5, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "tf32"), 494.5, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "fp32"), 67.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "fp64"), 67.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "fp64-vector"), 34.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "fp8e4m3"), 1979.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "fp8e5m2"), 1979.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(h, "fp8"), 1979.0, 1e-9);
    assert_float_equal(h->hbm_tbps, 3.35, 1e-9);
    assert_float_equal(h->memory_gb, 80.0, 1e-9);
    /* A100 datasheet: dense figures printed as such; no FP8 */
    assert_float_equal(sb_sku_peak_tflops(a, "fp16"), 312.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(a, "tf32"), 156.0, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(a, "fp32"), 19.5, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(a, "fp64"), 19.5, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(a, "fp64-vector"), 9.7, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(a, "fp8e4m3"), 0.0, 0);
    assert_float_equal(a->hbm_tbps, 2.039, 1e-9);
    assert_float_equal(sb_sku_find(t, "a100-pcie-80gb")->hbm_tbps, 1.935, 1e-9);
    assert_float_equal(sb_sku_find(t, "a100-sxm4-40gb")->hbm_tbps, 1.555, 1e-9);
    /* H200 SXM: H100 SXM compute, more and faster memory */
    assert_float_equal(sb_sku_peak_tflops(h200, "bf16"), 989.5, 1e-9);
    assert_float_equal(h200->hbm_tbps, 4.8, 1e-9);
    assert_float_equal(h200->memory_gb, 141.0, 1e-9);
    /* unknown dtypes and NULLs give 0 */
    assert_float_equal(sb_sku_peak_tflops(h, "int8"), 0.0, 0);
    assert_float_equal(sb_sku_peak_tflops(h, "FP16"), 0.0, 0);
    assert_float_equal(sb_sku_peak_tflops(h, NULL), 0.0, 0);
    assert_float_equal(sb_sku_peak_tflops(NULL, "fp16"), 0.0, 0);
}

static void test_nvl_is_not_sxm(void **state)
{
    const sb_sku_table *t = *state;
    static const char *const dtypes[] = {"fp16", "bf16", "tf32", "fp32", "fp64",
                                         "fp64-vector", "fp8e4m3"};
    const char *pairs[][2] = {{"h100-nvl-94gb", "h100-sxm5-80gb"},
                              {"h200-nvl-141gb", "h200-sxm-141gb"}};
    for (size_t p = 0; p < 2; p++) {
        const sb_sku *nvl = sb_sku_find(t, pairs[p][0]);
        const sb_sku *sxm = sb_sku_find(t, pairs[p][1]);
        assert_non_null(nvl);
        assert_non_null(sxm);
        for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
            double a = sb_sku_peak_tflops(nvl, dtypes[i]);
            double b = sb_sku_peak_tflops(sxm, dtypes[i]);
            if (!(a > 0 && a < b))
                fail_msg("%s %s %.1f is not below %s %.1f", pairs[p][0], dtypes[i], a,
                         pairs[p][1], b);
        }
    }
    /* H100 NVL (datasheet NVL column): 835 / 1,671 / 3,341 sparse -> dense */
    assert_float_equal(sb_sku_peak_tflops(sb_sku_find(t, "h100-nvl-94gb"), "bf16"), 835.5, 1e-9);
    assert_float_equal(sb_sku_peak_tflops(sb_sku_find(t, "h100-nvl-94gb"), "fp8e4m3"), 1670.5,
                       1e-9);
    assert_float_equal(sb_sku_find(t, "h100-nvl-94gb")->hbm_tbps, 3.9, 1e-9);
    assert_float_equal(sb_sku_find(t, "h100-nvl-94gb")->memory_gb, 94.0, 1e-9);
}

typedef struct bad_case {
    const char *file;
    const char *where;
    const char *msg_part;
} bad_case;

static void test_malformed_refused(void **state)
{
    static const bad_case cases[] = {
        {"field_count.csv", "line 3", "expected 15 fields as in the header, found 14"},
        {"bad_number.csv", "line 3", "fp16_tflops: \"fast\" is not a non-negative decimal number"},
        {"bad_pci.csv", "line 3", "pci_device_ids: \"2331\" is not of the form 0x233010DE"},
        {"duplicate_sku.csv", "line 3", "sku \"h100-sxm5-80gb\" appears twice"},
        {"unknown_column.csv", "line 1", "unknown column \"fp16_tflop\" in header"},
        {"bad_sku_id.csv", "line 3", "sku \"H100<b>\" is not a valid id"},
        {"unterminated_quote.csv", "line 4", "unterminated quoted field"},
        {"empty_match_name.csv", "line 3", "match_names: empty entry"},
        {"header_only.csv", "line 2", "no SKU rows after the header"},
        {"empty.csv", "line 1", "empty file: no header row"},
        {"multiline_then_negative.csv", "line 4", "hbm_tbps: \"-2\" is not a non-negative"},
        {"stray_quote.csv", "line 3", "malformed CSV: a quote inside an unquoted field"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        sb_sku_table *t = (sb_sku_table *)1;
        sb_error err;
        snprintf(path, sizeof path, "%s/collect/%s", SOLBOOK_TEST_DATA, cases[i].file);
        sb_error_clear(&err);
        assert_int_equal(sb_sku_table_load(path, &t, &err), SB_ERR);
        assert_null(t);
        assert_string_equal(err.file, path);
        if (strcmp(err.where, cases[i].where) != 0 || !strstr(err.msg, cases[i].msg_part))
            fail_msg("%s: got \"%s: %s\", want \"%s: ...%s...\"", cases[i].file, err.where,
                     err.msg, cases[i].where, cases[i].msg_part);
    }
}

static void test_missing_file(void **state)
{
    sb_sku_table *t = NULL;
    sb_error err;
    (void)state;
    sb_error_clear(&err);
    assert_int_equal(sb_sku_table_load("/nonexistent/skus.csv", &t, &err), SB_ERR);
    assert_null(t);
    assert_string_equal(err.file, "/nonexistent/skus.csv");
    assert_true(err.msg[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_identify_by_name),
        cmocka_unit_test(test_identify_with_pci_and_memory),
        cmocka_unit_test(test_identify_unknown),
        cmocka_unit_test(test_unknown_id_is_cut_cleanly),
        cmocka_unit_test(test_arch_and_slug),
        cmocka_unit_test(test_peaks),
        cmocka_unit_test(test_nvl_is_not_sxm),
        cmocka_unit_test(test_malformed_refused),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, setup_table, teardown_table);
}
