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
// On systems other than Linux the package builds and every wrapper returns
// ErrUnsupported, so the tree builds and vets on macOS; the native backend
// then reports itself unavailable.
//
// Callers wrap these errors with their class, keeping both in the chain:
//
//	if err := sys.Kill(pid, unix.SIGKILL); err != nil {
//		return fmt.Errorf("%w: stopping sandbox %s: %w", policy.ErrCannotSandbox, id, err)
//	}
package sys
