/* test_staged_dir.c - core/staged_dir.h: a stage left by a killed build
 * is removed by the next build of the same target; a stage whose build
 * still runs, and folders of other names, are kept. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "staged_dir.h"

static char root[256];

static void make_dir_with_file(const char *dir)
{
    char f[4096];
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(f, sizeof f, "%s/page.html", dir);
    FILE *fp = fopen(f, "w");
    assert_non_null(fp);
    fputs("half a page", fp);
    fclose(fp);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A PID that ran and is gone: a child that exited and was reaped. */
static long dead_pid(void)
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;
}

/* A child that holds the lock of dir as a running build does; it runs
 * until killed. */
static pid_t live_owner(const char *dir, int ready[2])
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    return p;
}

static void check_mode(sb_stage_mode mode)
{
    char target[512], dead[1024], dead_old[1024], legacy[1024], live[1024], other[1024],
        other_target[1024];
    snprintf(target, sizeof target, "%s/%s", root, mode == SB_STAGE_SWAP ? "site" : "weekly");
    const char *pre = mode == SB_STAGE_SWAP ? root : target;
    const char *scheme = mode == SB_STAGE_SWAP ? ".site.partial-" : ".solbook-partial-";
    if (mode == SB_STAGE_MERGE)
        assert_int_equal(mkdir(target, 0755), 0);
    long gone = dead_pid();
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    snprintf(dead, sizeof dead, "%s/%s%ld-aB3xYz", pre, scheme, gone);
    snprintf(dead_old, sizeof dead_old, "%s/%s%ld-cD4wVu.old", pre, scheme, gone);
    snprintf(legacy, sizeof legacy, "%s/%sQw3rTy", pre, scheme);
    snprintf(other, sizeof other, "%s/%snot-a-stage", pre, scheme);
    snprintf(other_target, sizeof other_target, "%s/.packet.partial-%ld-aB3xYz", root, gone);
    make_dir_with_file(dead);
    make_dir_with_file(dead_old);
    make_dir_with_file(legacy);
    make_dir_with_file(other);
    if (mode == SB_STAGE_SWAP)
        make_dir_with_file(other_target);
    /* an older solbook's stage, unchanged for two hours */
    struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
    assert_int_equal(utimensat(AT_FDCWD, legacy, old, 0), 0);
    /* a build that runs and has not taken its lock yet: its PID alone
     * keeps its stage */
    pid_t owner = fork();
    assert_true(owner >= 0);
    if (owner == 0) {
        for (;;)
            pause();
    }
    snprintf(live, sizeof live, "%s/%s%ld-eF5tSr", pre, scheme, (long)owner);
    make_dir_with_file(live);
    /* the lock alone keeps a stage whose PID is gone (another PID space) */
    pid_t holder = live_owner(dead, ready);

    sb_staged_dir s;
    sb_error err;
    assert_int_equal(sb_staged_dir_open(&s, target, mode, &err), SB_OK);
    assert_true(exists(dead)); /* locked by holder */
    assert_false(exists(dead_old));
    assert_false(exists(legacy));
    assert_true(exists(live)); /* its owner runs */
    assert_true(exists(other));
    if (mode == SB_STAGE_SWAP)
        assert_true(exists(other_target));
    /* the new stage names this process and is locked while open */
    char want[64];
    snprintf(want, sizeof want, "%s%ld-", scheme, (long)getpid());
    assert_non_null(strstr(s.stage, want));
    int fd = open(s.stage, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_not_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);
    /* a second build of the same target keeps the first one's stage */
    sb_staged_dir s2;
    assert_int_equal(sb_staged_dir_open(&s2, target, mode, &err), SB_OK);
    assert_true(exists(s.stage));
    sb_staged_dir_discard(&s2);
    assert_int_equal(sb_staged_dir_commit(&s, &err), SB_OK);

    /* once killed, both builds' stages go at the next build */
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    kill(owner, SIGKILL);
    waitpid(owner, NULL, 0);
    assert_int_equal(sb_staged_dir_open(&s, target, mode, &err), SB_OK);
    assert_false(exists(dead));
    assert_false(exists(live));
    sb_staged_dir_discard(&s);
    printf("%s: stale stages of dead builds removed; locked, other names kept\n",
           mode == SB_STAGE_SWAP ? "swap" : "merge");
    close(ready[0]);
    close(ready[1]);
}

static void test_stale_stages(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/sb-staged-XXXXXX");
    assert_non_null(mkdtemp(root));
    check_mode(SB_STAGE_SWAP);
    check_mode(SB_STAGE_MERGE);
    sb_remove_tree(root, NULL);
}

/* A build killed with SIGKILL leaves its stage; the next build removes it. */
static void test_killed_build(void **state)
{
    (void)state;
    char target[600];
    snprintf(root, sizeof root, "/tmp/sb-killed-XXXXXX");
    assert_non_null(mkdtemp(root));
    snprintf(target, sizeof target, "%s/packet", root);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        sb_staged_dir s;
        sb_error err;
        if (sb_staged_dir_open(&s, target, SB_STAGE_SWAP, &err) != SB_OK ||
            write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    char left[700];
    snprintf(left, sizeof left, "%s/.packet.partial-%ld-", root, (long)p);
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    char cmd[900];
    snprintf(cmd, sizeof cmd, "ls -d %s* >/dev/null 2>&1", left);
    assert_int_equal(system(cmd), 0); /* the killed build left its stage */
    sb_staged_dir s;
    sb_error err;
    assert_int_equal(sb_staged_dir_open(&s, target, SB_STAGE_SWAP, &err), SB_OK);
    assert_int_not_equal(system(cmd), 0);
    assert_int_equal(sb_staged_dir_commit(&s, &err), SB_OK);
    printf("the stage of a SIGKILLed build is removed by the next build\n");
    close(ready[0]);
    close(ready[1]);
    sb_remove_tree(root, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stale_stages),
        cmocka_unit_test(test_killed_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
