/* test_provenance.c - provenance of a CPU run and of a GPU run without
 * NVML (this machine has no NVIDIA driver), git state of a repository made
 * here, NVML absence, throttle-reason names, timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dlfcn.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "home.h"
#include "json_file.h"
#include "nvml.h"
#include "provenance.h"
#include "sku.h"
#ifdef SB_HAVE_VALIDATOR
#include "json_schema.h"
#endif

static int matches(const char *s, const char *pattern)
{
    regex_t re;
    int ok;
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    ok = regexec(&re, s, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

#define TS_PATTERN "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"
#define ID_PATTERN "^[a-z0-9][a-z0-9._+-]*$"

static const char *str(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_string(v))
        fail_msg("\"%s\" is not a string", key);
    return json_string_value(v);
}

static const json_t *obj(const json_t *parent, const char *key)
{
    const json_t *v = json_object_get(parent, key);
    if (!json_is_object(v))
        fail_msg("\"%s\" is not an object", key);
    return v;
}

/* Checks against definitions/provenance of data/schemas/solbook.result.v1.json
 * with the project's validator, when it is built. */
static void schema_check(const json_t *prov)
{
#ifdef SB_HAVE_VALIDATOR
    char path[2048];
    json_t *result, *wrapper;
    sb_schema *schema;
    sb_error err;
    snprintf(path, sizeof path, "%s/data/schemas/solbook.result.v1.json", sb_home());
    if (sb_json_load_file(path, &result, &err) != SB_OK)
        fail_msg("%s: %s", path, err.msg);
    wrapper = json_pack("{s:s,s:O}", "$ref", "#/definitions/provenance", "definitions",
                        json_object_get(result, "definitions"));
    json_decref(result);
    assert_non_null(wrapper);
    if (sb_schema_compile(wrapper, "provenance", &schema, &err) != SB_OK)
        fail_msg("compile: %s", err.msg);
    json_decref(wrapper);
    if (sb_schema_check(schema, prov, "provenance", &err) != SB_OK)
        fail_msg("provenance invalid at %s: %s", err.where, err.msg);
    {
        /* the check has teeth: a wrong device kind is refused */
        json_t *bad = json_deep_copy(prov);
        json_object_set_new(json_object_get(bad, "device"), "kind", json_string("tpu"));
        assert_int_equal(sb_schema_check(schema, bad, "provenance", &err), SB_ERR);
        assert_string_equal(err.where, "/device/kind");
        json_decref(bad);
    }
    sb_schema_free(schema);
#else
    (void)prov;
#endif
}

/* Structural checks of every required field, by type. */
static void check_common(const json_t *p)
{
    const json_t *git = obj(p, "git"), *tool = obj(p, "tool"), *host = obj(p, "host");
    const json_t *sw = obj(p, "software"), *dev = obj(p, "device");
    const char *sha = str(git, "sha");
    assert_true(strcmp(sha, "unknown") == 0 || matches(sha, "^[0-9a-f]{40}$"));
    assert_non_null(json_object_get(git, "dirty"));
    assert_true(json_is_boolean(json_object_get(git, "dirty")) ||
                json_is_null(json_object_get(git, "dirty")));
    assert_true(str(tool, "name")[0] != '\0');
    assert_true(str(tool, "version")[0] != '\0');
    assert_true(str(host, "hostname")[0] != '\0');
    assert_true(matches(str(host, "os"), "^[A-Za-z]"));
    assert_true(str(host, "cpu")[0] != '\0');
    str(sw, "driver_version");
    str(sw, "cuda_runtime_version");
    str(sw, "cublas_version");
    assert_true(strcmp(str(dev, "kind"), "gpu") == 0 || strcmp(str(dev, "kind"), "cpu") == 0);
    assert_true(str(dev, "name")[0] != '\0');
    assert_true(matches(str(dev, "arch"), ID_PATTERN));
    assert_true(matches(str(dev, "sku"), ID_PATTERN));
    assert_true(matches(str(dev, "compute_capability"), "^([0-9]+\\.[0-9]+|unknown)$"));
    assert_true(matches(str(p, "started_at"), TS_PATTERN));
    assert_true(matches(str(p, "finished_at"), TS_PATTERN));
    assert_true(strcmp(str(p, "started_at"), str(p, "finished_at")) <= 0);
    schema_check(p);
}

