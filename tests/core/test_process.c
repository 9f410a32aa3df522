/* test_process.c - core/process.h and core/mkdirs.h: PATH look-up,
 * starting a program with its streams, folder and environment, exec
 * failures as errors, capturing output; mkdir -p. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "mkdirs.h"
#include "process.h"

static void test_find(void **state)
{
    (void)state;
    char path[4096];
    assert_int_equal(sb_process_find("sh", path, sizeof path), SB_OK);
    assert_non_null(strchr(path, '/'));
    assert_int_equal(access(path, X_OK), 0);
    assert_int_equal(sb_process_find("/bin/sh", path, sizeof path), SB_OK);
    assert_string_equal(path, "/bin/sh");
    assert_int_equal(sb_process_find("solbook-no-such-program", path, sizeof path), SB_ERR);
    assert_int_equal(sb_process_find("/etc", path, sizeof path), SB_ERR); /* a folder is not a program */
    char *saved = strdup(getenv("PATH"));
    setenv("PATH", "/nonexistent-dir", 1);
    assert_int_equal(sb_process_find("sh", path, sizeof path), SB_ERR);
    setenv("PATH", saved, 1);
    free(saved);
}

static void test_capture_env_and_status(void **state)
{
    (void)state;
    char out[256];
    size_t total;
    int status;
    sb_error err;
    const char *argv[] = {"sh", "-c", "echo out; echo err >&2; echo \"$SB_TEST_VAR\"; exit 3", NULL};
    const char *env[] = {"SB_TEST_VAR=given", "PATH=/usr/bin:/bin", NULL};
    assert_int_equal(sb_process_capture(argv, env, 0, out, sizeof out, &total, &status, &err), SB_OK);
    assert_string_equal(out, "out\ngiven\n");
    assert_int_equal(status, 3);
    assert_int_equal(total, 10);
    assert_int_equal(sb_process_capture(argv, env, 1, out, sizeof out, &total, &status, &err), SB_OK);
    assert_string_equal(out, "out\nerr\ngiven\n");
    /* Output beyond the buffer is read and counted, not kept. */
    const char *many[] = {"sh", "-c", "i=0; while [ $i -lt 1000 ]; do echo 0123456789; i=$((i+1)); done; kill -9 $$", NULL};
    char small[8];
    assert_int_equal(sb_process_capture(many, NULL, 0, small, sizeof small, &total, &status, &err), SB_OK);
    assert_string_equal(small, "0123456");
    assert_int_equal(total, 11000);
    assert_int_equal(status, 128 + 9);
}

static void test_start_in_a_folder_and_its_failures(void **state)
{
    (void)state;
    char dir[] = "/tmp/sb-test-process-XXXXXX";
    assert_non_null(mkdtemp(dir));
    sb_process_opts o;
    sb_process_opts_init(&o);
    o.cwd = dir;
    o.own_group = 1;
    const char *argv[] = {"sh", "-c", "pwd > where.txt; [ \"$(ps -o pgid= -p $$ | tr -d ' ')\" = $$ ]", NULL};
    pid_t pid;
    sb_error err;
    assert_int_equal(sb_process_start(argv, &o, &pid, &err), SB_OK);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_int_equal(sb_process_status_code(ws), 0); /* it led its own process group */
    char where[600], line[600] = "";
    snprintf(where, sizeof where, "%s/where.txt", dir);
    FILE *f = fopen(where, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(where);
    char want[600];
    snprintf(want, sizeof want, "%s\n", dir);
    assert_string_equal(line, want);
    /* A folder that is not there: an error of the start, not an exit status. */
    o.cwd = "/nonexistent-solbook-dir";
    assert_int_equal(sb_process_start(argv, &o, &pid, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "cannot enter the working folder /nonexistent-solbook-dir"));
    /* A file that is executable but cannot be executed. */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/not-a-program", dir);
    f = fopen(bad, "w");
    assert_non_null(f);
    fputs("\x7f" "ELF garbage", f);
    fclose(f);
    chmod(bad, 0755);
    const char *bargv[] = {bad, NULL};
    sb_process_opts_init(&o);
    assert_int_equal(sb_process_start(bargv, &o, &pid, &err), SB_ERR);
    assert_string_equal(err.file, bad);
    assert_non_null(strstr(err.msg, "cannot run: "));
    const char *missing[] = {"solbook-no-such-program", NULL};
    assert_int_equal(sb_process_start(missing, &o, &pid, &err), SB_ERR);
    assert_string_equal(err.msg, "program not found or not executable");
    unlink(bad);
    rmdir(dir);
}

static void test_mkdirs(void **state)
{
    (void)state;
    char dir[] = "/tmp/sb-test-mkdirs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char deep[600], file[600];
    snprintf(deep, sizeof deep, "%s/a/b/c", dir);
    sb_error err;
    assert_int_equal(sb_mkdirs(deep, &err), SB_OK);
    struct stat st;
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(sb_mkdirs(deep, &err), SB_OK); /* already there */
    snprintf(file, sizeof file, "%s/a/file", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(sb_mkdirs(file, &err), SB_ERR);
    assert_string_equal(err.msg, "exists and is not a directory");
    char under[700];
    snprintf(under, sizeof under, "%s/x", file);
    assert_int_equal(sb_mkdirs(under, &err), SB_ERR);
    assert_string_equal(err.file, under);
    unlink(file);
    rmdir(deep);
    snprintf(deep, sizeof deep, "%s/a/b", dir);
    rmdir(deep);
    snprintf(deep, sizeof deep, "%s/a", dir);
    rmdir(deep);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_capture_env_and_status),
        cmocka_unit_test(test_start_in_a_folder_and_its_failures),
        cmocka_unit_test(test_mkdirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
