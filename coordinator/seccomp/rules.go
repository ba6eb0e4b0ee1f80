package seccomp

// Linux constants the rules compare against. They are the same on x86_64
// and x86.
const (
	cloneNewTime   = 0x00000080
	cloneNewNS     = 0x00020000
	cloneNewCgroup = 0x02000000
	cloneNewUTS    = 0x04000000
	cloneNewIPC    = 0x08000000
	cloneNewUser   = 0x10000000
	cloneNewPID    = 0x20000000
	cloneNewNet    = 0x40000000

	tiocsti   = 0x5412
	tioclinux = 0x541c

	afUnix    = 1
	afInet    = 2
	afInet6   = 10
	afNetlink = 16

	netlinkRoute     = 0
	ipprotoMPTCP     = 262
	perLinux         = 0x0000
	perLinux32       = 0x0008
	personalityQ     = 0xffffffff // personality(0xffffffff) reads without setting
	socketcallSocket = 1          // SYS_SOCKET in socketcall(2)
	socketcallPair   = 8          // SYS_SOCKETPAIR

	low32 = 0xffffffff
)

// namespaceRules keep the member in the namespaces it was given. A new user
// namespace would hand it a full capability set, and with it every
// privileged interface the rest of the sandbox counts on being shut.
func namespaceRules() []Rule {
	why := "a new namespace would give the member capabilities over it"
	rs := refuse(EPERM, why, "unshare", "setns")
	// clone's flags are in arg0 on x86_64 and x86 alike. CLONE_NEWTIME
	// overlaps the exit-signal byte of clone(2) (only clone3 and unshare
	// accept it), but no valid signal has bit 7 set, so its rule refuses
	// nothing real and is kept so that every CLONE_NEW* bit has one.
	for _, bit := range []uint64{cloneNewNS, cloneNewCgroup, cloneNewUTS, cloneNewIPC,
		cloneNewUser, cloneNewPID, cloneNewNet, cloneNewTime} {
		rs = append(rs, refuseIf("clone", EPERM, why,
			Cond{Arg: 0, Op: OpMaskedEq, Mask: bit, Value: bit})...)
	}
	// clone3 passes its flags in memory, which seccomp cannot read. ENOSYS
	// makes glibc (pthread_create, posix_spawn) fall back to clone, whose
	// flags the rules above can see.
	return append(rs, refuse(ENOSYS, "clone3 flags are out of seccomp's reach; callers fall back to clone", "clone3")...)
}

// mountRules: the member has no capability over its mount namespace, so the
// kernel already says EPERM; the rules keep it so if a capability survives.
// open_tree_attr (Linux 6.15) is open_tree with attributes and gets the
// same answer. statmount and listmount (6.8) read the mount table by mount
// id, past what /proc/self/mountinfo shows; ENOSYS is what an older kernel
// says, and their callers (libmount) then read mountinfo instead.
func mountRules() []Rule {
	why := "the mount table is fixed before the member starts"
	rs := refuse(EPERM, why, "mount", "umount2", "pivot_root", "chroot",
		"fsopen", "fsconfig", "fsmount", "fspick", "open_tree", "move_mount", "mount_setattr", "open_tree_attr")
	rs = append(rs, refuse(ENOSYS, "reads the mount table by id; callers fall back to /proc/self/mountinfo",
		"statmount", "listmount")...)
	// umount(2) without flags exists only on x86; x86_64 has umount2 alone.
	return append(rs, Rule{Syscall: "umount", Arch: []string{ArchX86}, Errno: EPERM, Why: why})
}

// kernelSurfaceRules shut interfaces an unprivileged process can reach that
// have a long record of kernel bugs or that act on other processes.
func kernelSurfaceRules() []Rule {
	var rs []Rule
	rs = append(rs, refuse(EPERM, "keyrings reach keys from outside the sandbox (the session keyring is inherited)",
		"keyctl", "add_key", "request_key")...)
	rs = append(rs, refuse(EPERM, "large or legacy kernel attack surface open to unprivileged callers",
		"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
		"io_uring_register", "uselib")...)
	rs = append(rs, refuse(EPERM, "reads or changes another process",
		"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise", "kcmp")...)
	return append(rs, refuse(EPERM, "open_by_handle_at bypasses path checks; its handles come from name_to_handle_at",
		"open_by_handle_at", "name_to_handle_at")...)
}

// hostRules refuse calls that act on the host as a whole: its kernel, log,
// swap, quotas, accounting and I/O ports. Most need a capability of the
// initial user namespace, which a namespaced member cannot hold, and cost
// little to refuse anyway; syslog (with kernel.dmesg_restrict=0) and quota
// queries need none, and the kernel log is the host's.
func hostRules() []Rule {
	why := "acts on the host's kernel, log, swap, quotas, accounting or I/O ports"
	rs := refuse(EPERM, why, "kexec_load", "init_module", "finit_module", "delete_module",
		"swapon", "swapoff", "reboot", "acct", "quotactl", "quotactl_fd", "syslog",
		"lookup_dcookie", "iopl", "ioperm")
	// kexec_file_load has no x86 entry point.
	return append(rs, Rule{Syscall: "kexec_file_load", Arch: []string{ArchAMD64}, Errno: EPERM, Why: why})
}

// personalityRules allow PER_LINUX, PER_LINUX32 (linux32/setarch for 32-bit
// builds; it only changes uname's machine) and the query 0xffffffff, and
// refuse every other persona: READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE,
// MMAP_PAGE_ZERO, UNAME26 and the rest.
func personalityRules() []Rule {
	return refuseIf("personality", EPERM, "only PER_LINUX, PER_LINUX32 and the query are allowed",
		personalityConds()...)
}

// ioctlRules refuse typing into the terminal (TIOCSTI) and the Linux console
// requests (TIOCLINUX, which can also paste). The request is an unsigned int
// to the kernel, so only its low 32 bits are compared: 0x1_00005412 is
// TIOCSTI too.
func ioctlRules() []Rule {
	return refuseIf("ioctl", EPERM, "terminal input injection",
		Cond{Arg: 1, Op: OpMaskedEq, Mask: low32, Value: tiocsti},
		Cond{Arg: 1, Op: OpMaskedEq, Mask: low32, Value: tioclinux})
}
