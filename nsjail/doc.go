// Package nsjail is acbox's native backend: it runs a plan's command in new
// user, mount, pid, network, ipc, uts and cgroup namespaces, without root
// and without a daemon.
//
//	res, err := nsjail.Launch(plan, nsjail.Options{})
//
// # Processes
//
// The parent (the acbox process) opens every grant O_PATH|O_NOFOLLOW and
// records its dev/ino, then re-executes its own binary as the sandbox's
// pid 1, the helper, with argv[0] [HelperArg0]. The helper receives the plan
// on a pipe, builds the new root and starts the member; it stays as reaper
// and signal forwarder. When the parent dies, even by SIGKILL, the helper
// gets SIGKILL (Pdeathsig) and the kernel kills every process of the pid
// namespace with it.
//
// # Order of enforcement
//
// In the helper: private propagation; every source (system directories,
// grants, runtime mounts, device nodes) re-opened with RESOLVE_NO_SYMLINKS,
// its dev/ino compared with the parent's, cloned with open_tree and given
// its attributes (read-only, nosuid, nodev) on the detached tree, so no
// writable window exists; a tmpfs staging root; /proc, with its host-wide
// kernel files masked (by name, and every top-level entry only root may
// read: procrootonly_linux.go) and /proc/sys, irq, bus and fs read-only
// (procmask_linux.go; the counter caps are written later through a
// descriptor opened before, ucount_linux.go), a minimal /dev with a private
// devpts; tmpfs /tmp and home; grants moved in parents first; the
// root made read-only; pivot_root and the old root detached; lo up.
//
// For the member, on one locked thread of the helper: the bounding and
// ambient capability sets emptied and the secure bits locked; no_new_privs;
// Landlock; the remaining capability sets emptied; seccomp; then a fork and
// exec in a new session. Before exec the thread reads back what it holds and
// refuses to run the member if a requested control is missing.
//
// # Limits
//
// The kernel is shared with the host. Processes of the same user outside
// the sandbox can change granted directories. See the README's ceilings.
//
// # Platforms and system calls
//
// Linux only. Elsewhere (backend_other.go) the package builds so that acbox
// builds and vets on macOS, and Backend.Available says "the native backend
// needs Linux". System calls go through coordinator/sys (EINTR retried,
// errors that keep the errno); the one exception is the all-threads
// capset of pid 1, which psx must broadcast (run_linux.go).
package nsjail
