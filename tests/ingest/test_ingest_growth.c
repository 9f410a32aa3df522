/* test_ingest_growth.c - a result file that grows after ingest's reader
 * looked at its size is still read within the document bound. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "home.h"
#include "ingest.h"
#include "json_file.h"

/* The executable is linked with --wrap=open and --wrap=realloc. The
 * reader stats a file against the bound before a preparer opens it, so
 * growing the file at that open is the race made certain: the first
 * open of grow_path, while armed, makes it GROWN_BYTES first. Every
 * realloc's size is kept at its largest, which is what a read of the
 * grown file would allocate. */
#define GROWN_BYTES ((off_t)8 << 20)

static char grow_path[512];
static atomic_int armed;
static atomic_int grew;
static atomic_size_t largest_realloc;

int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

int __wrap_open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    int one = 1;
    if (strcmp(path, grow_path) == 0 && atomic_compare_exchange_strong(&armed, &one, 0)) {
        if (truncate(path, GROWN_BYTES) == 0)
            atomic_store(&grew, 1);
    }
    return __real_open(path, flags, mode);
}

void *__wrap_realloc(void *p, size_t size)
{
    size_t seen = atomic_load(&largest_realloc);
    while (size > seen && !atomic_compare_exchange_weak(&largest_realloc, &seen, size))
        ;
    return __real_realloc(p, size);
}

typedef struct seen_errors {
    int errors;
    char last[2048];
} seen_errors;

static void on_error(void *ctx, const sb_error *e)
{
    seen_errors *s = ctx;
    s->errors++;
    sb_error_format(e, s->last, sizeof s->last);
}

static void test_grown_after_stat(void **state)
{
    (void)state;
    char dir[] = "/tmp/sb_test_growth_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char docs[256], db_path[256], schemas[1024];
    snprintf(docs, sizeof docs, "%s/docs", dir);
    snprintf(db_path, sizeof db_path, "%s/t.db", dir);
    snprintf(grow_path, sizeof grow_path, "%s/grows.json", docs);
    assert_int_equal(mkdir(docs, 0700), 0);
    FILE *f = fopen(grow_path, "w");
    assert_non_null(f);
    fputs("{}", f);
    fclose(f);

    sb_error e;
    sb_error_clear(&e);
    sb_ingest *ing = NULL;
    assert_int_equal(sb_data_path(schemas, sizeof schemas, "schemas", &e), SB_OK);
    assert_int_equal(sb_ingest_open(db_path, schemas, &ing, &e), SB_OK);

    seen_errors s = {0};
    sb_ingest_walk w = {.on_error = on_error, .ctx = &s};
    sb_ingest_stats st;
    char *paths[] = {docs};
    atomic_store(&largest_realloc, 0);
    atomic_store(&armed, 1);
    assert_int_equal(sb_ingest_paths(ing, paths, 1, &w, &st), SB_ERR);
    size_t largest = atomic_load(&largest_realloc);
    sb_ingest_close(ing);

    assert_int_equal(atomic_load(&grew), 1);
    assert_int_equal(st.stored, 0);
    assert_int_equal(st.refused, 1);
    assert_int_equal(s.errors, 1);
    char want[1024];
    snprintf(want, sizeof want, "%s: result document more than %zu bytes (1 MiB): refused", grow_path,
             SB_INGEST_DOC_BYTES);
    assert_string_equal(s.last, want);
    /* Read whole, the grown file takes 8 MiB; bounded, nothing near. */
    if (largest > SB_INGEST_DOC_BYTES + 2)
        fail_msg("a realloc of %zu bytes for a %zu-byte bound", largest, SB_INGEST_DOC_BYTES);
    printf("grown to %lld bytes after the stat: refused, largest realloc %zu bytes\n",
           (long long)GROWN_BYTES, largest);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grown_after_stat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
