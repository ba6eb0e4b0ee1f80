package probe

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// errnoOf returns the errno inside err, or 0.
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

func errnoName(e unix.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return e.Error()
}

func names(es []unix.Errno) string {
	var s []string
	for _, e := range es {
		s = append(s, errnoName(e))
	}
	return strings.Join(s, " or ")
}

// expectErrno passes when op failed with one of want. Any other errno means
// the call got past the sandbox's own refusal and is a fail.
func expectErrno(op string, err error, want ...unix.Errno) Outcome {
	if err == nil {
		return failf("%s succeeded", op)
	}
	e := errnoOf(err)
	if slices.Contains(want, e) {
		return passf("%s: %s", op, errnoName(e))
	}
	return failf("%s: %v; expected %s from the sandbox's refusal", op, err, names(want))
}

// expectDenied passes when op failed at all; detail names the error.
func expectDenied(op string, err error) Outcome {
	if err == nil {
		return failf("%s succeeded", op)
	}
	return passf("%s: %s", op, short(err))
}

// short renders an error as its errno name when it has one.
func short(err error) string {
	if e := errnoOf(err); e != 0 {
		return errnoName(e)
	}
	return err.Error()
}

// hidden judges an attempt to read a canary the runner created outside:
// any error passes (ENOENT: not in the sandbox's view), reading the
// canary's content fails, reading anything else is a fail too.
func hidden(path, canary string) Outcome {
	if path == "" {
		return skipf("the runner named no canary")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errnoOf(err) == unix.ENOENT {
			return passf("%s: ENOENT (not in the sandbox's view; it exists on the host)", path)
		}
		return passf("%s: %s", path, short(err))
	}
	if canary != "" && strings.Contains(string(b), canary) {
		return failf("%s is readable and holds the host canary", path)
	}
	return failf("%s is readable (%d bytes, not the canary: a different file)", path, len(b))
}

// lockThread runs fn on a locked OS thread that is discarded afterwards, for
// calls that change per-thread state (personality, ptrace, unshare).
func lockThread(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Not unlocked: if fn changed the thread, the runtime retires it.
		runtime.LockOSThread()
		fn()
	}()
	<-done
}
