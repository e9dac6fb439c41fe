/* Leaks on purpose: the sanitized build's lsan_active test passes only if LeakSanitizer
 * reports it, so a CI run where leaks would go unnoticed fails instead. */
#include <stdio.h>
#include <stdlib.h>

static void *volatile lost;

int main(void)
{
    lost = malloc(4242);
    lost = NULL; /* the only pointer is gone: a definite leak */
    printf("leaked 4242 bytes\n");
    return 0;
}
