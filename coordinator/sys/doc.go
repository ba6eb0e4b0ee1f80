// Package sys is acbox's one syscall layer: thin wrappers over
// golang.org/x/sys/unix for every package outside landlock, the seccomp
// loader and the escape suite's probes (which make raw calls on purpose, to
// see the kernel's own answer).
//
// Each wrapper
//   - retries EINTR (a signal to acbox never turns into a failed mount or a
//     half-read directory), bounded so a storm of signals cannot spin it;
//   - returns *os.PathError for calls on a path or descriptor and
//     *os.SyscallError otherwise, so the message names the call and
//     errors.Is(err, unix.EACCES) still holds;
//   - does nothing else: no policy, no logging, no fallback.
//
// Two calls are deliberately not retried: close (on Linux the descriptor is
// gone even after EINTR, and a retry could close one another goroutine was
// just given) and dup (it cannot sleep). CloseOnExecFrom changes every
// descriptor of the process: only the sandbox's pid 1 calls it, never a
// library on its caller's behalf.
//
// # Other systems
//
// Off Linux the package builds and every wrapper whose arguments exist
// there returns ErrUnsupported (sys_other.go), so the tree builds and vets
// on macOS; the native backend then reports itself unavailable. Wrappers
// over Linux-only kernel structures (open_how, mount_attr, the new mount
// API, capabilities, sysinfo, ifreq, tcp_info) have no stub: only Linux
// files call them. Recvfrom alone works on every Unix (the egress proxy's
// idle wait uses it on macOS too).
//
// # Errors in messages
//
// TestErrorfKeepsCauses parses the whole tree and fails on a fmt.Errorf
// that formats an error with %v or %s: wrap it with %w.
//
// Callers wrap these errors with their class, keeping both in the chain:
//
//	if err := sys.Kill(pid, unix.SIGKILL); err != nil {
//		return fmt.Errorf("%w: stopping sandbox %s: %w", policy.ErrCannotSandbox, id, err)
//	}
package sys
