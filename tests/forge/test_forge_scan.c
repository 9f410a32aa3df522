/* test_forge_scan.c - the unsafe-code scanner: what it flags, with which
 * rule and line, and what it must leave alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "scan.h"

static sb_scan_report scan(const char *src)
{
    sb_scan_report rep = {0};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_scan_buffer("k.cu", src, strlen(src), &rep, &err), SB_OK);
    return rep;
}

/* The number of findings with this rule at this line (line 0: any line). */
static size_t count(const sb_scan_report *r, const char *rule, int line)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->items[i].rule, rule) == 0 && (line == 0 || r->items[i].line == line))
            n++;
    return n;
}

static void test_comments_and_strings_are_not_code(void **state)
{
    (void)state;
    sb_scan_report r = scan("// system(\"rm -rf /\")\n"
                            "/* fork(); exec */\n"
                            "const char *msg = \"do not call system( or fork()\";\n"
                            "int main(void) { return 0; }\n");
    assert_int_equal(r.count, 0);
    sb_scan_report_free(&r);
}

static void test_process_spawning(void **state)
{
    (void)state;
    sb_scan_report r = scan("#include <stdlib.h>\n"
                            "void f(void) {\n"
                            "  system(\"ls\");\n"
                            "  int (*p)(const char *) = system;\n"
                            "  if (fork() == 0) execvp(\"x\", 0);\n"
                            "  posix_spawn(0, \"a\", 0, 0, 0, 0);\n"
                            "  FILE *q = popen(\"id\", \"r\");\n"
                            "}\n");
    assert_int_equal(count(&r, "process", 3), 1);
    assert_int_equal(count(&r, "process", 4), 1);
    assert_int_equal(count(&r, "process", 5), 2);
    assert_int_equal(count(&r, "process", 6), 1);
    assert_int_equal(count(&r, "process", 7), 1);
    assert_string_equal(r.items[0].file, "k.cu");
    assert_string_equal(r.items[0].what, "system");
    assert_string_equal(r.items[0].text, "system(\"ls\");");
    sb_scan_report_free(&r);
}

static void test_line_splice_joins_identifiers(void **state)
{
    (void)state;
    sb_scan_report r = scan("void f(void) {\n  sys\\\ntem(\"ls\");\n}\n");
    assert_int_equal(count(&r, "process", 0), 1);
    assert_int_equal(r.items[0].line, 2);
    sb_scan_report_free(&r);
}

static void test_shell_strings(void **state)
{
    (void)state;
    sb_scan_report r = scan("const char *a = \"/bin/sh\";\nconst char *b = \"bash -c 'x'\";\n"
                            "const char *c = \"shape M=4096\";\n");
    assert_int_equal(count(&r, "shell", 1), 1);
    assert_int_equal(count(&r, "shell", 2), 1);
    assert_int_equal(r.count, 2);
    sb_scan_report_free(&r);
}

static void test_network(void **state)
{
    (void)state;
    sb_scan_report r = scan("#include <sys/socket.h>\n#include <netinet/in.h>\n#include <curl/curl.h>\n"
                            "void f(void) {\n"
                            "  int s = socket(2, 1, 0);\n"
                            "  connect(s, 0, 0);\n"
                            "  CURL *c = curl_easy_init();\n"
                            "  obj.connect(1);\n"
                            "}\n");
    assert_int_equal(count(&r, "header", 1), 1);
    assert_int_equal(count(&r, "header", 2), 1);
    assert_int_equal(count(&r, "header", 3), 1);
    assert_int_equal(count(&r, "network", 5), 1);
    assert_int_equal(count(&r, "network", 6), 1);
    assert_int_equal(count(&r, "network", 7), 2); /* CURL and curl_easy_init */
    assert_int_equal(count(&r, "network", 8), 0); /* a member named connect */
    sb_scan_report_free(&r);
}

