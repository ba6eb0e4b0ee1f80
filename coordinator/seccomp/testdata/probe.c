// probe makes the calls named on its command line and prints one line per
// call: "name=OK" or "name=ERRNONAME". The seccomp tests build it as a 32-bit
// static binary (gcc -m32 -static) and as a 64-bit static one, and run it
// from a filtered thread and from an unfiltered one.
//
// The int80-* calls enter the kernel through `int $0x80`, the i386 system
// call gate: from a 64-bit process this is the classic way around a filter
// that only knows x86_64 numbers.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

// i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl).
#define I386_GETPID 20
#define I386_MOUNT 21
#define I386_UNSHARE 310
#define I386_SOCKET 359
#define I386_CHMOD 15
#define I386_OPEN 5
#define I386_MKNOD 14
#define I386_SETTIMEOFDAY 79
#define I386_SETXATTR 226
#define I386_CLOCK_SETTIME64 404
#define I386_OPENAT2 437
#define I386_FCHMODAT2 452
#define I386_SETXATTRAT 463
#define I386_OLD_MMAP 90 // old_mmap: its six arguments are a struct in memory
#define I386_MUNMAP 91
#define I386_MMAP2 192
#define I386_FCNTL 55
#define I386_FCNTL64 221
#define LEASE_BASE 1024 // F_LINUX_SPECIFIC_BASE: F_SETLEASE, +1 F_GETLEASE, +16 F_SETDELEG
#define I386_USTAT 62
#define I386_SGETMASK 68
#define I386_VM86OLD 113
#define I386_MODIFY_LDT 123
#define I386_VM86 166
#define I386_GET_MEMPOLICY 275
#define I386_SOCKETCALL 102
#define I386_SENDTO 369
#define I386_SENDMSG 370
#define I386_SENDMMSG 345
#define SYS_SENDTO_CALL 11 // socketcall subcalls (linux/net.h)
#define SYS_SENDMSG_CALL 16
#define SYS_SENDMMSG_CALL 20
#define SYS_SEND_CALL 9
#define FASTOPEN 0x20000000 // MSG_FASTOPEN
#define MS_NOUSER_FLAG (1u << 31)
#define BAD_ADDRESS 8 // never mapped: the kernel says EFAULT
#define AF_PACKET_FAMILY 17

static long int80(long nr, long a, long b, long c, long d, long e) {
	long ret;
#ifdef __x86_64__
	// The kernel's int 0x80 entry clobbers r8-r11 for 64-bit callers.
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory", "r8", "r9", "r10", "r11");
#else
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
#endif
	return ret;
}

// int80_mmap2 is mmap2(addr, len, prot, flags, -1, 0) through int $0x80:
// the page offset, its sixth argument, goes in ebp, which the compiler
// does not hand out, so the caller's is kept in r12 (x86_64) or on the
// stack (i386) meanwhile.
static long int80_mmap2(long len, long prot, long flags) {
	long ret;
#ifdef __x86_64__
	__asm__ volatile("mov %%rbp, %%r12\n\txor %%ebp, %%ebp\n\tint $0x80\n\tmov %%r12, %%rbp"
			 : "=a"(ret)
			 : "a"(I386_MMAP2), "b"(0), "c"(len), "d"(prot), "S"(flags), "D"(-1)
			 : "memory", "r8", "r9", "r10", "r11", "r12");
#else
	__asm__ volatile("push %%ebp\n\txor %%ebp, %%ebp\n\tint $0x80\n\tpop %%ebp"
			 : "=a"(ret)
			 : "a"(I386_MMAP2), "b"(0), "c"(len), "d"(prot), "S"(flags), "D"(-1)
			 : "memory");
#endif
	return ret;
}

static void report(const char *name, long ret, int err) {
	if (ret >= 0) {
		printf("%s=OK\n", name);
	} else {
		printf("%s=%s\n", name, strerrorname_np(err));
	}
	fflush(stdout);
}

// raw reports an int80 result, which carries -errno itself.
static void raw(const char *name, long ret) {
	report(name, ret < 0 && ret > -4096 ? -1 : 0, (int)-ret);
}

