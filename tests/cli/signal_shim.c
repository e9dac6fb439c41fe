/*
 * LD_PRELOAD shim for the CLI tests (tests/cli: cli_errors.sh, cli_writers.sh): when
 * VMAF_TEST_SIGNAL_IN_RENAME names a signal number, rename() raises it first, so the signal
 * arrives while the output file is being put in place (its temporary file exists); likewise
 * VMAF_TEST_SIGNAL_IN_UNLINK for unlink(), which the start-up check of -o calls on its trial
 * temporary file: deterministic, where a timed kill is not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static void raise_named(const char *variable)
{
    const char *sig = getenv(variable);
    if (sig && atoi(sig) > 0) raise(atoi(sig));
}

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    raise_named("VMAF_TEST_SIGNAL_IN_RENAME");
    return real ? real(from, to) : -1;
}

int unlink(const char *path)
{
    int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    raise_named("VMAF_TEST_SIGNAL_IN_UNLINK");
    return real ? real(path) : -1;
}