static long long meminfo_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

static void test_cpu_run(void **state)
{
    char tmp[] = "/tmp/sb_prov_nogit_XXXXXX";
    sb_provenance_opts o = {.tool_name = "solbench", .tool_version = "0.1.0",
                            .device_is_cpu = 1};
    json_t *p = NULL;
    sb_error err;
    const json_t *dev, *host;
    char want_sku[128], slug[128];
    (void)state;
    assert_non_null(mkdtemp(tmp));
    o.git_dir = tmp; /* not a repository */
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    check_common(p);
    dev = obj(p, "device");
    host = obj(p, "host");
    assert_string_equal(str(obj(p, "tool"), "name"), "solbench");
    assert_string_equal(str(obj(p, "tool"), "version"), "0.1.0");
    assert_string_equal(str(obj(p, "git"), "sha"), "unknown");
    assert_true(json_is_null(json_object_get(obj(p, "git"), "dirty")));
    assert_string_equal(str(dev, "kind"), "cpu");
    assert_string_equal(str(dev, "arch"), "cpu");
    assert_string_equal(str(dev, "compute_capability"), "unknown");
    assert_string_equal(str(dev, "name"), str(host, "cpu"));
    assert_true(json_is_null(json_object_get(dev, "index")));
    /* sku is cpu-<slug>, a shortening of the model's slug */
    assert_true(matches(str(dev, "sku"), "^cpu-[a-z0-9]"));
    sb_sku_slug(str(host, "cpu"), slug, sizeof slug);
    snprintf(want_sku, sizeof want_sku, "%s", str(dev, "sku") + 4);
    if (strcmp(str(host, "cpu"), "unknown") != 0) {
        /* every word of the sku slug is in the model slug */
        char *save = NULL;
        for (char *w = strtok_r(want_sku, "-", &save); w; w = strtok_r(NULL, "-", &save))
            assert_non_null(strstr(slug, w));
    }
    assert_int_equal(json_integer_value(json_object_get(dev, "sm_count")),
                     sysconf(_SC_NPROCESSORS_ONLN));
    assert_int_equal(json_integer_value(json_object_get(dev, "memory_bytes")), meminfo_bytes());
    assert_string_equal(str(obj(p, "software"), "driver_version"), "unknown");
    assert_string_equal(str(obj(p, "software"), "cuda_runtime_version"), "unknown");
    assert_string_equal(str(obj(p, "software"), "cublas_version"), "unknown");
    assert_string_equal(str(dev, "pci_device_id"), "unknown");
    assert_true(json_is_null(json_object_get(dev, "ecc")));
    /* finishing moves finished_at forward, never before started_at */
    usleep(5000);
    assert_int_equal(sb_provenance_finish(p, &err), SB_OK);
    assert_true(strcmp(str(p, "started_at"), str(p, "finished_at")) < 0);
    check_common(p);
    json_decref(p);
    rmdir(tmp);
}

