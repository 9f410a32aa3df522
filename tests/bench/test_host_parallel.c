/* test_host_parallel.c - sb_host_parallel runs every part exactly once,
 * whatever the number of parts against threads (fewer, as many, more),
 * and returns only when all are done. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host_parallel.h"

typedef struct visits {
    int *count; /* [parts]: each part writes its own slot only */
    long *work;
} visits;

static void visit(void *arg, int part)
{
    visits *v = arg;
    long s = 0;
    for (int i = 0; i <= part * 100; i++) /* parts of different lengths */
        s += i;
    v->work[part] = s;
    v->count[part]++;
}

static void check(int parts, int max_threads)
{
    visits v = {calloc((size_t)parts, sizeof(int)), calloc((size_t)parts, sizeof(long))};
    assert_non_null(v.count);
    assert_non_null(v.work);
    sb_host_parallel(parts, max_threads, visit, &v);
    for (int p = 0; p < parts; p++) {
        assert_int_equal(v.count[p], 1);
        assert_true(v.work[p] == (long)(p * 100) * (p * 100 + 1) / 2);
    }
    free(v.count);
    free(v.work);
}

static void test_every_part_once(void **state)
{
    (void)state;
    check(1, 16);
    check(3, 16);
    check(16, 16);
    check(1000, 16);
    check(1000, 1);
    check(7, 200); /* more threads asked than the pool holds */
}

static void test_no_parts(void **state)
{
    (void)state;
    visits v = {NULL, NULL};
    sb_host_parallel(0, 16, visit, &v); /* nothing to run, nothing touched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_part_once),
        cmocka_unit_test(test_no_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
