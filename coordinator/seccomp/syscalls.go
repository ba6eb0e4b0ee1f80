package seccomp

import (
	"maps"
	"slices"
)

// Every syscall is classified: a rule of the policy refuses it (under
// conditions or outright), or it is in allowed. The filter allows by
// default only up to the highest number classified; every number above
// it, and x86_64's unused numbers between its own table and the shared
// numbering, answer ENOSYS ([Unclassified]), so a syscall a newer kernel
// adds is refused until it is reviewed here. ENOSYS is what a kernel
// without the call says, which callers already handle.
//
// To classify a new syscall: refuse it with a rule, or add it to allowed
// with the reason in the commit; give its number in numbers (or
// amd64Numbers) when libseccomp's table lacks it. Tests compare both lists
// with the kernel headers and with libseccomp's table and fail on any
// syscall they know that is not classified here.

// sharedFirst is the first number of the numbering x86_64 and x86 share
// (Linux 5.1 on); x32Bit marks an x32 call in nr on x86_64.
const (
	sharedFirst = 424
	x32Bit      = 0x40000000
)

// numbers are the classified syscalls past libseccomp 2.5's table (it
// stops at futex_requeue, 456), by their number, the same on x86_64 and
// x86. Package compile refuses rules for them by number ([Numbers]).
var numbers = map[string]int{
	"statmount":         457, // Linux 6.8
	"listmount":         458, // 6.8
	"lsm_get_self_attr": 459, // 6.8
	"lsm_set_self_attr": 460, // 6.8
	"lsm_list_modules":  461, // 6.8
	"mseal":             462, // 6.10
	"setxattrat":        463, // 6.13
	"getxattrat":        464, // 6.13
	"listxattrat":       465, // 6.13
	"removexattrat":     466, // 6.13
	"open_tree_attr":    467, // 6.15
	"file_getattr":      468, // 6.17
	"file_setattr":      469, // 6.17
}

// amd64Numbers are x86_64's own syscalls past libseccomp's table, below
// the shared numbering. Both are callable only from a uprobe's trampoline
// (the kernel sends SIGILL otherwise).
var amd64Numbers = map[string]int{
	"uretprobe": 335, // Linux 6.11
	"uprobe":    336, // on the 6.18 test host
}

