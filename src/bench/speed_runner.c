/* The runner of `polyfold bench --speed` (src/bench/speed.rs builds it with
 * the benchmark's compiler): runs PROGRAM once, its standard output to
 * OUTPUT, with the stack limit raised to the hard limit (the corpus kernels
 * declare their arrays on the stack), and prints one line:
 * `STATUS USER_US SYSTEM_US MAXRSS` from wait4 (MAXRSS in kB on Linux).
 * STATUS is the exit code, or 128 + the signal number.
 * A separate small process does this so that the peak memory is the
 * program's: a child's ru_maxrss starts from the memory of the process that
 * forked it, which for polyfold itself can be hundreds of MB. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PROGRAM OUTPUT\n", argv[0]);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        struct rlimit r;
        if (getrlimit(RLIMIT_STACK, &r) == 0) {
            r.rlim_cur = r.rlim_max;
            setrlimit(RLIMIT_STACK, &r);
        }
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        execl(argv[1], argv[1], (char *)0);
        _exit(127);
    }
    int status = 0;
    struct rusage u;
    while (wait4(pid, &status, 0, &u) < 0) {
        if (errno != EINTR) {
            perror("wait4");
            return 2;
        }
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("%d %ld %ld %ld\n", code,
           (long)u.ru_utime.tv_sec * 1000000L + (long)u.ru_utime.tv_usec,
           (long)u.ru_stime.tv_sec * 1000000L + (long)u.ru_stime.tv_usec,
           (long)u.ru_maxrss);
    return 0;
}
