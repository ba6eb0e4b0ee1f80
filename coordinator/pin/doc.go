// Package pin holds a path by descriptor so that what a sandbox is given is
// what was checked. Both backends use it: the native backend for every
// grant and runtime mount source it passes to its helper, the docker
// backend for every bind source from its checks until the mounted target
// is verified through the start gate.
//
// A path is held O_PATH|O_NOFOLLOW, and the descriptor's own path (read
// back from /proc/self/fd) must still be the canonical path: O_NOFOLLOW
// alone protects only the last component, so a symlink swapped in for any
// parent is caught here. The descriptor's device and inode are what the
// backend later requires of the mounted target; for a grant, they must also
// be the ones [policy.Resolve] recorded (see [MatchGrant]):
//
//	fd, dev, ino, err := pin.Hold(g.Path, unix.O_DIRECTORY)
//	if err == nil {
//		err = pin.MatchGrant(g, dev, ino)
//	}
//
// Errors are refusals ([policy.RefusedError]) that name the path and the
// next step, or [policy.ErrCannotSandbox] with the failed call.
//
// # Platforms
//
// Linux only: elsewhere Hold returns [policy.ErrCannotSandbox] wrapping
// errors.ErrUnsupported.
package pin
