/*
 * LD_PRELOAD shim for tests/cli/cli_errors.sh: when VMAF_TEST_SIGNAL_IN_RENAME names a signal
 * number, rename() raises it first, so the signal arrives while the output file is being
 * put in place (its temporary file exists): deterministic, where a timed kill is not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *sig = getenv("VMAF_TEST_SIGNAL_IN_RENAME");
    if (sig && atoi(sig) > 0) raise(atoi(sig));
    return real ? real(from, to) : -1;
}
