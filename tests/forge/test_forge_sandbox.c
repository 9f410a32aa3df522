/* test_forge_sandbox.c - the child-process sandbox on small C programs
 * that loop forever, write a huge file, fail, leave a grandchild behind,
 * or allocate too much; what the child sees of its environment; and the
 * hostile programs the confinement must stop: system calls made from
 * copied machine code, a write after chdir, a setsid grandchild that
 * writes late, reads of secrets, a nested user namespace; and the disk
 * and task bounds against a program that takes 4000 MiB of disk at once
 * and one that forks until it cannot. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include "fsutil.h"
#include "process.h"
#include "sandbox.h"

typedef struct fixture {
    sb_sandbox_isolation iso; /* how every run of the test is isolated */
    char dir[256];
    char out[512], err[512];
} fixture;

static int setup_iso(void **state, sb_sandbox_isolation iso)
{
    fixture *f = calloc(1, sizeof *f);
    f->iso = iso;
    snprintf(f->dir, sizeof f->dir, "/tmp/sb-forge-sandbox-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    /* Logs live outside the working folder, as forge keeps them in the run folder. */
    snprintf(f->out, sizeof f->out, "%s.stdout", f->dir);
    snprintf(f->err, sizeof f->err, "%s.stderr", f->dir);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_iso(state, SB_SANDBOX_RLIMITS);
}

static int setup_bwrap(void **state)
{
    return setup_iso(state, SB_SANDBOX_BUBBLEWRAP);
}

static int setup_confined(void **state)
{
    return setup_iso(state, SB_SANDBOX_CONFINED);
}

static int teardown(void **state)
{
    fixture *f = *state;
    sb_error err;
    sb_forge_remove_tree(f->dir, &err);
    char kit[300];
    snprintf(kit, sizeof kit, "%s.kit", f->dir);
    sb_forge_remove_tree(kit, &err);
    unlink(f->out);
    unlink(f->err);
    free(f);
    return 0;
}

/* The limits of a test run: f's isolation; the test is skipped where
 * bubblewrap or the confinement is asked for and this machine's kernel
 * cannot provide it (the reason is printed). */
static sb_sandbox_limits limits_of(const fixture *f)
{
    sb_sandbox_limits lim = {0};
    lim.isolation = f->iso;
    if (f->iso == SB_SANDBOX_BUBBLEWRAP || f->iso == SB_SANDBOX_CONFINED) {
        sb_sandbox_isolation got;
        char why[800];
        sb_error err;
        sb_error_clear(&err);
        setenv("SOLBOOK_FORGE_SANDBOX", sb_sandbox_isolation_name(f->iso), 1);
        int rc = sb_sandbox_choose(&got, 0, why, sizeof why, &err);
        unsetenv("SOLBOOK_FORGE_SANDBOX");
        /* bubblewrap is tested as this machine's bwrap runs it: with
         * nested user namespaces refused where it can refuse them. */
        if (rc == SB_OK && f->iso == SB_SANDBOX_BUBBLEWRAP && got == SB_SANDBOX_BUBBLEWRAP_USERNS)
            lim.isolation = got;
        else if (rc != SB_OK || got != f->iso) {
            fprintf(stderr, "skipped: %s\n", err.msg);
            skip();
        }
    }
    return lim;
}

static int confined(const fixture *f)
{
    return f->iso == SB_SANDBOX_CONFINED || f->iso == SB_SANDBOX_BUBBLEWRAP;
}

static sb_sandbox_result run_args(fixture *f, const char *const argv[], const sb_sandbox_limits *lim)
{
    sb_sandbox_result res;
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_sandbox_run(argv, f->dir, f->out, f->err, lim, &res, &err);
    if (rc != SB_OK)
        fprintf(stderr, "%s: %s\n", err.file, err.msg);
    assert_int_equal(rc, SB_OK);
    assert_int_equal(res.isolation, lim->isolation);
    return res;
}

static sb_sandbox_result run(fixture *f, const char *prog, const sb_sandbox_limits *lim)
{
    const char *argv[] = {prog, NULL};
    return run_args(f, argv, lim);
}

static void test_loop_forever_is_killed_at_the_wall_limit(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
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
    sb_sandbox_limits lim = limits_of(f);
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
    sb_sandbox_limits lim = limits_of(f);
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
    sb_sandbox_limits lim = limits_of(f);
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
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    const char *argv[] = {PROG_SLEEPER, "exit", NULL};
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
    sb_sandbox_limits lim = limits_of(f);
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
    assert_non_null(strstr(buf, "proc_self_is_me=1\n"));
    assert_non_null(strstr(buf, "unix_socket=1\n"));
    assert_non_null(strstr(buf, "comm_writable=1\n"));
    struct stat run;
    char host_run[64];
    snprintf(host_run, sizeof host_run, "run_dev=%lu\n", stat("/run", &run) == 0 ? (unsigned long)run.st_dev : 0UL);
    if (f->iso == SB_SANDBOX_CONFINED && strstr(buf, host_run)) /* the host's service sockets hidden */
        fail_msg("confined, /run should be a mount of its own, not the host's: %s", buf);
}

static void test_data_limit_refuses_large_allocations(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
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
    const char *argv[] = {"/nonexistent/forge_test", NULL};
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 1;
    sb_sandbox_result res;
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_sandbox_run(argv, f->dir, f->out, f->err, &lim, &res, &err), SB_ERR);
    assert_string_equal(err.file, "/nonexistent/forge_test");
    assert_string_equal(err.msg, "program not found or not executable");
}

