// Package seccomp holds the seccomp filter acbox puts on every sandbox
// member and loads it: a short deny list on top of allow-by-default, for
// x86_64 and for the i386 entry points (32-bit binaries and `int 0x80` from
// 64-bit code), so that a 32-bit call meets the same rules. A call from any
// other architecture, x32 included, kills the process.
//
// The sandbox's pid 1 applies it on the one locked thread that starts the
// member, last, after capabilities, no_new_privs and Landlock:
//
//	prog, err := seccomp.Build(seccomp.Options{BlockMPTCP: true})
//	if err != nil { ... }
//	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
//	...                    // drop capabilities, Landlock
//	if err := prog.LoadThread(); err != nil { ... }
//	err = cmd.Start()      // os/exec forks from this thread; the child inherits the filter
//
// Build only hands out the embedded program; prog.Digest (sha256 of the
// BPF) goes into the enforcement report.
//
// # The policy is data, the filter is generated
//
// The rules are Go values ([Rule], [Cond], [Errno]; [Policy] returns them),
// and nothing in this package compiles them. At development time
// `go generate ./coordinator/seccomp/` runs internal/gen, which compiles
// Policy() with libseccomp through package [compile] and writes
// filter_amd64.bpf (the BPF as the kernel reads it),
// filter_amd64.bpf.sha256 and filter_amd64.rules (the rules compiled, one
// per line, the reviewable side of a binary diff). This package embeds the
// .bpf, checks it against the .sha256 on first use, and Build returns it.
//
// Two tests keep the committed files in step with the policy, and both name
// the command to rerun: TestFilterIsGeneratedFromPolicy here compares
// filter_amd64.rules with Policy() on any build, and the golden test in
// package compile (cgo, libseccomp-dev) requires a fresh compile to equal
// filter_amd64.bpf byte for byte. The interpreter and kernel tests here then
// run on exactly the bytes that ship.
//
// Why: compiling took 1.5 to 2 ms per launch, most of it libseccomp merging
// the 33 personality rules, out of a startup budget of about 7 ms; the
// embedded program costs a few microseconds on the first Build and 0.1 µs
// after. And libseccomp is a C library: linking it put cgo into the acbox
// binary, while this package now builds with CGO_ENABLED=0, which
// TestNoCgoAtRunTime keeps so.
//
// # What is refused
//
//   - New namespaces: unshare, setns, clone with any CLONE_NEW* flag (EPERM);
//     clone3 (ENOSYS, see below).
//   - The mount table: mount, umount2, umount, pivot_root, chroot and the new
//     mount API (fsopen, fsconfig, fsmount, fspick, open_tree, move_mount,
//     mount_setattr, open_tree_attr); statmount and listmount (ENOSYS:
//     callers fall back to /proc/self/mountinfo).
//   - Unprivileged kernel surface: keyctl, add_key, request_key, bpf,
//     perf_event_open, userfaultfd, io_uring_*, uselib.
//   - Other processes: ptrace, process_vm_readv/writev, pidfd_getfd,
//     process_madvise, kcmp; file handles: open_by_handle_at,
//     name_to_handle_at.
//   - The host: kexec_*, module loading, swapon/off, reboot, acct, quotactl,
//     syslog, lookup_dcookie, iopl, ioperm. Most need capabilities of the
//     initial user namespace, which a member never has, and the rules keep a
//     mistake elsewhere from becoming a host change; syslog and quota queries
//     need none (kernel.dmesg_restrict=0), and the kernel log is the host's.
//   - What peers refuse by default and no developer tool needs
//     (surface.go; docker's default profile, systemd's @obsolete and
//     @cpu-emulation, Chrome's sandbox): modify_ldt, and on x86 vm86 and
//     vm86old (EPERM); systemd's @obsolete (_sysctl, ustat, sysfs,
//     sgetmask, nfsservctl, the never-implemented names) and x86_64's
//     old epoll calls (ENOSYS); the NUMA policy calls mbind,
//     set_mempolicy, set_mempolicy_home_node, get_mempolicy,
//     migrate_pages and move_pages (ENOSYS, as without CONFIG_NUMA);
//     memfd_secret and the lsm_* calls (ENOSYS); fanotify_init (EPERM).
//     coordinator/docker/profile's keptAgainstDocker names what docker
//     refuses and acbox keeps, with the reason.
//   - personality other than PER_LINUX, PER_LINUX32 and the query 0xffffffff.
//   - ioctl TIOCSTI and TIOCLINUX, request compared on its low 32 bits.
//   - socket and socketpair outside AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
//     (EAFNOSUPPORT); netlink other than NETLINK_ROUTE (EPROTONOSUPPORT);
//     IPPROTO_MPTCP (EPROTONOSUPPORT) with Options.BlockMPTCP; on x86,
//     socketcall's SYS_SOCKET and SYS_SOCKETPAIR (EAFNOSUPPORT).
//   - Client TCP Fast Open: sendto, sendmsg and sendmmsg with MSG_FASTOPEN
//     (EOPNOTSUPP), which connect without the connect hook Landlock's TCP
//     rules hang on; on x86, socketcall's SYS_SENDTO, SYS_SENDMSG and
//     SYS_SENDMMSG, whose flags are in memory, whatever they hold.
//   - Set-id files (systemd's RestrictSUIDSGID is the model): chmod, fchmod,
//     fchmodat, fchmodat2, creat, mkdir, mkdirat, mknod, mknodat with
//     S_ISUID or S_ISGID in the mode, and open and openat when O_CREAT or
//     O_TMPFILE is set and the mode has either bit (EPERM); openat2, whose
//     mode is in memory (ENOSYS, so callers fall back to openat).
//   - File capabilities: setxattr, lsetxattr and fsetxattr with a value of
//     20 or 24 bytes, the only sizes security.capability accepts (seccomp
//     cannot read the name); setxattrat, whose size is in memory (EPERM).
//   - The clock: settimeofday, clock_settime, clock_adjtime, adjtimex, and on
//     x86 stime, clock_settime64 and clock_adjtime64 (EPERM). adjtimex and
//     clock_adjtime also read, but whether they set is in memory.
//   - Setting RLIMIT_DATA: setrlimit of it, and prlimit64 of it with a new
//     limit (EPERM). Without a cgroup it is --memory, a soft limit pid 1
//     must be able to restore for itself; reading it stays open.
//   - Stacks the data limit does not count: mmap (x86: mmap2) with
//     MAP_GROWSDOWN, the flag compared on its bit alone (EPERM). x86's old
//     mmap (90) passes its flags in memory and is refused whatever they are
//     (ENOSYS, what a kernel without it says; 32-bit libcs and Go use mmap2).
//   - File leases and delegations: fcntl (x86: also fcntl64) with
//     F_SETLEASE or F_SETDELEG, the command compared on its low 32 bits
//     (EACCES). A lease holder makes every other opener of the file wait
//     up to fs.lease-break-time (45 s), host processes included, and the
//     member owns what its caller owns, read grants and the host view
//     included. Every Linux-specific fcntl command is classified
//     (lease.go); a test fails on one the kernel headers add.
//   - Syscalls the policy has not classified ([Unclassified]): every number
//     above the highest classified one, and x86_64's unused 337-423, answer
//     ENOSYS, so a syscall a newer kernel adds is refused until reviewed.
//     Every syscall is refused by a rule or listed in allowed (syscalls.go);
//     tests fail on a syscall the kernel headers or libseccomp know that is
//     not classified.
//
// Left allowed on purpose: sethostname and setdomainname (the UTS
// namespace is the sandbox's own), vhangup (needs CAP_SYS_TTY_CONFIG),
// x86's pre-rt_ signal calls and old stat, uname and readdir forms (the
// same kernel code as their successors), fanotify_mark (needs a group
// only fanotify_init makes), file_getattr and file_setattr (the path form
// of the FS_IOC_FS[GS]ETXATTR ioctls).
//
// # The listen filter (host mode)
//
// [ListenProgram] is a second, fixed filter that nsjail stacks in host mode
// only ([Program.LoadListener]): listen goes to pid 1's supervisor through
// seccomp user notification, since Landlock never sees the port listen
// picks for an unbound socket; x86's socketcall(SYS_LISTEN) is refused
// (EACCES). It is not part of [Policy], its digest or the docker profile.
//
// # Errnos
//
// EPERM is what the kernel itself says for a missing privilege, and what
// callers already handle. clone3 gets ENOSYS because its flags are in memory,
// out of seccomp's reach, and glibc answers ENOSYS by falling back to clone,
// whose flags the filter checks. MPTCP gets EPROTONOSUPPORT, what a kernel
// without MPTCP returns: Go's net package records MPTCP as unavailable once
// and uses plain TCP, which Landlock's TCP rules cover. Refused families get
// EAFNOSUPPORT and refused netlink protocols EPROTONOSUPPORT, the kernel's
// own answers for a family or protocol it does not have. Leases and
// delegations get EACCES, the kernel's answer to a caller without
// CAP_LEASE on a file it does not own, which lease users already meet.
//
// # Current limitations
//
//   - Up to the highest classified number the filter allows by default: a
//     classified syscall no rule names reaches the kernel, whose own checks
//     decide. A program cannot lower its RLIMIT_DATA either (seccomp cannot
//     see the new value).
//   - 32-bit glibc (Debian's is built for kernel 3.2) and Go's 386 port create
//     sockets only through socketcall, so 32-bit programs get no sockets.
//   - x86's multiplexers take their arguments in memory: socketcall's
//     SYS_SOCKET and SYS_SOCKETPAIR are refused whole (above), and a rule
//     on any other socket or System V IPC call would have to refuse its
//     socketcall or ipc subcall whole too (a test fails otherwise). The
//     other x86 calls with arguments in memory (old select, sigreturn,
//     the old stat and uname forms) touch nothing a rule guards; vm86 is
//     refused whole.
//   - Arguments are compared on the full 64-bit register where the kernel
//     reads 32 bits (socket family and protocol, personality): junk in the
//     high half is refused where the kernel would have accepted the call.
//     Callers through glibc and Go never pass junk.
//   - libseccomp 2.5.4 does not know syscalls past futex_requeue (456).
//     Package compile refuses the policy's rules for them by number (the
//     same on both architectures) in a short prologue in front of
//     libseccomp's program, the one that also answers ENOSYS; see [Numbers].
//   - An extended attribute value of exactly 20 or 24 bytes cannot be
//     written, whatever its name; programs that read the NTP state with
//     adjtimex (ntp_gettime, ntptime) get EPERM; and programs that use only
//     openat2 without a fallback fail with ENOSYS.
//   - gdb, strace and other ptrace tools do not work inside; programs that
//     insist on io_uring or userfaultfd must fall back. Wine and DOSEMU
//     (modify_ldt, vm86), numactl and other NUMA placement, and fanotify
//     watchers do not work either.
//   - Only Options{BlockMPTCP: true} is embedded; Build refuses other
//     Options as a bug rather than compile them at run time.
//   - Another libseccomp version may compile the same policy to different
//     (equally valid) bytes; the golden test then asks for a regeneration,
//     which changes the Digest in enforcement reports.
//
// # Platform notes
//
// The filter is for x86_64 hosts: Build returns [ErrUnsupported] when acbox
// is built for another GOARCH, and LoadThread on another OS. Neither needs
// cgo. Regenerating the filter needs Linux, cgo and libseccomp 2.5 or later
// (libseccomp-dev) on an x86_64 host. LoadThread uses the raw seccomp(2)
// syscall, not libseccomp's loader, because libseccomp-golang turns on TSYNC,
// which would filter every thread of pid 1.
//
// [compile]: https://pkg.go.dev/github.com/acbox/acbox/coordinator/seccomp/compile
package seccomp
