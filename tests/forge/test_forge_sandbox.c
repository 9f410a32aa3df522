/* test_forge_sandbox.c - the child-process sandbox on small C programs
 * that loop forever, write a huge file, fail, leave a grandchild behind,
 * or allocate too much; and what the child sees of its environment. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsutil.h"
#include "sandbox.h"

typedef struct fixture {
    char dir[256];
    char out[512], err[512];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/sb-forge-sandbox-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    /* Logs live outside the working folder, as forge keeps them in the run folder. */
    snprintf(f->out, sizeof f->out, "%s.stdout", f->dir);
    snprintf(f->err, sizeof f->err, "%s.stderr", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sb_error err;
    sb_forge_remove_tree(f->dir, &err);
    unlink(f->out);
    unlink(f->err);
    free(f);
    return 0;
}

static sb_sandbox_result run(fixture *f, const char *prog, const sb_sandbox_limits *lim)
{
    char *argv[] = {(char *)prog, NULL};
    sb_sandbox_result res;
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_sandbox_run(argv, f->dir, f->out, f->err, lim, &res, &err);
    if (rc != SB_OK)
        fprintf(stderr, "%s: %s\n", err.file, err.msg);
    assert_int_equal(rc, SB_OK);
    return res;
}

static void test_loop_forever_is_killed_at_the_wall_limit(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = {0};
    lim.wall_s = 1.0;
    sb_sandbox_result res = run(f, PROG_LOOP, &lim);
    assert_true(res.timed_out);
    assert_true(res.signaled);
    assert_int_equal(res.term_signal, SIGKILL);
    /* No upper bound: on a loaded machine the kill comes late, and how late
     * says nothing about the sandbox. */
    assert_true(res.wall_s >= 1.0);
    char how[128];
    sb_sandbox_describe(&res, &lim, how, sizeof how);
    assert_string_equal(how, "timed out after 1 s, process group killed");
}

static void test_cpu_limit_stops_a_spinner(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = {0};
    /* One CPU second can take many wall seconds when other tests share
     * the cores; the wall limit is only a backstop here. */
    lim.wall_s = 600.0;
    lim.cpu_s = 1;
    sb_sandbox_result res = run(f, PROG_LOOP, &lim);
    assert_false(res.timed_out);
    assert_true(res.signaled);
    assert_true(res.term_signal == SIGXCPU || res.term_signal == SIGKILL);
}

static void test_huge_file_hits_the_size_limit(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = {0};
    lim.wall_s = 600.0;
    lim.fsize_bytes = 1u << 20;
    sb_sandbox_result res = run(f, PROG_HUGE, &lim);
    assert_true(res.signaled);
    assert_int_equal(res.term_signal, SIGXFSZ);
    char path[512];
    snprintf(path, sizeof path, "%s/huge.bin", f->dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size <= (off_t)(1u << 20));
    char how[128];
    sb_sandbox_describe(&res, &lim, how, sizeof how);
    assert_non_null(strstr(how, "file size limit"));
}

static void test_exit_one_is_reported_with_its_output(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = {0};
    lim.wall_s = 600.0;
    sb_sandbox_result res = run(f, PROG_EXIT1, &lim);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 1);
    assert_false(res.timed_out);
    char tail[256];
    sb_forge_file_tail(f->err, 200, tail, sizeof tail);
    assert_string_equal(tail, "case 3: max_abs_err 0.5 above atol 0.01");
    sb_forge_file_tail(f->out, 200, tail, sizeof tail);
    assert_string_equal(tail, "checked 10 cases");
}

/* The program leaves a sleeping grandchild and exits at once: the group
 * kill after a normal exit must end the grandchild. (A wall-limit kill
 * takes the same path; a test of it would race the grandchild's start
 * against the limit.) */
static void test_grandchildren_die_with_the_group(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = {0};
    lim.wall_s = 600.0;
    char *argv[] = {PROG_SLEEPER, "exit", NULL};
    sb_sandbox_result res;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_sandbox_run(argv, f->dir, f->out, f->err, &lim, &res, &err), SB_OK);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/sleeper.pid", f->dir);
    FILE *p = fopen(path, "r");
    assert_non_null(p);
    int pid = 0;
    assert_int_equal(fscanf(p, "%d", &pid), 1);
    fclose(p);
    assert_true(pid > 1);
    /* Gone, a zombie waiting for init to reap it, or its pid already
     * taken by another program (pids are reused quickly when tests run in
     * parallel): never still sleeping. SIGKILL was sent before the run
     * returned; the wait only covers the kernel's tearing it down on a
     * loaded machine, so it is long and ends as soon as the process is. */
    int alive = 1;
    for (int i = 0; i < 6000 && alive; i++) {
        char stat_path[64], buf[512] = "";
        snprintf(stat_path, sizeof stat_path, "/proc/%d/stat", pid);
        FILE *s = fopen(stat_path, "r");
        if (!s) {
            alive = 0;
            break;
        }
        size_t n = fread(buf, 1, sizeof buf - 1, s);
        fclose(s);
        buf[n] = '\0';
        char *rp = strrchr(buf, ')');
        if (!strstr(buf, "(forge_prog_spaw") || (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X')))
            alive = 0;
        else {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    assert_false(alive);
}

static void test_child_environment(void **state)
{
    fixture *f = *state;
    setenv("SOLBOOK_SECRET", "token", 1);
    sb_sandbox_limits lim = {0};
    lim.wall_s = 600.0;
    lim.nofile = 64;
    sb_sandbox_result res = run(f, PROG_ENV, &lim);
    unsetenv("SOLBOOK_SECRET");
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    FILE *o = fopen(f->out, "r");
    assert_non_null(o);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, o);
    fclose(o);
    buf[n] = '\0';
    char want[512];
    char real[256];
    assert_non_null(realpath(f->dir, real));
    snprintf(want, sizeof want, "cwd=%s\n", real);
    assert_non_null(strstr(buf, want));
    assert_non_null(strstr(buf, "stdin_eof=1\n"));
    assert_non_null(strstr(buf, "highest_fd=2\n"));
    assert_non_null(strstr(buf, "secret=hidden\n"));
    assert_non_null(strstr(buf, "nofile=64\n"));
    assert_non_null(strstr(buf, "core=0\n"));
}

static void test_data_limit_refuses_large_allocations(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = {0};
    lim.wall_s = 600.0;
    lim.data_bytes = (rlim_t)256 << 20;
    sb_sandbox_result res = run(f, PROG_HOG, &lim);
    assert_false(res.exited && res.exit_code == 0);
#ifndef SB_TEST_SANITIZED
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 3);
#endif
    lim.data_bytes = 0;
    res = run(f, PROG_HOG, &lim);
#ifndef SB_TEST_SANITIZED
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
#endif
}

static void test_missing_program_is_an_error(void **state)
{
    fixture *f = *state;
    char *argv[] = {"/nonexistent/forge_test", NULL};
    sb_sandbox_limits lim = {0};
    lim.wall_s = 1;
    sb_sandbox_result res;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_sandbox_run(argv, f->dir, f->out, f->err, &lim, &res, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent/forge_test");
    assert_string_equal(err.msg, "program not found or not executable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_loop_forever_is_killed_at_the_wall_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpu_limit_stops_a_spinner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_file_hits_the_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exit_one_is_reported_with_its_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grandchildren_die_with_the_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_child_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_data_limit_refuses_large_allocations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_program_is_an_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