// fresh makes a new empty file in w/ (the test's world-writable
// directory) and returns its name, in static memory: below 4 GiB in this
// -no-pie binary, so int 0x80 can pass it. With gone, the file is removed
// again, for calls that create the name.
static char name[32];
static char *fresh(int gone) {
	strcpy(name, "w/p-XXXXXX");
	int fd = mkstemp(name);
	if (fd >= 0) {
		close(fd);
	}
	if (gone) {
		unlink(name);
	}
	return name;
}

// setid runs the set-id, capability and clock calls; 1 if p was one.
static int setid(const char *p) {
	static const char caps[] = "security.capability";
	static char zeros[24];  // not a valid capability header
	static unsigned long long how[3]; // struct open_how: O_RDONLY, mode 0, resolve 0
	if (strcmp(p, "chmod-setuid") == 0) {
		long r = chmod(fresh(0), 04755);
		report(p, r, errno);
	} else if (strcmp(p, "int80-chmod-setuid") == 0) {
		raw(p, int80(I386_CHMOD, (long)fresh(0), 04755, 0, 0, 0));
	} else if (strcmp(p, "int80-open-creat-setgid") == 0) {
		raw(p, int80(I386_OPEN, (long)fresh(1), O_CREAT | O_WRONLY, 02755, 0, 0));
	} else if (strcmp(p, "int80-mknod-setuid") == 0) {
		raw(p, int80(I386_MKNOD, (long)fresh(1), S_IFREG | 04755, 0, 0, 0));
	} else if (strcmp(p, "int80-fchmodat2-setgid") == 0) {
		raw(p, int80(I386_FCHMODAT2, AT_FDCWD, (long)fresh(0), 02755, 0, 0));
	} else if (strcmp(p, "int80-setxattr-caps") == 0) {
		raw(p, int80(I386_SETXATTR, (long)fresh(0), (long)caps, (long)zeros, 20, 0));
	} else if (strcmp(p, "int80-setxattrat") == 0) {
		raw(p, int80(I386_SETXATTRAT, AT_FDCWD, (long)fresh(0), 0, (long)caps, BAD_ADDRESS));
	} else if (strcmp(p, "int80-openat2") == 0) {
		raw(p, int80(I386_OPENAT2, AT_FDCWD, (long)"w", (long)how, sizeof how, 0));
	} else if (strcmp(p, "int80-settimeofday") == 0) {
		raw(p, int80(I386_SETTIMEOFDAY, BAD_ADDRESS, 0, 0, 0, 0));
	} else if (strcmp(p, "int80-clock-settime64") == 0) {
		raw(p, int80(I386_CLOCK_SETTIME64, 0 /* CLOCK_REALTIME */, BAD_ADDRESS, 0, 0, 0));
	} else {
		return 0;
	}
	return 1;
}

// unmapped reports an int80 mmap result and unmaps the page it got.
static void unmapped(const char *name, long ret) {
	raw(name, ret);
	if (ret >= 0 || ret <= -4096) {
		int80(I386_MUNMAP, ret, 4096, 0, 0, 0);
	}
}

// stack runs the mmap calls of the stack rules; 1 if p was one. The
// MAP_GROWSDOWN ones map a stack, which RLIMIT_DATA does not count.
static int stack(const char *p) {
	// struct mmap_arg_struct of old_mmap, in static memory below 4 GiB:
	// addr, len, prot, flags, fd, offset, each 32 bits.
	static unsigned int old[6] = {0, 4096, PROT_READ | PROT_WRITE, 0, -1, 0};
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
	if (strcmp(p, "int80-old-mmap-growsdown") == 0) {
		old[3] = anon | MAP_GROWSDOWN;
		unmapped(p, int80(I386_OLD_MMAP, (long)old, 0, 0, 0, 0));
	} else if (strcmp(p, "int80-old-mmap") == 0) {
		old[3] = anon;
		unmapped(p, int80(I386_OLD_MMAP, (long)old, 0, 0, 0, 0));
	} else if (strcmp(p, "int80-mmap2-growsdown") == 0) {
		unmapped(p, int80_mmap2(4096, PROT_READ | PROT_WRITE, anon | MAP_GROWSDOWN));
	} else if (strcmp(p, "int80-mmap2") == 0) {
		unmapped(p, int80_mmap2(4096, PROT_READ | PROT_WRITE, anon));
	} else if (strcmp(p, "mmap-growsdown") == 0 || strcmp(p, "mmap") == 0) {
		// The libc's own mmap: mmap2 in 32-bit glibc, mmap in 64-bit.
		int flags = anon | (strcmp(p, "mmap") == 0 ? 0 : MAP_GROWSDOWN);
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, flags, -1, 0);
		report(p, m == MAP_FAILED ? -1 : 0, errno);
		if (m != MAP_FAILED) {
			munmap(m, 4096);
		}
	} else {
		return 0;
	}
	return 1;
}

