/* Sandbox test program: starts a grandchild that sleeps, writes its pid
 * to sleeper.pid, then loops forever; the sandbox must kill both. */
#include <stdio.h>
#include <unistd.h>

int main(void)
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
    fclose(f);
    volatile unsigned long spins = 0;
    for (;;)
        spins++;
}
