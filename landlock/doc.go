// Package landlock restricts the thread that starts a sandbox member with
// [Landlock], and reports exactly what the kernel enforced.
//
// acbox's pid 1 starts the member from one goroutine locked to its OS thread:
// that thread drops capabilities, sets no_new_privs, calls [RestrictThread],
// loads seccomp and forks the member, which inherits the thread's Landlock
// domain. Every other thread of pid 1 (the proxy bridge, the reaper) stays
// unrestricted. This package therefore never uses go-landlock's
// [landlock.Config.Restrict], which restricts every thread of the process; it
// builds the ruleset itself with the raw wrappers of go-landlock's
// [llsyscall] package and enforces it with landlock_restrict_self(2) on the
// calling thread only. (go-landlock's NewRulesetFD would also serve one
// thread, but its path rules follow a final symlink and need the caller to
// know in advance which paths are files; acbox wants both decided here.)
//
//	runtime.LockOSThread() // the thread is discarded after the fork
//	rep, err := landlock.RestrictThread(landlock.Rules{
//		ReadOnly:  []string{"/usr", "/etc", "/repo/docs"},
//		ReadWrite: []string{"/repo/parser", "/tmp", "/home/u"},
//		Devices:   []string{"/dev/null", "/dev/zero", "/dev/pts"},
//	}, false)
//	if err != nil { /* refuse the launch */ }
//	cmd.Start() // from the same goroutine
//
// [Plan] computes the same [Report] for any ABI without touching the kernel;
// `acbox plan` prints it.
//
// # What each rule grants
//
// Every filesystem right the kernel's ABI offers is handled, so anything no
// rule grants is denied: writing outside ReadWrite, reading or listing a
// directory that no rule covers (including "/" itself), executing from an
// ungranted directory, all fail with EACCES. Rules apply to the whole file
// hierarchy beneath each path.
//
//   - ReadOnly: read_file, read_dir, execute.
//   - ReadWrite: everything a build or an editor needs: the read rights,
//     write_file, truncate, remove_file, remove_dir, make_reg, make_dir,
//     make_sym, make_fifo, make_sock, refer (rename and link across
//     directories, so that "mv a/x b/" and git work), and on ABI 9 and later
//     resolve_unix (connecting to pathname Unix sockets: a socket the caller
//     mounts must be listed here, not in ReadOnly). Withheld on purpose:
//     make_char and make_block (nobody in the sandbox holds CAP_MKNOD, so
//     the only device node they could still create is the 0:0 whiteout;
//     denying them costs nothing) and ioctl_dev (device ioctls belong to the
//     Devices list).
//   - Devices: read_file, write_file, read_dir and ioctl_dev (terminals need
//     their ioctls). List the pty directory, for example /dev/pts, rather
//     than a /dev/ptmx symlink.
//   - ListOnly: read_dir alone, beneath each path. acbox lists the sandbox
//     root here so that `ls /` works: listing reveals only names the mounts
//     already show, while reading a file still needs one of the rules above.
//
// A rule on a file rather than a directory keeps only the rights that make
// sense for a file (execute, read_file, write_file, truncate, ioctl_dev,
// resolve_unix); the kernel refuses directory rights there.
//
// Every path must be absolute, clean and exist: a missing path is an error
// naming it, never a silent skip. Paths are opened O_PATH|O_NOFOLLOW|O_CLOEXEC.
// Intermediate symlinks are followed, since the caller built the mounts; a
// final symlink is refused with an error that names its target, because a
// rule on the link itself grants nothing and following it would grant
// whatever it happens to point at now.
//
// With RestrictTCP (the --net host mode) TCP bind(2) and connect(2) are
// handled too, allowed only for the listed ports. Without it the network is
// not handled at all: the network namespace confines it instead.
//
// On ABI 6 and later the domain is also scoped: connecting to an abstract
// Unix socket served from outside the domain, and sending a signal to a
// process outside it, fail with EPERM.
//
// # Strict and best effort
//
// acbox requires the rights of ABI 6: the sixteen filesystem rights up to
// ioctl_dev, TCP bind and connect when RestrictTCP is set, and both scopes.
// Newer rights (resolve_unix on ABI 9) are handled whenever the kernel offers
// them, but their absence is not a shortfall. In strict mode [RestrictThread]
// refuses with an error wrapping [ErrMissing] that names each missing right;
// in best effort it enforces what exists and lists the rest in
// [Report.Missing]. Without Landlock at all, strict mode fails with the
// reason from [ABI] and best effort reports Enforced false.
//
// # Current limitations
//
//   - Landlock's TCP rules do not cover Multipath TCP: a socket created with
//     IPPROTO_MPTCP connects to and binds ports no rule allows (Go's
//     net.Listen uses MPTCP by default since Go 1.24). acbox's seccomp
//     filter refuses IPPROTO_MPTCP; this package alone does not.
//   - UDP is not restricted, even on ABI 10 which could: acbox has no UDP
//     port list, and DNS in --net host mode needs it.
//   - Files and sockets opened before [RestrictThread] keep the access they
//     were opened with; pass the member only the descriptors it should have.
//   - Denials of the member after execve(2) are not audit-logged (the
//     kernel's default); acbox does not set LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON.
//   - A domain can be stacked at most 16 deep; restricting past that fails
//     with E2BIG.
//
// # Platform notes
//
// Linux only. Elsewhere [ABI] and [RestrictThread] return errors wrapping
// ENOSYS; [Plan] works everywhere.
//
// [Landlock]: https://docs.kernel.org/userspace-api/landlock.html
// [landlock.Config.Restrict]: https://pkg.go.dev/github.com/landlock-lsm/go-landlock/landlock#Config.Restrict
// [llsyscall]: https://pkg.go.dev/github.com/landlock-lsm/go-landlock/landlock/syscall
package landlock