// lease runs the lease calls on a fresh file of the caller's, opened
// read-only and by nothing else, so that unfiltered the kernel grants the
// lease; closing the descriptor drops it. 1 if p was one.
static int lease(const char *p) {
	// struct delegation: d_flags, then d_type (F_RDLCK), then padding.
	static struct {
		unsigned int flags;
		unsigned short type, pad;
	} deleg = {0, F_RDLCK, 0};
	if (strncmp(p, "fcntl", 5) != 0 && strncmp(p, "int80-fcntl", 11) != 0) {
		return 0;
	}
	int fd = open(fresh(0), O_RDONLY | O_CLOEXEC);
	unlink(name);
	if (strcmp(p, "fcntl-setlease") == 0) {
		long r = fcntl(fd, LEASE_BASE, F_RDLCK);
		report(p, r, errno);
	} else if (strcmp(p, "int80-fcntl-setlease") == 0) {
		raw(p, int80(I386_FCNTL, fd, LEASE_BASE, F_WRLCK, 0, 0));
	} else if (strcmp(p, "int80-fcntl64-setlease") == 0) {
		raw(p, int80(I386_FCNTL64, fd, LEASE_BASE, F_RDLCK, 0, 0));
	} else if (strcmp(p, "int80-fcntl64-setdeleg") == 0) {
		raw(p, int80(I386_FCNTL64, fd, LEASE_BASE + 16, (long)&deleg, 0, 0));
	} else if (strcmp(p, "int80-fcntl64-getlease") == 0) {
		raw(p, int80(I386_FCNTL64, fd, LEASE_BASE + 1, 0, 0, 0));
	} else {
		printf("%s=UNKNOWN\n", p);
	}
	close(fd);
	return 1;
}

// surface runs the calls of the rules peers share (surface.go); 1 if p
// was one. Unfiltered, vm86 and vm86old say ENOSYS on a 64-bit kernel and
// the rest succeed.
static int surface(const char *p) {
	static char buf[64];
	struct stat st;
	unsigned int dev = stat("/", &st) == 0 ? (unsigned int)st.st_dev : 0;
	if (strcmp(p, "modify-ldt") == 0) {
		// Read the LDT through the libc: x86_64's number or i386's.
		long r = syscall(SYS_modify_ldt, 0, buf, 16);
		report(p, r, errno);
	} else if (strcmp(p, "int80-modify-ldt") == 0) {
		raw(p, int80(I386_MODIFY_LDT, 0, (long)buf, 16, 0, 0));
	} else if (strcmp(p, "int80-vm86old") == 0) {
		raw(p, int80(I386_VM86OLD, 0, 0, 0, 0, 0));
	} else if (strcmp(p, "int80-vm86") == 0) {
		raw(p, int80(I386_VM86, 0, 0, 0, 0, 0)); // VM86_PLUS_INSTALL_CHECK
	} else if (strcmp(p, "int80-sgetmask") == 0) {
		raw(p, int80(I386_SGETMASK, 0, 0, 0, 0, 0));
	} else if (strcmp(p, "int80-ustat-root") == 0) {
		raw(p, int80(I386_USTAT, dev, (long)buf, 0, 0, 0));
	} else if (strcmp(p, "int80-get-mempolicy") == 0) {
		raw(p, int80(I386_GET_MEMPOLICY, 0, 0, 0, 0, 0));
	} else {
		return 0;
	}
	return 1;
}

