/* test_file_set.c - core/file_set.h: a set publishes exactly its files
 * with their bytes and modes; a merge keeps the folder's other files, a
 * swap replaces them; a new folder's publishing refuses a folder that
 * holds anything and leaves it as it was; a name twice keeps the last
 * bytes; names with a folder in them are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "file_set.h"
#include "json_file.h"

static char root[256];

static char *slurp(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *buf = NULL;
    size_t len = 0;
    sb_error err;
    if (sb_file_read_all(path, &buf, &len, &err) != SB_OK)
        return NULL;
    return buf;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void add(sb_file_set *s, const char *name, const char *text, int executable)
{
    sb_buf b = SB_BUF_INIT;
    sb_error err;
    sb_buf_puts(&b, text);
    assert_int_equal(sb_file_set_add(s, name, &b, executable, &err), SB_OK);
    sb_buf_free(&b);
}

static void test_publish(void **state)
{
    (void)state;
    sb_error err;
    sb_file_set s = {0};
    add(&s, "a.md", "first\n", 0);
    add(&s, "run.sh", "#!/bin/sh\n", 1);
    add(&s, "a.md", "second\n", 0); /* replaces the first */
    assert_int_equal(s.n, 2);
    assert_string_equal(sb_buf_str(&sb_file_set_get(&s, "a.md")->data), "second\n");
    assert_null(sb_file_set_get(&s, "b.md"));
    sb_buf b = SB_BUF_INIT;
    assert_int_equal(sb_file_set_add(&s, "sub/x.md", &b, 0, &err), SB_ERR);
    assert_int_equal(sb_file_set_add(&s, "..", &b, 0, &err), SB_ERR);

    /* merge: the folder's other file stays, a.md is replaced */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/merge", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    put(dir, "other.md", "kept\n");
    put(dir, "a.md", "old\n");
    assert_int_equal(sb_file_set_publish(&s, dir, SB_STAGE_MERGE, &err), SB_OK);
    char *t = slurp(dir, "other.md");
    assert_string_equal(t, "kept\n");
    free(t);
    t = slurp(dir, "a.md");
    assert_string_equal(t, "second\n");
    free(t);
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/run.sh", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    printf("file_set: merge kept other.md, replaced a.md, run.sh mode %o\n", st.st_mode & 0777);

    /* a new folder: refused while it holds anything, left as it was */
    assert_int_equal(sb_file_set_publish_new(&s, dir, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "not empty"));
    t = slurp(dir, "other.md");
    assert_string_equal(t, "kept\n");
    free(t);
    snprintf(path, sizeof path, "%s/new", root);
    assert_int_equal(sb_file_set_publish_new(&s, path, &err), SB_OK);
    t = slurp(path, "a.md");
    assert_string_equal(t, "second\n");
    free(t);

    /* swap: the folder becomes exactly the set */
    assert_int_equal(sb_file_set_publish(&s, dir, SB_STAGE_SWAP, &err), SB_OK);
    snprintf(path, sizeof path, "%s/other.md", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    printf("file_set: swap left only the set's %zu files\n", s.n);
    sb_file_set_free(&s);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/sb_test_file_set_XXXXXX");
    if (!mkdtemp(root))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    sb_remove_tree(root, NULL);
    return rc;
}
