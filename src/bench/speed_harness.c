/* The harness of `polyfold bench --speed` (src/bench/speed_build.rs links
 * it with every program it times): each program is compiled with
 * `-Dmain=polyfold_speed_main`, and this `main` calls that function
 * POLYFOLD_SPEED_RUNS times (the environment variable; once when it is
 * unset), stopping at the first run that does not return 0, whose status
 * it returns. A kernel small enough to stay in the cache is so timed over
 * many runs in one process, without a process start per run.
 * The call passes `argc` and `argv` on, so that a `main(int, char **)`
 * gets its arguments (the corpus kernels take none). */
#include <stdlib.h>

int polyfold_speed_main();

int main(int argc, char **argv)
{
    const char *text = getenv("POLYFOLD_SPEED_RUNS");
    long runs = text ? strtol(text, 0, 10) : 1;
    int status = 0;
    if (runs < 1)
        runs = 1;
    for (long run = 0; run < runs && status == 0; run++)
        status = polyfold_speed_main(argc, argv);
    return status;
}
