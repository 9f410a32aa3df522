/* Sandbox test program: starts a grandchild in a session of its own
 * (setsid, out of the process group) that sleeps argv[1] seconds and then
 * writes late.txt in the working folder; the program exits 0 as soon as
 * the grandchild is on its own. The sandbox must end the grandchild with
 * the program. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        sleep((unsigned)atoi(argv[1]));
        FILE *f = fopen("late.txt", "w");
        if (f) {
            fputs("written after the verdict\n", f);
            fclose(f);
        }
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return 0;
}
