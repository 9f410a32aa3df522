/* Sandbox test program: forks until fork fails (at most 100000 times),
 * then keeps trying for half a second, as a fork bomb does; every child
 * names itself argv[1] (the test looks for that name among the host's
 * processes afterwards) and waits forever. Prints "made N" and exits 0. */
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void child(const char *name)
{
    prctl(PR_SET_NAME, name, 0, 0, 0);
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "fork-bomb";
    long made = 0;
    while (made < 100000) {
        pid_t p = fork();
        if (p < 0)
            break;
        if (p == 0)
            child(name);
        made++;
    }
    for (int i = 0; i < 50; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        pid_t p = fork();
        if (p == 0)
            child(name);
        if (p > 0)
            made++;
    }
    printf("made %ld\n", made);
    return 0;
}
