/* test_db_commits.c - db/commits.h: git log text read and ordered by
 * ancestry, malformed text refused with its line, the table replaced on
 * import and read back as ordinals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "commits.h"
#include "store.h"

#define A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define C "cccccccccccccccccccccccccccccccccccccccc"
#define R "1111111111111111111111111111111111111111"
#define X "9999999999999999999999999999999999999999"

/* git log order (newest first): C merges B and A, which both branch
 * from R; B was committed earlier, so it comes first; X is a parent
 * outside the file. A blank line and a CR are skipped. */
static const char history[] = C " " B " " A " 300\n"
                              "\n" A " " R " 200\r\n" B " " R " " X " 100\n" R " 50\n";

static long long ordinal_of(const sb_commit_list *l, const char *sha)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].sha, sha) == 0)
            return l->v[i].ordinal;
    return -2;
}

static void test_parse_order(void **state)
{
    (void)state;
    sb_commit_list l;
    sb_error e;
    assert_int_equal(sb_commits_parse(history, sizeof history - 1, "h.txt", &l, &e), SB_OK);
    assert_int_equal(l.n, 4);
    assert_int_equal(ordinal_of(&l, R), 0);
    assert_int_equal(ordinal_of(&l, B), 1);
    assert_int_equal(ordinal_of(&l, A), 2);
    assert_int_equal(ordinal_of(&l, C), 3);
    assert_string_equal(l.v[0].parents, B " " A);
    assert_int_equal(l.v[0].committed_at, 300);
    sb_commits_free(&l);
    /* a child committed before its parent still comes after it */
    static const char skew[] = B " " A " 10\n" A " 99\n";
    assert_int_equal(sb_commits_parse(skew, sizeof skew - 1, "s", &l, &e), SB_OK);
    assert_int_equal(ordinal_of(&l, A), 0);
    assert_int_equal(ordinal_of(&l, B), 1);
    sb_commits_free(&l);
}

static void test_refused(void **state)
{
    (void)state;
    sb_commit_list l;
    sb_error e;
    static const char shortsha[] = A " 5\nabc 6\n";
    assert_int_equal(sb_commits_parse(shortsha, sizeof shortsha - 1, "f", &l, &e), SB_ERR);
    assert_string_equal(e.where, "line 2");
    static const char notime[] = A "\n";
    assert_int_equal(sb_commits_parse(notime, sizeof notime - 1, "f", &l, &e), SB_ERR);
    static const char twice[] = A " 5\n" A " 6\n";
    assert_int_equal(sb_commits_parse(twice, sizeof twice - 1, "f", &l, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "twice"));
    static const char cycle[] = A " " B " 5\n" B " " A " 6\n";
    assert_int_equal(sb_commits_parse(cycle, sizeof cycle - 1, "f", &l, &e), SB_ERR);
    assert_non_null(strstr(e.msg, "cycle"));
}

static void test_store_and_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/sb-test-db-commits-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/lab.db", dir);
    sb_db *db;
    sb_error e;
    assert_int_equal(sb_db_open(path, SB_DB_WRITE, &db, &e), SB_OK);
    sb_commit_list l;
    assert_int_equal(sb_commits_parse(history, sizeof history - 1, "h", &l, &e), SB_OK);
    assert_int_equal(sb_commits_store(db, &l, &e), SB_OK);
    sb_commits_free(&l);
    const char *shas[] = {C, "unknown", R, "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"};
    long long ord[4];
    assert_int_equal(sb_commits_ordinals(db, shas, 4, ord, &e), SB_OK);
    assert_true(ord[0] == 3 && ord[1] == -1 && ord[2] == 0 && ord[3] == 1);
    long long at[4];
    assert_int_equal(sb_commits_lookup(db, shas, 4, ord, at, &e), SB_OK);
    assert_true(ord[0] == 3 && ord[1] == -1 && ord[2] == 0 && ord[3] == 1);
    assert_true(at[0] == 300 && at[1] == -1 && at[2] == 50 && at[3] == 100);
    /* a second import replaces the first */
    static const char other[] = C " 7\n";
    assert_int_equal(sb_commits_parse(other, sizeof other - 1, "o", &l, &e), SB_OK);
    assert_int_equal(sb_commits_store(db, &l, &e), SB_OK);
    sb_commits_free(&l);
    assert_int_equal(sb_commits_ordinals(db, shas, 4, ord, &e), SB_OK);
    assert_true(ord[0] == 0 && ord[1] == -1 && ord[2] == -1 && ord[3] == -1);
    sb_db_close(db);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_order),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_store_and_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
