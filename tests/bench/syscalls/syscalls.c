/*
 * syscalls: the per-call cost of a few system calls, for TestSyscallCost
 * (tests/bench/syscall_test.go), which runs it bare, under bubblewrap and
 * under acbox. It prints one line per call, "name ns-per-call", timed with
 * CLOCK_THREAD_CPUTIME_ID: the CPU the loop used, kernel time included, and
 * not the time other processes on a shared machine took the CPU away (two
 * clock_gettime calls per loop, against hundreds of thousands timed).
 *
 * The calls are the ones a build or a test suite makes by the million:
 * openat and fcntl, which acbox's seccomp filter has argument rules for and
 * so runs on every call, ioctl (argument rules too) and getpid, which the
 * kernel's seccomp action cache lets through without running the filter.
 *
 * Build: gcc -O2 -static -o syscalls syscalls.c
 * Run:   syscalls FILE N     (FILE: any readable file; N: calls per kind)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void report(const char *name, double start, long n, long calls)
{
	printf("%s %.1f\n", name, (now() - start) / ((double)n * calls));
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: syscalls FILE N\n");
		return 2;
	}
	const char *file = argv[1];
	long n = atol(argv[2]);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || n <= 0) {
		perror(file);
		return 1;
	}
	double t = now();
	for (long i = 0; i < n; i++) {
		int f = openat(AT_FDCWD, file, O_RDONLY | O_CLOEXEC);
		if (f < 0) {
			perror("openat");
			return 1;
		}
		close(f);
	}
	report("openat+close", t, n, 1);
	t = now();
	for (long i = 0; i < n; i++)
		if (fcntl(fd, F_GETFL) < 0) {
			perror("fcntl");
			return 1;
		}
	report("fcntl", t, n, 1);
	struct termios tio;
	t = now();
	for (long i = 0; i < n; i++)
		ioctl(fd, TCGETS, &tio); /* ENOTTY on a file */
	report("ioctl", t, n, 1);
	t = now();
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid); /* not glibc's: it may cache */
	report("getpid", t, n, 1);
	return 0;
}