static int nvml_present(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

static void test_gpu_run_without_nvml(void **state)
{
    sb_provenance_opts o = {.tool_name = "solbook", .tool_version = "0.1.0",
                            .device_index = 1};
    json_t *p = NULL;
    sb_error err;
    const json_t *dev;
    (void)state;
    if (nvml_present())
        skip();
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    check_common(p);
    dev = obj(p, "device");
    assert_string_equal(str(dev, "kind"), "gpu");
    assert_int_equal(json_integer_value(json_object_get(dev, "index")), 1);
    assert_string_equal(str(dev, "name"), "unknown");
    assert_string_equal(str(dev, "sku"), "unknown");
    assert_string_equal(str(dev, "arch"), "unknown");
    assert_string_equal(str(dev, "uuid"), "unknown");
    assert_true(json_is_null(json_object_get(dev, "memory_bytes")));
    assert_true(json_is_null(json_object_get(obj(dev, "clocks"), "sm_mhz")));
    assert_string_equal(str(obj(p, "software"), "driver_version"), "unknown");
    json_decref(p);

    /* the same through the explicit-handle entry point with no handle */
    assert_int_equal(sb_provenance_collect_nvml(&o, NULL, &p, &err), SB_OK);
    assert_string_equal(str(obj(p, "device"), "sku"), "unknown");
    json_decref(p);
}

static void test_bad_options(void **state)
{
    sb_provenance_opts o = {.tool_name = "", .tool_version = "1", .device_is_cpu = 1};
    json_t *p = (json_t *)1;
    sb_error err;
    (void)state;
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_ERR);
    assert_null(p);
    assert_non_null(strstr(err.msg, "tool name and version"));
    o.tool_name = "x";
    o.device_is_cpu = 0;
    o.device_index = -1;
    assert_int_equal(sb_provenance_collect_nvml(&o, NULL, &p, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "negative"));
    p = json_array();
    assert_int_equal(sb_provenance_finish(p, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "not a JSON object"));
    json_decref(p);
}

static void test_nvml_absent(void **state)
{
    sb_nvml *n = (sb_nvml *)1;
    sb_error err;
    json_t *cs = (json_t *)1, *dev;
    char buf[32] = "kept";
    (void)state;
    if (nvml_present())
        skip();
    sb_error_clear(&err);
    assert_int_equal(sb_nvml_open(&n, &err), SB_ERR);
    assert_null(n);
    assert_non_null(strstr(err.msg, "NVML not available"));
    assert_non_null(strstr(err.msg, "libnvidia-ml.so.1"));
    assert_null(strchr(err.msg, '\n'));
    /* calls on no handle fail cleanly */
    assert_int_equal(sb_nvml_clock_state(NULL, 0, &cs, &err), SB_ERR);
    assert_null(cs);
    dev = json_object();
    assert_int_equal(sb_nvml_device_identity(NULL, 0, dev, &err), SB_ERR);
    assert_int_equal(json_object_size(dev), 0);
    json_decref(dev);
    assert_int_equal(sb_nvml_driver_version(NULL, buf, sizeof buf), SB_ERR);
    assert_string_equal(buf, "kept");
    sb_nvml_close(NULL);
}

static void test_throttle_names(void **state)
{
    json_t *a;
    char *s;
    (void)state;
    a = sb_nvml_throttle_reason_names(0);
    assert_int_equal(json_array_size(a), 0);
    json_decref(a);
    a = sb_nvml_throttle_reason_names(0x4 | 0x40);
    s = json_dumps(a, JSON_COMPACT);
    assert_string_equal(s, "[\"sw_power_cap\",\"hw_thermal_slowdown\"]");
    free(s);
    json_decref(a);
    a = sb_nvml_throttle_reason_names(0x1FF);
    s = json_dumps(a, JSON_COMPACT);
    assert_string_equal(s, "[\"gpu_idle\",\"applications_clocks_setting\",\"sw_power_cap\","
                           "\"hw_slowdown\",\"sync_boost\",\"sw_thermal_slowdown\","
                           "\"hw_thermal_slowdown\",\"hw_power_brake_slowdown\","
                           "\"display_clock_setting\"]");
    free(s);
    json_decref(a);
    a = sb_nvml_throttle_reason_names(0x8 | 0x200 | (1ULL << 63));
    s = json_dumps(a, JSON_COMPACT);
    assert_string_equal(s, "[\"hw_slowdown\",\"unknown_0x200\",\"unknown_0x8000000000000000\"]");
    free(s);
    json_decref(a);
}

