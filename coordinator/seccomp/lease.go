package seccomp

// fcntl's Linux-specific commands are F_LINUX_SPECIFIC_BASE + n
// (linux/fcntl.h), the same on x86_64 and x86.
const fLinuxSpecificBase = 1024

// fcntlCommand is one Linux-specific fcntl command and the policy's
// decision on it.
type fcntlCommand struct {
	n       uint64 // the command is fLinuxSpecificBase + n
	refused bool
	why     string
}

// linuxFcntl classifies every Linux-specific fcntl command: a member may
// use it, or leaseRules refuses it. The test against the kernel headers
// fails on a command they define that is not here, as it does for
// syscalls (syscalls.go): a new way to hold up another process's open
// must not arrive unreviewed inside an allowed syscall.
var linuxFcntl = map[string]fcntlCommand{
	"F_SETLEASE": {0, true, "a lease makes every other opener of the file wait (fs.lease-break-time, 45 s), host processes included"},
	"F_GETLEASE": {1, false, "reads the caller's own lease"},
	// dnotify: the kernel queues a signal to the watcher when the directory
	// changes; the process that changed it does not wait for it.
	"F_NOTIFY":           {2, false, "a signal to the watcher; no one waits"},
	"F_DUPFD_QUERY":      {3, false, "compares two descriptors (Linux 6.10)"},
	"F_CREATED_QUERY":    {4, false, "whether the caller's own open created the file (6.12)"},
	"F_CANCELLK":         {5, false, "kernel-internal; fcntl answers EINVAL"},
	"F_DUPFD_CLOEXEC":    {6, false, "dup"},
	"F_SETPIPE_SZ":       {7, false, "the caller's pipe, bounded by fs.pipe-max-size and the user's pipe quota"},
	"F_GETPIPE_SZ":       {8, false, "reads"},
	"F_ADD_SEALS":        {9, false, "seals a memfd the caller made"},
	"F_GET_SEALS":        {10, false, "reads"},
	"F_GET_RW_HINT":      {11, false, "reads"},
	"F_SET_RW_HINT":      {12, false, "a write-lifetime hint to the filesystem"},
	"F_GET_FILE_RW_HINT": {13, false, "reads"},
	"F_SET_FILE_RW_HINT": {14, false, "a write-lifetime hint"},
	// File delegations, Linux 6.19 (the test host's 6.18 answers EINVAL).
	"F_GETDELEG": {15, false, "reads the caller's own delegation"},
	"F_SETDELEG": {16, true, "a delegation is a lease, on a file or a directory, whose break makes others wait"},
}

// classicFcntl are fcntl's commands below F_LINUX_SPECIFIC_BASE, each
// the command's number; the policy allows them all. They act on the
// caller's own descriptors (dup, flags), its own signal delivery (owner,
// signal), or take advisory record locks, which make only another locker
// wait, never a plain open, read or write (mandatory locking is gone
// since Linux 5.15). The test against the kernel headers fails on a
// command they define that is not here or in linuxFcntl.
var classicFcntl = map[string]uint64{
	"F_DUPFD": 0, "F_GETFD": 1, "F_SETFD": 2, "F_GETFL": 3, "F_SETFL": 4,
	"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7,
	"F_SETOWN": 8, "F_GETOWN": 9, "F_SETSIG": 10, "F_GETSIG": 11,
	"F_GETLK64": 12, "F_SETLK64": 13, "F_SETLKW64": 14, // x86's struct flock64
	"F_SETOWN_EX": 15, "F_GETOWN_EX": 16, "F_GETOWNER_UIDS": 17,
	"F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
}

// refusedFcntl are the refused commands, in the order of their numbers.
var refusedFcntl = []string{"F_SETLEASE", "F_SETDELEG"}

// leaseRules refuse file leases and delegations. A lease holder makes
// every other process that opens the file (for writing, for a read
// lease; at all, for a write lease), truncates it or, for a directory
// delegation, changes its entries wait until the holder lets go or
// fs.lease-break-time (45 s) passes, and it can take the lease again
// after each break. The kernel grants one on any regular file the
// caller owns (or any, with CAP_LEASE), read grants and the host view
// included: a member, which owns what its caller owns, could stall host
// programs that never lock anything (a root caller's member: opens of
// /etc/ld.so.cache, /etc/passwd, binaries, host-wide). Only the
// kernel-side lease users (nfsd, ksmbd) are left; a member has neither.
//
// The command is an unsigned int to the kernel, so only its low 32 bits
// are compared. F_SETLEASE's lease type is a register too, but unlocking
// is refused with the rest: a member never holds a lease to drop. EACCES
// is the kernel's own answer to a caller without CAP_LEASE on a file it
// does not own, an answer every lease user meets already (Samba's kernel
// oplocks then go without); EPERM never comes from F_SETLEASE.
// F_SETDELEG's type is in memory, out of seccomp's reach, so it is
// refused whole, with the same answer; a kernel without it says EINVAL.
func leaseRules() []Rule {
	var rs []Rule
	for _, name := range refusedFcntl {
		c := linuxFcntl[name]
		cmd := Cond{Arg: 1, Op: OpMaskedEq, Mask: low32, Value: fLinuxSpecificBase + c.n}
		rs = append(rs, refuseIf("fcntl", EACCES, c.why, cmd)...)
		// fcntl64 exists on x86 alone; 32-bit glibc calls it for fcntl.
		rs = append(rs, Rule{Syscall: "fcntl64", Arch: []string{ArchX86}, Conds: []Cond{cmd}, Errno: EACCES, Why: c.why})
	}
	return rs
}