// fastopen runs the send calls of the TCP Fast Open rules on fd -1; 1 if p
// was one. Without the filter each says EBADF; a refusal can only be the
// filter's, and no packet is sent.
static int fastopen(const char *p) {
	// socketcall's arguments, in static memory below 4 GiB: fd, buf, len,
	// flags, and two zeros (sendto's address) or, for sendmsg, fd, msg, flags.
	static unsigned int args[6] = {-1, 0, 0, FASTOPEN, 0, 0};
	static unsigned int msgargs[3] = {-1, 0, FASTOPEN};
	static unsigned int mmsgargs[4] = {-1, 0, 0, FASTOPEN};
	static unsigned int sendargs[4] = {-1, 0, 0, FASTOPEN};
	if (strcmp(p, "int80-sendto-fastopen") == 0) {
		raw(p, int80(I386_SENDTO, -1, 0, 0, FASTOPEN, 0));
	} else if (strcmp(p, "int80-sendto") == 0) {
		raw(p, int80(I386_SENDTO, -1, 0, 0, 0, 0));
	} else if (strcmp(p, "int80-sendmsg-fastopen") == 0) {
		raw(p, int80(I386_SENDMSG, -1, 0, FASTOPEN, 0, 0));
	} else if (strcmp(p, "int80-sendmmsg-fastopen") == 0) {
		raw(p, int80(I386_SENDMMSG, -1, 0, 0, FASTOPEN, 0));
	} else if (strcmp(p, "int80-socketcall-sendto") == 0) {
		raw(p, int80(I386_SOCKETCALL, SYS_SENDTO_CALL, (long)args, 0, 0, 0));
	} else if (strcmp(p, "int80-socketcall-sendmsg") == 0) {
		raw(p, int80(I386_SOCKETCALL, SYS_SENDMSG_CALL, (long)msgargs, 0, 0, 0));
	} else if (strcmp(p, "int80-socketcall-sendmmsg") == 0) {
		raw(p, int80(I386_SOCKETCALL, SYS_SENDMMSG_CALL, (long)mmsgargs, 0, 0, 0));
	} else if (strcmp(p, "int80-socketcall-send") == 0) {
		// send carries no address: left alone, EBADF from the kernel.
		raw(p, int80(I386_SOCKETCALL, SYS_SEND_CALL, (long)sendargs, 0, 0, 0));
	} else if (strcmp(p, "sendto-fastopen") == 0) {
		// The libc's own: socketcall in 32-bit glibc built for old kernels,
		// the direct call otherwise; refused either way.
		long r = sendto(-1, "", 0, FASTOPEN, NULL, 0);
		report(p, r, errno);
	} else {
		return 0;
	}
	return 1;
}

int main(int argc, char **argv) {
	static const char root[] = "/";
	for (int i = 1; i < argc; i++) {
		const char *p = argv[i];
		long r;
		if (setid(p) || stack(p) || lease(p) || surface(p) || fastopen(p)) {
			continue;
		} else if (strcmp(p, "unshare") == 0) {
			r = unshare(CLONE_NEWUSER);
			report(p, r, errno);
		} else if (strcmp(p, "socket-unix") == 0) {
			r = socket(AF_UNIX, SOCK_STREAM, 0);
			report(p, r, errno);
		} else if (strcmp(p, "int80-getpid") == 0) {
			raw(p, int80(I386_GETPID, 0, 0, 0, 0, 0));
		} else if (strcmp(p, "int80-unshare") == 0) {
			raw(p, int80(I386_UNSHARE, CLONE_NEWUSER, 0, 0, 0, 0));
		} else if (strcmp(p, "int80-mount") == 0) {
			// MS_NOUSER makes the kernel say EINVAL before it checks
			// privilege, so EPERM can only come from the filter.
			raw(p, int80(I386_MOUNT, 0, (long)root, 0, (long)MS_NOUSER_FLAG, 0));
		} else if (strcmp(p, "int80-socket-packet") == 0) {
			raw(p, int80(I386_SOCKET, AF_PACKET_FAMILY, SOCK_RAW, 0, 0, 0));
#ifdef __x86_64__
		} else if (strcmp(p, "x32-getpid") == 0) {
			// An x32 system call: the filter kills the whole process.
			r = syscall(0x40000000 | SYS_getpid);
			report(p, r, errno);
#endif
		} else {
			printf("%s=UNKNOWN\n", p);
		}
	}
	return 0;
}