static void test_cpu_sku(void **state)
{
    static const char *const cases[][2] = {
        {"AMD EPYC 9454 48-Core Processor", "cpu-amd-epyc-9454"},
        {"Intel(R) Xeon(R) Platinum 8480C", "cpu-intel-xeon-platinum-8480c"},
        {"Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "cpu-intel-xeon-e5-2680-v4"},
        {"Intel(R) Xeon(R) Processor @ 2.10GHz", "cpu-intel-xeon"},
        {"AMD Ryzen Threadripper PRO 7995WX 96-Cores", "cpu-amd-ryzen-threadripper-pro-7995wx-96-cores"},
        {"Neoverse-V2", "cpu-neoverse-v2"},
        {"unknown", "cpu-unknown"},
        {"(R) (TM) CPU", "cpu-unknown"},
        {"", "cpu-unknown"},
    };
    char out[64];
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_provenance_cpu_sku(cases[i][0], out, sizeof out);
        if (strcmp(out, cases[i][1]) != 0)
            fail_msg("\"%s\" -> %s, want %s", cases[i][0], out, cases[i][1]);
        assert_true(matches(out, ID_PATTERN));
    }
}

static void test_time_format(void **state)
{
    char buf[40], small[8];
    (void)state;
    sb_time_now_rfc3339(buf, sizeof buf);
    assert_true(matches(buf, TS_PATTERN));
    assert_true(strncmp(buf, "2026", 4) >= 0);
    sb_time_now_rfc3339(small, sizeof small);
    assert_int_equal(strlen(small), 7);
}

/* Runs a shell command line built from fixed text and a mkdtemp path. */
static void sh(const char *fmt, const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, dir, dir, dir);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

static void read_head(const char *dir, char *out, size_t size)
{
    char cmd[512];
    FILE *f;
    snprintf(cmd, sizeof cmd, "git -C %s rev-parse HEAD", dir);
    f = popen(cmd, "r");
    assert_non_null(f);
    assert_non_null(fgets(out, (int)size, f));
    assert_int_equal(pclose(f), 0);
    out[strcspn(out, "\n")] = '\0';
}

static void test_git_state(void **state)
{
    char tmp[] = "/tmp/sb_prov_git_XXXXXX";
    char head[64];
    json_t *g;
    sb_provenance_opts o = {.tool_name = "solbench", .tool_version = "0.1.0",
                            .device_is_cpu = 1};
    json_t *p;
    sb_error err;
    (void)state;
    if (system("git --version >/dev/null 2>&1") != 0)
        skip();
    assert_non_null(mkdtemp(tmp));
    sh("git init -q %s && echo one > %s/file.txt", tmp);
    sh("git -C %s add file.txt && git -C %s -c user.name=t -c user.email=t@example.com "
       "-c commit.gpgsign=false commit -q -m first", tmp);
    read_head(tmp, head, sizeof head);
    assert_true(matches(head, "^[0-9a-f]{40}$"));

    g = sb_provenance_git(tmp);
    assert_non_null(g);
    assert_string_equal(str(g, "sha"), head);
    assert_true(json_is_false(json_object_get(g, "dirty")));
    /* no tags: describe is the abbreviated commit */
    assert_true(strlen(str(g, "describe")) >= 4);
    assert_int_equal(strncmp(head, str(g, "describe"), strlen(str(g, "describe"))), 0);
    json_decref(g);

    sh("echo two >> %s/file.txt", tmp);
    g = sb_provenance_git(tmp);
    assert_string_equal(str(g, "sha"), head);
    assert_true(json_is_true(json_object_get(g, "dirty")));
    assert_true(matches(str(g, "describe"), "-dirty$"));
    json_decref(g);

    /* the same through a whole provenance */
    o.git_dir = tmp;
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    assert_string_equal(str(obj(p, "git"), "sha"), head);
    assert_true(json_is_true(json_object_get(obj(p, "git"), "dirty")));
    check_common(p);
    json_decref(p);

    /* an untracked file counts as uncommitted work too */
    sh("git -C %s checkout -q -- file.txt && touch %s/new.txt", tmp);
    g = sb_provenance_git(tmp);
    assert_true(json_is_true(json_object_get(g, "dirty")));
    json_decref(g);
    sh("rm -f %s/new.txt", tmp);
    g = sb_provenance_git(tmp);
    assert_true(json_is_false(json_object_get(g, "dirty")));
    json_decref(g);

    /* not a directory at all */
    g = sb_provenance_git("/nonexistent/dir");
    assert_string_equal(str(g, "sha"), "unknown");
    assert_true(json_is_null(json_object_get(g, "dirty")));
    assert_null(json_object_get(g, "describe"));
    json_decref(g);
    sh("rm -rf %s", tmp);
}