static void test_file_paths(void **state)
{
    (void)state;
    sb_scan_report r = scan("void f(const char *p) {\n"
                            "  fopen(\"out.bin\", \"w\");\n"
                            "  fopen(\"/etc/passwd\", \"r\");\n"
                            "  fopen(\"../../x\", \"w\");\n"
                            "  fopen(p, \"w\");\n"
                            "  open(\"~/.ssh/id\", 0);\n"
                            "  std::ofstream o(\"/tmp/x\");\n"
                            "  std::ofstream ok(\"log.txt\");\n"
                            "  o.open(\"/dev/shm/y\");\n"
                            "  remove(\"a\"); unlink(\"b\"); rename(\"c\", \"d\");\n"
                            "  std::remove(v.begin(), v.end(), 0);\n"
                            "  opendir(\".\");\n"
                            "}\n");
    assert_int_equal(count(&r, "file-path", 2), 0);
    assert_int_equal(count(&r, "file-path", 3), 1);
    assert_int_equal(count(&r, "file-path", 4), 1);
    assert_int_equal(count(&r, "file-path", 5), 1);
    assert_int_equal(count(&r, "file-path", 6), 1);
    assert_int_equal(count(&r, "file-path", 7), 1);
    assert_int_equal(count(&r, "file-path", 8), 0);
    assert_int_equal(count(&r, "file-path", 9), 1);
    assert_int_equal(count(&r, "filesystem", 10), 3);
    assert_int_equal(count(&r, "filesystem", 11), 0);
    assert_int_equal(count(&r, "filesystem", 12), 1);
    for (size_t i = 0; i < r.count; i++)
        if (r.items[i].line == 3)
            assert_non_null(strstr(r.items[i].what, "absolute path"));
    sb_scan_report_free(&r);
}

static void test_includes(void **state)
{
    (void)state;
    sb_scan_report r = scan("#include \"forge_abi.h\"\n#include \"util.cuh\"\n#include \"../secret.h\"\n"
                            "#include \"/etc/hosts\"\n#include \"payload.txt\"\n#include <cuda_runtime.h>\n"
                            "#include <dlfcn.h>\n");
    assert_int_equal(count(&r, "file-path", 1), 0);
    assert_int_equal(count(&r, "file-path", 2), 0);
    assert_int_equal(count(&r, "file-path", 3), 1);
    assert_int_equal(count(&r, "file-path", 4), 1);
    assert_int_equal(count(&r, "file-path", 5), 1);
    assert_int_equal(count(&r, "header", 6), 0);
    assert_int_equal(count(&r, "header", 7), 1);
    sb_scan_report_free(&r);
}

static void test_inline_asm(void **state)
{
    (void)state;
    sb_scan_report r = scan("__device__ unsigned lane(void) {\n"
                            "  unsigned l; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); return l;\n"
                            "}\n"
                            "namespace k { struct S {\n"
                            "  __global__ static void g(int *p) { if (p) { asm(\"membar.gl;\"); } }\n"
                            "}; }\n"
                            "void host(void) { __asm__ volatile(\"syscall\"); }\n"
                            "__host__ __device__ void both(void) { asm(\"nop\"); }\n"
                            "#define EVIL asm(\"int $0x80\")\n"
                            "#define CAT(a, b) a##b\n");
    assert_int_equal(count(&r, "inline-asm", 2), 0);
    assert_int_equal(count(&r, "inline-asm", 5), 0);
    assert_int_equal(count(&r, "inline-asm", 7), 1);
    assert_int_equal(count(&r, "inline-asm", 8), 1);
    assert_int_equal(count(&r, "inline-asm", 9), 1);
    assert_int_equal(count(&r, "macro", 10), 1);
    assert_int_equal(r.count, 4);
    sb_scan_report_free(&r);
}

static void test_raw_strings_and_prefixes(void **state)
{
    (void)state;
    sb_scan_report r = scan("const char *a = R\"x(system(\"ls\") )\" fork())x\";\n"
                            "const wchar_t *b = L\"popen\";\n"
                            "void f(void) { fork(); }\n");
    assert_int_equal(r.count, 1);
    assert_int_equal(count(&r, "process", 3), 1);
    sb_scan_report_free(&r);
}

static void test_interposed_runtime_functions(void **state)
{
    (void)state;
    sb_scan_report r = scan("extern \"C\" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)\n"
                            "{ *ms = 0.001f; return cudaSuccess; }\n"
                            "cudaError_t cudaHelper(int);\n"
                            "static cudaError_t e0 = cudaFree(0);\n"
                            "CUresult cuLaunchKernel(void) noexcept { return CUDA_SUCCESS; }\n"
                            "int forge_problem_check(const forge_problem *p, forge_check *o, char *m, size_t n) { return 0; }\n"
                            "cudaError_t my_launcher(const forge_problem *p, cudaStream_t s) { return cudaGetLastError(); }\n");
    assert_int_equal(count(&r, "interpose", 1), 1);
    assert_int_equal(count(&r, "interpose", 3), 0);
    assert_int_equal(count(&r, "interpose", 4), 0);
    assert_int_equal(count(&r, "interpose", 5), 1);
    assert_int_equal(count(&r, "interpose", 6), 1);
    assert_int_equal(r.count, 3);
    assert_string_equal(r.items[0].what, "defines cudaEventElapsedTime(), a name of the CUDA runtime or the forge harness");
    sb_scan_report_free(&r);

    /* reference.cu defines the op ABI; that is its job. */
    const char *ref = "extern \"C\" int forge_problem_check(const forge_problem *p, forge_check *o, char *m, size_t n)\n"
                      "{ return 0; }\n";
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_scan_buffer("reference.cu", ref, strlen(ref), &r, &err), SB_OK);
    assert_int_equal(r.count, 0);
    assert_int_equal(sb_scan_buffer("sub/reference.c", ref, strlen(ref), &r, &err), SB_OK);
    assert_int_equal(r.count, 0);
    sb_scan_report_free(&r);
}

