/* test_result_paths.c - the same samples written by solbench
 * (bench/result.c), by forge (forge/bench.c) and by an importer (Google
 * Benchmark JSON, ingest/import_gbench.c) give the same timing: the same
 * samples and the same stats object, field by field. All three write
 * through model/result_doc.h; this holds them to it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench.h"
#include "import.h"
#include "result.h"

/* Five repeats of one sample each (a Google Benchmark file holds one
 * sample a repetition), in ms, exact in binary. */
#define N 5
static const double SAMPLES[N] = {0.5, 0.25, 0.75, 1.0, 0.125};
/* Every sample 0 (a tool's timer below its resolution): where the writers
 * once disagreed on rel_noise and the spread. */
static const double ZEROS[N] = {0, 0, 0, 0, 0};

static json_t *solbench_timing(const double *v)
{
    static const sb_provider providers[] = {{"cpu", SB_BACKEND_CPU, "host"}, {NULL, SB_BACKEND_CPU, NULL}};
    sb_op op = {.name = "copy", .providers = providers};
    sb_op_config cfg = {.mode = "fwd", .dtype = SB_DTYPE_FP32, .input_sets = 1};
    double samples[N];
    memcpy(samples, v, sizeof samples);
    sb_measurement m = {.status = "passed", .timer = "host-monotonic", .iters = 1, .repeats = (int)N,
                        .samples = samples, .reference = "float64", .checksum = "unknown",
                        .bitwise_repeatable = -1, .batch_invariant = -1, .peak_device_bytes = -1,
                        .passed = 1};
    json_t *prov = json_object();
    sb_result_env env = {.suite = "paths", .provenance = prov};
    json_t *doc = sb_result_build(&env, &op, &cfg, 0, &m);
    json_decref(prov);
    assert_non_null(doc);
    json_t *t = json_incref(json_object_get(doc, "timing"));
    json_decref(doc);
    return t;
}

static json_t *forge_timing(const double *v)
{
    json_t *samples = json_array();
    for (size_t i = 0; i < N; i++)
        json_array_append_new(samples, json_pack("[f]", v[i]));
    json_t *spec = json_pack("{s:s, s:s, s:s, s:s, s:s}", "op", "copy", "mode", "fwd", "dtype", "fp32", "run_id",
                             "paths", "bound", "memory");
    json_t *raw = json_pack("{s:{s:i, s:i, s:i, s:s, s:i}}", "protocol", "warmup_iters", 0, "iters", 1, "repeats",
                            (int)N, "l2", "cold", "input_sets", 1);
    json_t *cas = json_pack("{s:{s:i}, s:f}", "shape", "n", 1024, "bytes", 8192.0);
    json_t *pr = json_pack("{s:{s:b}, s:o}", "check", "passed", 1, "samples", samples);
    json_t *prov = json_object();
    char reason[256];
    json_t *doc = sb_forge_result(spec, raw, cas, pr, "candidate", "s1", prov, NULL, "", reason, sizeof reason);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "status")), "passed");
    json_t *t = json_incref(json_object_get(doc, "timing"));
    json_decref(doc);
    json_decref(spec);
    json_decref(raw);
    json_decref(cas);
    json_decref(pr);
    json_decref(prov);
    return t;
}

static json_t *import_timing(const double *v)
{
    char path[] = "/tmp/sb-result-paths-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"context\": {\"date\": \"2025-03-04T10:20:30+01:00\", \"host_name\": \"h\", \"executable\": \"./b\", "
          "\"num_cpus\": 1, \"library_version\": \"v1.8.3\"}, \"benchmarks\": [", f);
    for (size_t i = 0; i < N; i++)
        fprintf(f, "%s{\"name\": \"BM_copy/1024\", \"run_name\": \"BM_copy/1024\", \"run_type\": \"iteration\", "
                   "\"repetitions\": %zu, \"repetition_index\": %zu, \"threads\": 1, \"iterations\": 10, "
                   "\"real_time\": %.17g, \"cpu_time\": %.17g, \"time_unit\": \"ms\"}",
                i ? ", " : "", (size_t)N, i, v[i], v[i]);
    fputs("]}\n", f);
    assert_int_equal(fclose(f), 0);
    sb_import_options o = {0};
    json_t *docs = NULL;
    sb_import_stats st = {0};
    sb_error err;
    int rc = sb_import_convert(path, "gbench-json", &o, &docs, &st, &err);
    unlink(path);
    if (rc != SB_OK)
        fail_msg("%s: %s", err.file, err.msg);
    assert_int_equal(json_array_size(docs), 1);
    json_t *t = json_incref(json_object_get(json_array_get(docs, 0), "timing"));
    json_decref(docs);
    return t;
}

/* The three timings of v, held to solbench's field by field; returned
 * for the caller's own checks (free each). */
static void same_timing(const double *v, json_t *t[3])
{
    t[0] = solbench_timing(v);
    t[1] = forge_timing(v);
    t[2] = import_timing(v);
    const char *path[3] = {"solbench", "forge", "gbench import"};
    static const char *fields[] = {"count", "min", "p20", "median", "p80", "max", "mean", "stdev", "rel_noise",
                                   "repeat_median_rel_spread"};
    for (int p = 0; p < 3; p++) {
        assert_non_null(t[p]);
        json_t *st = json_object_get(t[p], "stats");
        assert_int_equal(json_object_size(st), sizeof fields / sizeof fields[0]);
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
            json_t *mine = json_object_get(st, fields[k]), *first = json_object_get(json_object_get(t[0], "stats"), fields[k]);
            if (!json_is_number(mine) || !json_equal(mine, first))
                fail_msg("%s: stats.%s is %g, solbench's %g", path[p], fields[k], json_number_value(mine),
                         json_number_value(first));
        }
        if (!json_equal(json_object_get(t[p], "samples"), json_object_get(t[0], "samples")))
            fail_msg("%s: timing.samples differ from solbench's", path[p]);
    }
    printf("checked: %zu stats fields and the samples of %d samples agree across solbench, forge, gbench import\n",
           sizeof fields / sizeof fields[0], N);
}

static void test_same_samples_same_stats(void **state)
{
    (void)state;
    json_t *t[3];
    same_timing(SAMPLES, t);
    /* And the values are the samples' own: sorted 0.125 0.25 0.5 0.75 1. */
    json_t *st = json_object_get(t[0], "stats");
    double mean = 2.625 / 5, ss = 0;
    for (size_t i = 0; i < N; i++)
        ss += (SAMPLES[i] - mean) * (SAMPLES[i] - mean);
    assert_int_equal(json_integer_value(json_object_get(st, "count")), 5);
    assert_true(json_real_value(json_object_get(st, "p20")) == 0.225);
    assert_true(json_real_value(json_object_get(st, "median")) == 0.5);
    assert_true(fabs(json_real_value(json_object_get(st, "stdev")) - sqrt(ss / 4)) < 1e-15);
    assert_true(fabs(json_real_value(json_object_get(st, "repeat_median_rel_spread")) - sqrt(ss / 4) / mean) < 1e-15);
    for (int p = 0; p < 3; p++)
        json_decref(t[p]);
}

static void test_zero_samples(void **state)
{
    (void)state;
    json_t *t[3];
    same_timing(ZEROS, t);
    json_t *st = json_object_get(t[0], "stats");
    assert_true(json_real_value(json_object_get(st, "rel_noise")) == 0.0);
    assert_true(json_real_value(json_object_get(st, "repeat_median_rel_spread")) == 0.0);
    for (int p = 0; p < 3; p++)
        json_decref(t[p]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_samples_same_stats),
        cmocka_unit_test(test_zero_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