/* Inside a batch job the provenance names it: Slurm's array job and task,
 * or the Indexed Job solbook submit renders; outside one there is none. */
static void test_scheduler(void **state)
{
    sb_provenance_opts o = {.tool_name = "solbench", .tool_version = "0.1.0", .device_is_cpu = 1};
    json_t *p = NULL;
    sb_error err;
    (void)state;
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_ARRAY_JOB_ID");
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SOLBOOK_JOB_NAME");
    unsetenv("JOB_COMPLETION_INDEX");
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    assert_null(json_object_get(p, "scheduler"));
    json_decref(p);

    setenv("SLURM_JOB_ID", "4247", 1);
    setenv("SLURM_ARRAY_JOB_ID", "4242", 1);
    setenv("SLURM_ARRAY_TASK_ID", "5", 1);
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    schema_check(p);
    assert_string_equal(str(obj(p, "scheduler"), "engine"), "slurm");
    assert_string_equal(str(obj(p, "scheduler"), "job_id"), "4242");
    assert_int_equal(json_integer_value(json_object_get(obj(p, "scheduler"), "array_task_id")), 5);
    json_decref(p);
    /* A plain Slurm job: its own id, no array task. */
    unsetenv("SLURM_ARRAY_JOB_ID");
    unsetenv("SLURM_ARRAY_TASK_ID");
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    schema_check(p);
    assert_string_equal(str(obj(p, "scheduler"), "job_id"), "4247");
    assert_true(json_is_null(json_object_get(obj(p, "scheduler"), "array_task_id")));
    json_decref(p);
    unsetenv("SLURM_JOB_ID");

    setenv("SOLBOOK_JOB_NAME", "sb-gemm-spec-h100-r1", 1);
    setenv("JOB_COMPLETION_INDEX", "3", 1);
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    schema_check(p);
    assert_string_equal(str(obj(p, "scheduler"), "engine"), "kubernetes");
    assert_string_equal(str(obj(p, "scheduler"), "job_id"), "sb-gemm-spec-h100-r1");
    assert_int_equal(json_integer_value(json_object_get(obj(p, "scheduler"), "array_task_id")), 3);
    json_decref(p);
    /* A completion index that is not a number: no scheduler claimed. */
    setenv("JOB_COMPLETION_INDEX", "x3", 1);
    assert_int_equal(sb_provenance_collect(&o, &p, &err), SB_OK);
    assert_null(json_object_get(p, "scheduler"));
    json_decref(p);
    unsetenv("SOLBOOK_JOB_NAME");
    unsetenv("JOB_COMPLETION_INDEX");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_run),
        cmocka_unit_test(test_gpu_run_without_nvml),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_nvml_absent),
        cmocka_unit_test(test_throttle_names),
        cmocka_unit_test(test_cpu_sku),
        cmocka_unit_test(test_time_format),
        cmocka_unit_test(test_git_state),
        cmocka_unit_test(test_scheduler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