static void test_defines(void **state)
{
    (void)state;
    const char *src = "extern \"C\" cudaError_t declared_only(const forge_problem *p, cudaStream_t s);\n"
                      "namespace k { static int helper(int x) { return x; } }\n"
                      "extern \"C\" {\n"
                      "cudaError_t launch_a(const forge_problem *p, cudaStream_t s) { return helper2(p); }\n"
                      "}\n"
                      "extern \"C\" cudaError_t launch_b(const forge_problem *p, cudaStream_t s)\n{\n  launch_a(p, s);\n  return cudaSuccess;\n}\n"
                      "// cudaError_t commented(void) { }\n";
    size_t n = strlen(src);
    assert_int_equal(sb_scan_defines(src, n, "launch_a"), 1);
    assert_int_equal(sb_scan_defines(src, n, "launch_b"), 1);
    assert_int_equal(sb_scan_defines(src, n, "helper"), 1);
    assert_int_equal(sb_scan_defines(src, n, "declared_only"), 0);
    assert_int_equal(sb_scan_defines(src, n, "commented"), 0);
    assert_int_equal(sb_scan_defines(src, n, "helper2"), 0);
}

static void test_example_candidate_is_clean(void **state)
{
    (void)state;
    sb_scan_report r = {0};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_scan_dir(SOLBOOK_SOURCE_DIR "/examples/forge/rmsnorm_bf16", &r, &err), SB_OK);
    assert_int_equal(r.files_scanned, 3);
    assert_int_equal(r.count, 0);
    sb_scan_report_free(&r);
}

static void test_hostile_fixtures(void **state)
{
    (void)state;
    sb_scan_report r = {0};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_scan_dir(SOLBOOK_TEST_DATA "/forge/shell_spawn", &r, &err), SB_OK);
    assert_true(count(&r, "process", 0) >= 2);
    assert_int_equal(count(&r, "shell", 0), 1);
    char line[1024];
    sb_scan_finding_format(&r.items[0], line, sizeof line);
    assert_non_null(strstr(line, "kernel.cu:20: process: system: system(\"sh -c"));
    sb_scan_report_free(&r);

    assert_int_equal(sb_scan_dir(SOLBOOK_TEST_DATA "/forge/writes_outside", &r, &err), SB_OK);
    assert_int_equal(count(&r, "file-path", 0), 3);
    sb_scan_report_free(&r);

    /* The GPU-only hostile kernels look harmless to the scanner. */
    const char *clean[] = {"never_ends", "wrong_answer", "slower"};
    for (size_t i = 0; i < 3; i++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/forge/%s", SOLBOOK_TEST_DATA, clean[i]);
        assert_int_equal(sb_scan_dir(dir, &r, &err), SB_OK);
        assert_int_equal(r.count, 0);
        sb_scan_report_free(&r);
    }
}

static void test_symlinks_are_findings(void **state)
{
    (void)state;
    char dir[] = "/tmp/sb-forge-scan-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char link[1100];
    snprintf(link, sizeof link, "%s/kernel.cu", dir);
    assert_int_equal(symlink("/etc/passwd", link), 0);
    sb_scan_report r = {0};
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_scan_dir(dir, &r, &err), SB_OK);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.items[0].rule, "file");
    assert_string_equal(r.items[0].file, "kernel.cu");
    sb_scan_report_free(&r);
    unlink(link);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comments_and_strings_are_not_code),
        cmocka_unit_test(test_process_spawning),
        cmocka_unit_test(test_line_splice_joins_identifiers),
        cmocka_unit_test(test_shell_strings),
        cmocka_unit_test(test_network),
        cmocka_unit_test(test_file_paths),
        cmocka_unit_test(test_includes),
        cmocka_unit_test(test_inline_asm),
        cmocka_unit_test(test_raw_strings_and_prefixes),
        cmocka_unit_test(test_interposed_runtime_functions),
        cmocka_unit_test(test_defines),
        cmocka_unit_test(test_example_candidate_is_clean),
        cmocka_unit_test(test_hostile_fixtures),
        cmocka_unit_test(test_symlinks_are_findings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