// allowed are the syscalls the filter passes to the kernel untouched: the
// kernel's own checks (no capabilities, Landlock, the namespaces) decide.
// Names as libseccomp and the kernel headers spell them, both
// architectures together.
var allowed = []string{
	"_llseek", "_newselect", "accept", "accept4", "access", "alarm", "arch_prctl", "bind", "brk", "cachestat",
	"capget", "capset", "chdir", "chown", "chown32", "clock_getres", "clock_getres_time64", "clock_gettime",
	"clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "close", "close_range", "connect",
	"copy_file_range", "dup", "dup2", "dup3", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_pwait",
	"epoll_pwait2", "epoll_wait", "eventfd", "eventfd2", "execve", "execveat", "exit", "exit_group", "faccessat",
	"faccessat2", "fadvise64", "fadvise64_64", "fallocate", "fanotify_mark", "fchdir", "fchown", "fchown32",
	"fchownat", "fdatasync", "fgetxattr", "file_getattr", "file_setattr", "flistxattr",
	"flock", "fork", "fremovexattr", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync", "ftruncate",
	"ftruncate64", "futex", "futex_requeue", "futex_time64", "futex_wait", "futex_waitv", "futex_wake",
	"futimesat", "get_robust_list", "get_thread_area", "getcpu", "getcwd", "getdents", "getdents64", "getegid",
	"getegid32", "geteuid", "geteuid32", "getgid", "getgid32", "getgroups", "getgroups32", "getitimer",
	"getpeername", "getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getrandom", "getresgid",
	"getresgid32", "getresuid", "getresuid32", "getrlimit", "getrusage", "getsid", "getsockname", "getsockopt",
	"gettid", "gettimeofday", "getuid", "getuid32", "getxattr", "getxattrat", "inotify_add_watch", "inotify_init",
	"inotify_init1", "inotify_rm_watch", "io_cancel", "io_destroy", "io_getevents", "io_pgetevents",
	"io_pgetevents_time64", "io_setup", "io_submit", "ioprio_get", "ioprio_set", "ipc", "kill",
	"landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self", "lchown", "lchown32", "lgetxattr",
	"link", "linkat", "listen", "listxattr", "listxattrat", "llistxattr", "lremovexattr", "lseek", "lstat",
	"lstat64", "madvise", "map_shadow_stack", "membarrier", "memfd_create", "mincore", "mlock", "mlock2",
	"mlockall", "mprotect", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64",
	"mq_timedsend", "mq_timedsend_time64", "mq_unlink", "mremap", "mseal", "msgctl", "msgget", "msgrcv", "msgsnd",
	"msync", "munlock", "munlockall", "munmap", "nanosleep", "newfstatat", "nice", "oldfstat", "oldlstat",
	"oldolduname", "oldstat", "olduname", "pause", "pidfd_open", "pidfd_send_signal", "pipe", "pipe2",
	"pkey_alloc", "pkey_free", "pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl", "pread64", "preadv",
	"preadv2", "process_mrelease", "pselect6", "pselect6_time64", "pwrite64", "pwritev", "pwritev2", "read",
	"readahead", "readdir", "readlink", "readlinkat", "readv", "recvfrom", "recvmmsg", "recvmmsg_time64",
	"recvmsg", "remap_file_pages", "removexattr", "removexattrat", "rename", "renameat", "renameat2",
	"restart_syscall", "rmdir", "rseq", "rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
	"rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigtimedwait_time64", "rt_tgsigqueueinfo",
	"sched_get_priority_max", "sched_get_priority_min", "sched_getaffinity", "sched_getattr", "sched_getparam",
	"sched_getscheduler", "sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity",
	"sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp", "select", "semctl",
	"semget", "semop", "semtimedop", "semtimedop_time64", "sendfile", "sendfile64",
	"set_robust_list", "set_thread_area", "set_tid_address", "setdomainname", "setfsgid", "setfsgid32",
	"setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups", "setgroups32", "sethostname", "setitimer",
	"setpgid", "setpriority", "setregid", "setregid32", "setresgid", "setresgid32", "setresuid", "setresuid32",
	"setreuid", "setreuid32", "setsid", "setsockopt", "setuid", "setuid32", "shmat", "shmctl", "shmdt", "shmget",
	"shutdown", "sigaction", "sigaltstack", "signal", "signalfd", "signalfd4", "sigpending", "sigprocmask",
	"sigreturn", "sigsuspend", "splice", "stat", "stat64", "statfs", "statfs64", "statx", "symlink", "symlinkat",
	"sync", "sync_file_range", "syncfs", "sysinfo", "tee", "tgkill", "time", "timer_create", "timer_delete",
	"timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64", "timerfd_create",
	"timerfd_gettime", "timerfd_gettime64", "timerfd_settime", "timerfd_settime64", "times", "tkill", "truncate",
	"truncate64", "ugetrlimit", "umask", "uname", "unlink", "unlinkat", "uprobe", "uretprobe", "utime",
	"utimensat", "utimensat_time64", "utimes", "vfork", "vhangup", "vmsplice", "wait4", "waitid", "waitpid",
	"write", "writev",
}

// Numbers returns the syscalls past libseccomp's table by their number, the
// same on x86_64 and x86; package compile refuses the policy's rules for
// them by number. The map is fresh.
func Numbers() map[string]int { return maps.Clone(numbers) }

// Allowed returns the syscalls the policy lets through, sorted. The slice
// is fresh.
func Allowed() []string { return slices.Clone(allowed) }

// Classified reports whether the policy has decided on the syscall: a rule
// names it, or it is allowed.
func Classified(name string) bool {
	if _, ok := slices.BinarySearch(allowed, name); ok {
		return true
	}
	return slices.ContainsFunc(Policy(), func(r Rule) bool { return r.Syscall == name })
}

// Range is a span of syscall numbers on one architecture, both ends
// included.
type Range struct {
	Arch        string
	First, Last uint32
}

// Contains reports whether nr on arch is in r.
func (r Range) Contains(arch string, nr uint32) bool {
	return r.Arch == arch && nr >= r.First && nr <= r.Last
}

// Unclassified returns the numbers no classified syscall has, which the
// filter answers with ENOSYS: on both architectures everything above the
// highest classified number, and on x86_64 its never-used numbers between
// its own table and the shared numbering. x32 numbers (bit 30) are left to
// the filter's bad-architecture kill.
func Unclassified() []Range {
	top := uint32(slices.Max(slices.Collect(maps.Values(numbers))))
	amd := uint32(slices.Max(slices.Collect(maps.Values(amd64Numbers))))
	return []Range{
		{ArchAMD64, amd + 1, sharedFirst - 1},
		{ArchAMD64, top + 1, x32Bit - 1},
		{ArchX86, top + 1, ^uint32(0)},
	}
}
