/* Sandbox test program: never ends on its own. */
int main(void)
{
    volatile unsigned long spins = 0;
    for (;;)
        spins++;
}
