/* Sandbox test program: starts a grandchild that sleeps, writes its pid
 * to sleeper.pid, then loops forever, or with the argument "exit" exits 0
 * at once; either way the sandbox must kill the grandchild too. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        sleep(60);
        _exit(0);
    }
    FILE *f = fopen("sleeper.pid", "w");
    if (!f)
        return 3;
    fprintf(f, "%d\n", (int)pid);
    if (fclose(f) != 0)
        return 4;
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        return 0;
    volatile unsigned long spins = 0;
    for (;;)
        spins++;
}