/* ---- what bubblewrap stops and the limits alone do not ---- */

/* A listening TCP socket on 127.0.0.1 of the test's own network; its port. */
static int listen_local(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 4), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static char *read_text(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t n = fread(buf, 1, size - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return buf;
}

/* The candidate's connect() to a listener of this host: refused by the
 * sandbox (no network namespace shared) under bubblewrap, made under the
 * limits alone. The program is run directly, so no scanner is involved. */
static void test_network_is_cut_off(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    int port, lfd = listen_local(&port);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    const char *argv[] = {PROG_CONNECT, port_text, NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    char buf[512];
    read_text(f->out, buf, sizeof buf);
    struct pollfd pfd = {lfd, POLLIN, 0};
    int pending = poll(&pfd, 1, 0);
    close(lfd);
    assert_true(res.exited);
    if (confined(f)) {
        if (res.exit_code != 1 || strncmp(buf, "connect failed:", 15) != 0)
            fail_msg("under %s the connection was not refused: exit %d, '%s'", sb_sandbox_isolation_name(f->iso),
                     res.exit_code, buf);
        assert_int_equal(pending, 0); /* nothing reached the listener */
    } else {
        if (res.exit_code != 0 || strcmp(buf, "connected\n") != 0)
            fail_msg("without bubblewrap the connection should go through: exit %d, '%s'", res.exit_code, buf);
        assert_int_equal(pending, 1);
    }
}

/* A Unix socket file of this host beside the working folder (a tmux
 * server's or an ssh agent's would be in /tmp too): a stream listener at
 * PATH and a datagram socket at PATH.dgram. Confined or under bubblewrap
 * the program's connect, sendto and sendmsg reach neither; under the limits
 * alone all three do. */
static void test_unix_socket_files_are_cut_off(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    int n = snprintf(a.sun_path, sizeof a.sun_path, "%s.sock", f->dir);
    assert_true(n > 0 && (size_t)n < sizeof a.sun_path - 6);
    char path[sizeof a.sun_path];
    snprintf(path, sizeof path, "%s", a.sun_path);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(lfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 4), 0);
    n = snprintf(a.sun_path, sizeof a.sun_path, "%s.sock.dgram", f->dir);
    assert_true(n > 0 && (size_t)n < sizeof a.sun_path);
    int dfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    assert_true(dfd >= 0);
    assert_int_equal(bind(dfd, (struct sockaddr *)&a, sizeof a), 0);
    const char *argv[] = {PROG_CONNECT, path, NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    char buf[512];
    read_text(f->out, buf, sizeof buf);
    struct pollfd pfd = {lfd, POLLIN, 0};
    int pending = poll(&pfd, 1, 0);
    char got[64];
    int datagrams = 0;
    while (recv(dfd, got, sizeof got, 0) > 0)
        datagrams++;
    close(lfd);
    close(dfd);
    unlink(path);
    unlink(a.sun_path);
    assert_true(res.exited);
    if (confined(f)) {
        if (res.exit_code != 1 || pending != 0 || datagrams != 0)
            fail_msg("under %s a Unix socket file was reached: exit %d, %d connection(s), %d datagram(s): '%s'",
                     sb_sandbox_isolation_name(f->iso), res.exit_code, pending, datagrams, buf);
    } else {
        if (res.exit_code != 0 || pending != 1 || datagrams != 2)
            fail_msg("without confinement the sockets should be reached: exit %d, %d connection(s), %d datagram(s): '%s'",
                     res.exit_code, pending, datagrams, buf);
    }
}

/* Writing outside the working folder (beside it, in the same /tmp):
 * refused when confined (Landlock: permission denied), kept inside
 * bubblewrap's own throw-away root, while writing inside it works; the
 * limits alone let both through. */
static void test_writes_stay_in_the_folder(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    char outside[600], inside[600], buf[512];
    snprintf(outside, sizeof outside, "%s.outside", f->dir);
    unlink(outside);
    const char *out_argv[] = {PROG_WRITE, outside, NULL};
    sb_sandbox_result res = run_args(f, out_argv, &lim);
    struct stat st;
    int written = stat(outside, &st) == 0;
    unlink(outside);
    read_text(f->out, buf, sizeof buf);
    assert_true(res.exited);
    if (confined(f)) {
        if (written || (f->iso == SB_SANDBOX_CONFINED && (res.exit_code != 1 || !strstr(buf, "cannot write"))))
            fail_msg("under %s a write outside the folder was not refused: exit %d, '%s'",
                     sb_sandbox_isolation_name(f->iso), res.exit_code, buf);
    } else {
        if (res.exit_code != 0 || !written)
            fail_msg("without bubblewrap the write outside should go through: exit %d, '%s'", res.exit_code, buf);
    }
    const char *in_argv[] = {PROG_WRITE, "inside.txt", NULL};
    res = run_args(f, in_argv, &lim);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    snprintf(inside, sizeof inside, "%s/inside.txt", f->dir);
    assert_string_equal(read_text(inside, buf, sizeof buf), "written by the candidate\n");
}

/* ---- the hostile programs ---- */

/* The machine-code program's verdict in f->out: 1 done, 0 refused; the
 * test is skipped on an architecture it has no machine code for. */
static int raw_syscall(fixture *f, const sb_sandbox_limits *lim, const char *what, const char *arg)
{
    const char *argv[] = {PROG_RAW, what, arg, NULL};
    sb_sandbox_result res = run_args(f, argv, lim);
    char buf[512];
    read_text(f->out, buf, sizeof buf);
    assert_true(res.exited);
    if (res.exit_code == 77)
        skip();
    if (res.exit_code == 0 && strcmp(buf, "done\n") == 0)
        return 1;
    if (res.exit_code != 1 || strncmp(buf, "refused: ", 9) != 0)
        fail_msg("%s %s: exit %d, '%s'", what, arg, res.exit_code, buf);
    return 0;
}

/* socket + connect + write from copied machine code: nothing reaches a
 * listener of this host when confined; the limits alone let it through. */
static void test_raw_syscall_connect(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    int port, lfd = listen_local(&port);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    int done = raw_syscall(f, &lim, "connect", port_text);
    struct pollfd pfd = {lfd, POLLIN, 0};
    int pending = poll(&pfd, 1, 0);
    close(lfd);
    assert_int_equal(done, !confined(f));
    assert_int_equal(pending, !confined(f));
}

/* openat + write of a file beside the working folder from machine code. */
static void test_raw_syscall_write_outside(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    char outside[600];
    snprintf(outside, sizeof outside, "%s.raw-outside", f->dir);
    unlink(outside);
    int done = raw_syscall(f, &lim, "write", outside);
    struct stat st;
    int written = stat(outside, &st) == 0;
    unlink(outside);
    assert_int_equal(written, !confined(f));
    if (f->iso != SB_SANDBOX_BUBBLEWRAP) /* bubblewrap's root is its own, writable */
        assert_int_equal(done, !confined(f));
}

/* execve of /bin/sh from machine code: a test or bench program may
 * execute nothing but itself when confined. */
static void test_raw_syscall_exec_shell(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    const char *argv[] = {PROG_RAW, "exec", "shell_ran.txt", NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    char buf[512], ran[600];
    read_text(f->out, buf, sizeof buf);
    if (res.exited && res.exit_code == 77)
        skip();
    snprintf(ran, sizeof ran, "%s/shell_ran.txt", f->dir);
    struct stat st;
    int shell_ran = stat(ran, &st) == 0;
    if (f->iso == SB_SANDBOX_CONFINED) {
        assert_true(res.exited);
        if (res.exit_code != 1 || shell_ran || strncmp(buf, "refused: ", 9) != 0)
            fail_msg("confined, /bin/sh was run: exit %d, '%s'", res.exit_code, buf);
    } else if (f->iso == SB_SANDBOX_RLIMITS) {
        assert_true(shell_ran);
    }
}

/* unshare(CLONE_NEWUSER) from machine code: a nested user namespace gives
 * a program the kernel surface of a namespace's root. Confined, seccomp
 * refuses it (EPERM); inside a bubblewrap that passes --disable-userns the
 * kernel does (ENOSPC: no user namespaces may be made below). What the
 * verdict records for the isolation must match what the program met. */
static void test_raw_syscall_nested_userns(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    int done = raw_syscall(f, &lim, "userns", "-");
    char out[512], why[800];
    read_text(f->out, out, sizeof out);
    out[strcspn(out, "\n")] = '\0';
    const char *recorded = sb_sandbox_nested_userns(lim.isolation);
    fprintf(stderr, "%s (%s): unshare(CLONE_NEWUSER) %s; recorded: nested_userns \"%s\"\n",
            sb_sandbox_isolation_name(lim.isolation), sb_sandbox_confinement(lim.isolation),
            done ? "succeeded" : out, recorded);
    switch (lim.isolation) {
    case SB_SANDBOX_CONFINED:
        assert_false(done);
        assert_string_equal(out, "refused: 1"); /* EPERM */
        assert_string_equal(recorded, "refused (seccomp)");
        break;
    case SB_SANDBOX_BUBBLEWRAP: {
        assert_false(done);
        assert_true(strcmp(out, "refused: 28") == 0 || strcmp(out, "refused: 1") == 0); /* ENOSPC, EPERM */
        assert_string_equal(recorded, "refused (bwrap --disable-userns)");
        assert_string_equal(sb_sandbox_confinement(lim.isolation), "bubblewrap:pidns+netns+mountns+nouserns");
        sb_sandbox_isolation got;
        sb_error err;
        setenv("SOLBOOK_FORGE_SANDBOX", "bubblewrap", 1);
        int rc = sb_sandbox_choose(&got, 0, why, sizeof why, &err);
        unsetenv("SOLBOOK_FORGE_SANDBOX");
        assert_int_equal(rc, SB_OK);
        assert_non_null(strstr(why, "nested user namespaces refused (--disable-userns)"));
        break;
    }
    default: /* the limits alone, or a bwrap that cannot refuse: left to the host */
        assert_string_equal(recorded, "not refused");
        break;
    }
}

/* A bwrap that cannot refuse nested user namespaces (older than 0.8.0, or
 * setuid; played by a wrapper that rejects --disable-userns): bubblewrap
 * still runs as before, the program may make a nested user namespace, and
 * the choice says so for the verdict. */
static void test_bwrap_without_disable_userns_is_recorded(void **state)
{
    fixture *f = *state;
    char real[4096], kit[300], wrapper[400], path[8192];
    if (sb_process_find("bwrap", real, sizeof real) != SB_OK) {
        fprintf(stderr, "skipped: bwrap not found on PATH\n");
        skip();
    }
    snprintf(kit, sizeof kit, "%s.kit", f->dir);
    assert_int_equal(mkdir(kit, 0755), 0);
    snprintf(wrapper, sizeof wrapper, "%s/bwrap", kit);
    FILE *w = fopen(wrapper, "w");
    assert_non_null(w);
    fprintf(w, "#!/bin/sh\nfor a; do\n  if [ \"$a\" = --disable-userns ]; then\n"
               "    echo 'bwrap: Unknown option --disable-userns' >&2; exit 1\n  fi\ndone\nexec '%s' \"$@\"\n",
            real);
    fclose(w);
    assert_int_equal(chmod(wrapper, 0755), 0);
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "");
    snprintf(path, sizeof path, "%s:%s", kit, saved);
    setenv("PATH", path, 1);
    setenv("SOLBOOK_FORGE_SANDBOX", "bubblewrap", 1);
    sb_sandbox_isolation got;
    char why[800];
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_sandbox_choose(&got, 0, why, sizeof why, &err);
    unsetenv("SOLBOOK_FORGE_SANDBOX");
    if (rc != SB_OK) {
        setenv("PATH", saved, 1);
        free(saved);
        fprintf(stderr, "skipped: %s\n", err.msg);
        skip();
    }
    assert_int_equal(got, SB_SANDBOX_BUBBLEWRAP_USERNS);
    assert_non_null(strstr(why, "nested user namespaces not refused: --disable-userns failed: "
                                "bwrap: Unknown option --disable-userns"));
    assert_string_equal(sb_sandbox_nested_userns(got), "not refused");
    sb_sandbox_limits lim = {0};
    lim.isolation = got;
    lim.wall_s = 600.0;
    int done = raw_syscall(f, &lim, "userns", "-");
    setenv("PATH", saved, 1);
    free(saved);
    fprintf(stderr, "%s: unshare(CLONE_NEWUSER) %s\n", sb_sandbox_confinement(got), done ? "succeeded" : "refused");
    assert_string_equal(sb_sandbox_confinement(got), "bubblewrap:pidns+netns+mountns");
}

/* chdir("..") and a relative path: the write lands beside the working
 * folder under the limits alone, is refused when confined and stays in
 * bubblewrap's throw-away root. */
static void test_chdir_then_relative_write(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    const char *base = strrchr(f->dir, '/') + 1;
    char name[300], outside[600], buf[512];
    snprintf(name, sizeof name, "%s.chdir-escape", base);
    snprintf(outside, sizeof outside, "%s.chdir-escape", f->dir);
    unlink(outside);
    const char *argv[] = {PROG_CHDIR, "..", name, NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    struct stat st;
    int written = stat(outside, &st) == 0;
    unlink(outside);
    read_text(f->out, buf, sizeof buf);
    assert_true(res.exited);
    if (confined(f)) {
        if (written || (f->iso == SB_SANDBOX_CONFINED && res.exit_code != 1))
            fail_msg("under %s the write after chdir was not refused: exit %d, '%s'",
                     sb_sandbox_isolation_name(f->iso), res.exit_code, buf);
    } else {
        assert_int_equal(res.exit_code, 0);
        assert_true(written);
    }
}

/* A grandchild in a session of its own writes late.txt a second after the
 * program exits. Confined, it dies with the program's pid namespace;
 * under the limits alone it outlives the group kill. */
static void test_setsid_grandchild_does_not_outlive_the_run(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    const char *argv[] = {PROG_SETSID, "1", NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    char late[600];
    snprintf(late, sizeof late, "%s/late.txt", f->dir);
    struct stat st;
    int written = 0;
    for (int i = 0; i < 40 && !written; i++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        written = stat(late, &st) == 0;
    }
    if (confined(f) && written)
        fail_msg("under %s a setsid grandchild wrote after the run ended", sb_sandbox_isolation_name(f->iso));
    if (!confined(f))
        assert_true(written);
}

/* A file beside the working folder, /etc/shadow and /root: unreadable
 * when confined. */
static void test_secrets_are_not_readable(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    char secret[600], buf[512];
    snprintf(secret, sizeof secret, "%s.secret", f->dir);
    FILE *s = fopen(secret, "w");
    assert_non_null(s);
    fputs("not for the candidate\n", s);
    fclose(s);
    const char *paths[] = {secret, "/etc/shadow", "/root"};
    for (size_t i = 0; i < 3; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0)
            continue;
        const char *argv[] = {PROG_READ, paths[i], NULL};
        sb_sandbox_result res = run_args(f, argv, &lim);
        read_text(f->out, buf, sizeof buf);
        assert_true(res.exited);
        if (confined(f) && (res.exit_code != 1 || strncmp(buf, "cannot read:", 12) != 0))
            fail_msg("under %s %s was readable: exit %d, '%s'", sb_sandbox_isolation_name(f->iso), paths[i],
                     res.exit_code, buf);
    }
    unlink(secret);
    /* The working folder itself stays readable. */
    const char *argv[] = {PROG_READ, ".", NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
}

/* The host's kernel settings: /proc/sys holds global ones (a
 * core_pattern starting with '|' runs its program as the host's root at
 * the next crash), and /proc/sysrq-trigger reboots. A program that runs
 * as root mapped to the host's root (forge run as root, bubblewrap's
 * user namespace) passes their owner check; confined or under
 * bubblewrap, none opens for writing. Nothing is written: the program
 * only opens and closes. */
static void test_kernel_settings_are_not_writable(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    char buf[512];
    const char *paths[] = {"/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sys/kernel/panic",
                           "/proc/sysrq-trigger"};
    size_t tried = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0)
            continue;
        const char *argv[] = {PROG_OPEN_WRITE, paths[i], NULL};
        sb_sandbox_result res = run_args(f, argv, &lim);
        read_text(f->out, buf, sizeof buf);
        assert_true(res.exited);
        if (confined(f) && (res.exit_code != 1 || strncmp(buf, "cannot open:", 12) != 0))
            fail_msg("under %s %s opened for writing: exit %d, '%s'", sb_sandbox_isolation_name(f->iso), paths[i],
                     res.exit_code, buf);
        tried++;
    }
    assert_true(tried >= 3);
}

static void make_file(const char *path, const char *text)
{
    FILE *w = fopen(path, "w");
    assert_non_null(w);
    fputs(text, w);
    fclose(w);
}

/* nvcc found as a wrapper script in a home folder's bin (KIT/home/bin/nvcc
 * beside KIT/home/secret): the folder above bin is no toolkit, so only
 * bin is opened to the candidate, and the secret stays unreadable when
 * confined. A real toolkit's folder (KIT/cuda, holding nvvm/) is taken
 * whole, as nvcc needs it. */
static void test_wrapper_does_not_open_its_parent(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    char kit[300], p[700], tool[700], secret[700], want[700], buf[512];
    snprintf(kit, sizeof kit, "%s.kit", f->dir);
    const char *dirs[] = {"", "/home", "/home/bin", "/cuda", "/cuda/bin", "/cuda/nvvm"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s%s", kit, dirs[i]);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    snprintf(secret, sizeof secret, "%s/home/secret", kit);
    make_file(secret, "the user's key\n");
    /* nvcc at KIT/FROM: the toolkit folder KIT/TO */
    static const struct { const char *from, *text, *to; } kits[] = {
        {"/cuda/bin/nvcc", "", "/cuda"},
        {"/home/bin/nvcc", "#!/bin/sh\nexec /usr/local/cuda/bin/nvcc \"$@\"\n", "/home/bin"},
    };
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s%s", kit, kits[i].from);
        make_file(p, kits[i].text);
        sb_forge_toolkit_dir(p, tool, sizeof tool);
        assert_non_null(realpath(kit, want));
        strcat(want, kits[i].to);
        assert_string_equal(tool, want);
    }

    lim.tool_dir = tool;
    const char *argv[] = {PROG_READ, secret, NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    read_text(f->out, buf, sizeof buf);
    assert_true(res.exited);
    if (confined(f) && (res.exit_code != 1 || strncmp(buf, "cannot read:", 12) != 0))
        fail_msg("under %s the wrapper's home folder was readable: exit %d, '%s'", sb_sandbox_isolation_name(f->iso),
                 res.exit_code, buf);
}

/* A tool reached through a linked folder, as nvcc is through PATH's
 * /usr/local/cuda/bin where /usr/local/cuda -> /etc/alternatives/cuda ->
 * /usr/local/cuda-13.0: KIT/cuda -> KIT/cuda-13.0 (an absolute link), the
 * tool found on PATH as KIT/cuda/bin/reader. With KIT as the tool folder
 * the run works and reads the toolkit's files; without it the program
 * runs through the same link, but nothing else of KIT is readable when
 * confined. */
static void test_tool_through_a_linked_folder(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    char kit[600], real[700], link[700], bin[800], tool[800], data[800], buf[512];
    snprintf(kit, sizeof kit, "%s.kit", f->dir);
    snprintf(real, sizeof real, "%s/cuda-13.0", kit);
    snprintf(link, sizeof link, "%s/cuda", kit);
    snprintf(bin, sizeof bin, "%s/bin", link);
    snprintf(tool, sizeof tool, "%s/bin/reader", real);
    snprintf(data, sizeof data, "%s/bin/tool.profile", real);
    assert_int_equal(mkdir(kit, 0755), 0);
    assert_int_equal(mkdir(real, 0755), 0);
    char real_bin[800];
    snprintf(real_bin, sizeof real_bin, "%s/bin", real);
    assert_int_equal(mkdir(real_bin, 0755), 0);
    assert_int_equal(symlink(real, link), 0);
    sb_error err;
    assert_int_equal(sb_forge_copy_file(PROG_READ, tool, &err), SB_OK);
    assert_int_equal(chmod(tool, 0755), 0);
    FILE *d = fopen(data, "w");
    assert_non_null(d);
    fputs("profile of the toolkit\n", d);
    fclose(d);
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "");
    char newpath[4096];
    snprintf(newpath, sizeof newpath, "%s:%s", bin, saved);
    setenv("PATH", newpath, 1);

    lim.tool_dir = kit;
    const char *argv[] = {"reader", data, NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    read_text(f->out, buf, sizeof buf);
    char log[512];
    read_text(f->err, log, sizeof log);
    if (!res.exited || res.exit_code != 0 || strcmp(buf, "read 23 bytes\n") != 0)
        fail_msg("under %s the tool in the linked folder did not run: exit %d, '%s', '%s'",
                 sb_sandbox_isolation_name(f->iso), res.exit_code, buf, log);

    lim.tool_dir = NULL;
    res = run_args(f, argv, &lim);
    read_text(f->out, buf, sizeof buf);
    assert_true(res.exited);
    if (confined(f) && (res.exit_code != 1 || strncmp(buf, "cannot read:", 12) != 0))
        fail_msg("under %s the tool's folder was readable without being the tool folder: exit %d, '%s'",
                 sb_sandbox_isolation_name(f->iso), res.exit_code, buf);
    if (!confined(f))
        assert_string_equal(buf, "read 23 bytes\n");
    /* The program itself ran through the link: it reads itself by that name. */
    char self[900];
    snprintf(self, sizeof self, "%s/reader", bin);
    const char *argv_self[] = {"reader", self, NULL};
    res = run_args(f, argv_self, &lim);
    read_text(f->out, buf, sizeof buf);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    assert_non_null(strstr(buf, "read "));

    setenv("PATH", saved, 1);
    free(saved);
    assert_int_equal(sb_forge_remove_tree(kit, &err), SB_OK);
}

/* Which isolation a machine gets, the override, and the refusal to run
 * unconfined unless asked. */
static void test_choice_of_isolation(void **state)
{
    (void)state;
    sb_sandbox_isolation got;
    char why[800];
    sb_error err;
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "");
    setenv("SOLBOOK_FORGE_SANDBOX", "rlimits", 1);
    assert_int_equal(sb_sandbox_choose(&got, 0, why, sizeof why, &err), SB_ERR);
    assert_string_equal(err.msg, "SOLBOOK_FORGE_SANDBOX=rlimits runs a candidate unconfined: refused without "
                                 "--unsafe-no-sandbox");
    assert_int_equal(sb_sandbox_choose(&got, 1, why, sizeof why, &err), SB_OK);
    assert_int_equal(got, SB_SANDBOX_RLIMITS);
    assert_non_null(strstr(why, "unconfined (SOLBOOK_FORGE_SANDBOX=rlimits, --unsafe-no-sandbox)"));
    setenv("SOLBOOK_FORGE_SANDBOX", "chroot", 1);
    assert_int_equal(sb_sandbox_choose(&got, 0, why, sizeof why, &err), SB_ERR);
    assert_string_equal(err.msg, "SOLBOOK_FORGE_SANDBOX is 'chroot': expected auto, confined, bubblewrap or rlimits");
    /* Nothing works (no programs on PATH to try): refused, unless the
     * unconfined run is asked for. */
    setenv("PATH", "/nonexistent-solbook-test", 1);
    unsetenv("SOLBOOK_FORGE_SANDBOX");
    assert_int_equal(sb_sandbox_choose(&got, 0, why, sizeof why, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "no sandbox on this machine"));
    assert_non_null(strstr(err.msg, "bwrap not found on PATH (Debian package bubblewrap)"));
    assert_non_null(strstr(err.msg, "refusing to run a candidate"));
    assert_int_equal(sb_sandbox_choose(&got, 1, why, sizeof why, &err), SB_OK);
    assert_int_equal(got, SB_SANDBOX_RLIMITS);
    assert_non_null(strstr(why, "unconfined (--unsafe-no-sandbox)"));
    setenv("SOLBOOK_FORGE_SANDBOX", "bubblewrap", 1);
    assert_int_equal(sb_sandbox_choose(&got, 0, why, sizeof why, &err), SB_ERR);
    assert_non_null(strstr(err.msg, "bubblewrap cannot run here: bwrap not found on PATH"));
    unsetenv("SOLBOOK_FORGE_SANDBOX");
    setenv("PATH", saved, 1);
    free(saved);
    assert_string_equal(sb_sandbox_isolation_name(SB_SANDBOX_CONFINED), "confined");
    assert_string_equal(sb_sandbox_isolation_name(SB_SANDBOX_BUBBLEWRAP), "bubblewrap");
    assert_string_equal(sb_sandbox_isolation_name(SB_SANDBOX_RLIMITS), "rlimits");
    assert_string_equal(sb_sandbox_confinement(SB_SANDBOX_CONFINED), "seccomp+landlock+pidns+netns");
    assert_string_equal(sb_sandbox_confinement(SB_SANDBOX_BUBBLEWRAP_USERNS), "bubblewrap:pidns+netns+mountns");
    assert_string_equal(sb_sandbox_nested_userns(SB_SANDBOX_BUBBLEWRAP_USERNS), "not refused");
    assert_string_equal(sb_sandbox_nested_userns(SB_SANDBOX_RLIMITS), "not refused");
}

/* Bytes free on the file system holding path, for unprivileged users. */
static unsigned long long free_bytes(const char *path)
{
    struct statvfs sv;
    assert_int_equal(statvfs(path, &sv), 0);
    return (unsigned long long)sv.f_bavail * sv.f_frsize;
}

/* The bounds hold only inside the run's own namespaces: skipped (with the
 * reason) where this machine cannot make them outside the confinement. */
static void skip_unless_jailed(const sb_sandbox_result *res)
{
    if (!res->jailed) {
        fprintf(stderr, "skipped: no pid and mount namespaces here; RLIMIT_NPROC and the host's disk stand in\n");
        skip();
    }
}

/* 4 x 1000 MiB taken at once by fallocate, with and without
 * FALLOC_FL_KEEP_SIZE (which RLIMIT_FSIZE does not see), against a 64 MiB
 * bound: the program gets at most the bound, the host's free space does
 * not drop by a file's worth, nothing comes back into the folder, and the
 * run says the disk bound stopped it. */
static void test_disk_bound_stops_a_filler(void **state)
{
    fixture *f = *state;
    static const char *const modes[] = {"keep", "grow"};
    for (size_t m = 0; m < 2; m++) {
        sb_sandbox_limits lim = limits_of(f);
        lim.wall_s = 600.0;
        lim.fsize_bytes = 2ull << 30;
        lim.disk_bytes = 64ull << 20;
        unsigned long long before = free_bytes(f->dir);
        const char *argv[] = {PROG_DISK_FILL, modes[m], NULL};
        sb_sandbox_result res = run_args(f, argv, &lim);
        unsigned long long after = free_bytes(f->dir);
        skip_unless_jailed(&res);
        char buf[256], how[256], bounds[400];
        read_text(f->out, buf, sizeof buf);
        long long allocated = -1;
        assert_int_equal(sscanf(buf, "allocated %lld", &allocated), 1);
        sb_sandbox_describe(&res, &lim, how, sizeof how);
        sb_sandbox_bounds(&res, &lim, bounds, sizeof bounds);
        printf("%s %s: allocated %lld bytes of 4000 MiB asked; host free space %+.1f MiB; %s; %s\n",
               sb_sandbox_isolation_name(f->iso), modes[m], allocated,
               ((double)after - (double)before) / 1048576.0, how, bounds);
        assert_true(res.exited);
        assert_int_equal(res.exit_code, 1);
        assert_true(allocated <= (long long)lim.disk_bytes);
        /* Other work on this machine moves the free space too; a file's
         * worth (1000 MiB) reaching the host would not hide in 256 MiB. */
        assert_true(after + (256ull << 20) >= before);
        assert_true(res.disk_full);
        assert_non_null(strstr(how, "stopped by the disk bound (its folder's tmpfs of 64 MiB full)"));
        assert_non_null(strstr(bounds, "disk: tmpfs of 64 MiB"));
        char left[600];
        snprintf(left, sizeof left, "%s/fill0.bin", f->dir);
        struct stat st;
        assert_int_not_equal(stat(left, &st), 0);
    }
}

/* A program that makes 40,000 empty files, which the tmpfs's bytes
 * bound does not count, and succeeds: all of them were copied to the
 * host's disk (a tmpfs holds about half the RAM's pages in files, 2.9
 * million on a 23 GB machine). The tmpfs holds SB_SANDBOX_MAX_FILES, so
 * the program makes fewer and no more come back. */
static void test_file_count_bound(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    lim.disk_bytes = 64ull << 20;
    const char *argv[] = {PROG_MANY_FILES, "40000", NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    skip_unless_jailed(&res);
    char buf[256];
    read_text(f->out, buf, sizeof buf);
    long made = -1;
    assert_int_equal(sscanf(buf, "made %ld", &made), 1);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    DIR *d = opendir(f->dir);
    assert_non_null(d);
    long back = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        back += de->d_name[0] == 'e';
    closedir(d);
    printf("%s: made %ld of 40000 empty files, %ld came back\n", sb_sandbox_isolation_name(f->iso), made,
           back);
    assert_true(made < SB_SANDBOX_MAX_FILES);
    assert_true(back <= made);
}

/* Whether a host process named name is alive. */
static int process_named(const char *name)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    struct dirent *de;
    int found = 0;
    while (!found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/%s/comm", de->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        if (fgets(comm, sizeof comm, fp))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(fp);
        found = strcmp(comm, name) == 0;
    }
    closedir(d);
    return found;
}

/* A program that forks until fork fails, its children waiting forever,
 * against a bound of 300 tasks: it makes fewer than 300, the run says the
 * process bound stopped it, and none of the children outlives the run. */
static void test_task_bound_stops_a_fork_bomb(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    lim.max_tasks = SB_SANDBOX_MIN_TASKS;
    char name[16];
    snprintf(name, sizeof name, "sbfb%d", (int)(getpid() % 100000));
    const char *argv[] = {PROG_FORK_BOMB, name, NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    skip_unless_jailed(&res);
    char buf[256], how[256], bounds[400];
    read_text(f->out, buf, sizeof buf);
    long made = -1;
    assert_int_equal(sscanf(buf, "made %ld", &made), 1);
    int left = 0;
    for (int i = 0; i < 20 && (left = process_named(name)); i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    sb_sandbox_describe(&res, &lim, how, sizeof how);
    sb_sandbox_bounds(&res, &lim, bounds, sizeof bounds);
    printf("%s: made %ld processes (bound %u tasks, %u seen at once); %s left after the run; %s; %s\n",
           sb_sandbox_isolation_name(f->iso), made, lim.max_tasks, res.peak_tasks, left ? "some" : "none", how,
           bounds);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    assert_true(made > 0 && made < (long)lim.max_tasks);
    assert_true(res.tasks_full);
    assert_non_null(strstr(how, "stopped by the process bound (300 tasks at once)"));
    assert_non_null(strstr(bounds, "tasks: pid_max 300 of its pid namespace"));
    assert_false(left);
}

/* A build the bounds leave room for: the program's output comes back from
 * the tmpfs into the folder, executable. */
static void test_output_comes_back_from_the_tmpfs(void **state)
{
    fixture *f = *state;
    sb_sandbox_limits lim = limits_of(f);
    lim.wall_s = 600.0;
    lim.disk_bytes = 64ull << 20;
    lim.max_tasks = SB_SANDBOX_MAX_TASKS;
    char src[600];
    snprintf(src, sizeof src, "%s/copied.bin", f->dir);
    sb_error err;
    sb_error_clear(&err);
    assert_int_equal(sb_forge_copy_file(PROG_EXIT1, src, &err), SB_OK);
    assert_int_equal(chmod(src, 0755), 0);
    const char *argv[] = {PROG_WRITE, "made.txt", NULL};
    sb_sandbox_result res = run_args(f, argv, &lim);
    skip_unless_jailed(&res);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    assert_false(res.disk_full);
    assert_false(res.tasks_full);
    char made[600];
    snprintf(made, sizeof made, "%s/made.txt", f->dir);
    struct stat st;
    assert_int_equal(stat(made, &st), 0);
    assert_int_equal(stat(src, &st), 0);
    assert_true(st.st_mode & S_IXUSR);
    printf("%s: made.txt came back from the tmpfs; %u tasks and %llu bytes at most\n",
           sb_sandbox_isolation_name(f->iso), res.peak_tasks, res.peak_disk);
}

int main(void)
{
    /* Every behaviour under the limits alone, again inside bubblewrap and
     * again confined (each skipped where it cannot run). The grandchild's pid is only
     * meaningful outside a pid namespace; inside one, the namespace's end
     * takes every process with it. */
#define BOTH(t) cmocka_unit_test_setup_teardown(t, setup, teardown), \
                cmocka_unit_test_setup_teardown(t, setup_bwrap, teardown), \
                cmocka_unit_test_setup_teardown(t, setup_confined, teardown)
    const struct CMUnitTest tests[] = {
        BOTH(test_loop_forever_is_killed_at_the_wall_limit),
        BOTH(test_cpu_limit_stops_a_spinner),
        BOTH(test_huge_file_hits_the_size_limit),
        BOTH(test_exit_one_is_reported_with_its_output),
        cmocka_unit_test_setup_teardown(test_grandchildren_die_with_the_group, setup, teardown),
        BOTH(test_child_environment),
        BOTH(test_data_limit_refuses_large_allocations),
        BOTH(test_missing_program_is_an_error),
        BOTH(test_network_is_cut_off),
        BOTH(test_unix_socket_files_are_cut_off),
        BOTH(test_writes_stay_in_the_folder),
        BOTH(test_raw_syscall_connect),
        BOTH(test_raw_syscall_write_outside),
        BOTH(test_raw_syscall_exec_shell),
        BOTH(test_raw_syscall_nested_userns),
        cmocka_unit_test_setup_teardown(test_bwrap_without_disable_userns_is_recorded, setup, teardown),
        BOTH(test_chdir_then_relative_write),
        BOTH(test_setsid_grandchild_does_not_outlive_the_run),
        BOTH(test_secrets_are_not_readable),
        BOTH(test_kernel_settings_are_not_writable),
        BOTH(test_tool_through_a_linked_folder),
        BOTH(test_wrapper_does_not_open_its_parent),
        cmocka_unit_test(test_choice_of_isolation),
        BOTH(test_disk_bound_stops_a_filler),
        BOTH(test_task_bound_stops_a_fork_bomb),
        BOTH(test_output_comes_back_from_the_tmpfs),
        BOTH(test_file_count_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
