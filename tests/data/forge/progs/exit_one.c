/* Sandbox test program: reports a failure and exits 1. */
#include <stdio.h>

int main(void)
{
    printf("checked 10 cases\n");
    fprintf(stderr, "case 3: max_abs_err 0.5 above atol 0.01\n");
    return 1;
}
