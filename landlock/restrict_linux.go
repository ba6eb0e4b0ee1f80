//go:build linux

package landlock

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ABI returns the kernel's Landlock ABI version, as reported by
// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION). The error
// tells a kernel without Landlock (ENOSYS) from one that has it disabled at
// boot (EOPNOTSUPP), with the fix for each.
func ABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, abiError(err)
	}
	return v, nil
}

// RestrictThread applies r to the calling OS thread only, and to every process
// that thread forks afterwards. Other threads of the process stay
// unrestricted.
//
// The caller should already hold [runtime.LockOSThread]: the per-thread steps
// before and after this call (capabilities, seccomp, the fork) must happen on
// the same thread. RestrictThread adds a LockOSThread of its own that it never
// undoes once the thread is changed, so the restricted thread is discarded
// when the goroutine exits, even if the caller unlocks: the Go runtime must
// never hand it to another goroutine. (If the goroutine happens to run on the
// process's main thread, Go parks that thread for good instead of ending it;
// it is not reused either.) It sets no_new_privs on the thread unless it is
// already set.
//
// Strict (bestEffort false): refuses, changing nothing, if Landlock is missing
// or the ABI lacks a required right (the error wraps [ErrMissing] and names
// each one). Best effort: enforces what the kernel offers and lists the rest
// in [Report.Missing]; without Landlock at all it returns Enforced false and
// no error.
func RestrictThread(r Rules, bestEffort bool) (Report, error) {
	if err := validate(r); err != nil {
		return Report{}, err
	}
	abi, err := ABI()
	if err != nil {
		if bestEffort && (errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)) {
			return Plan(r, 0), nil
		}
		return Report{}, err
	}
	rs := compile(r, abi)
	rep := rs.report(abi)
	rep.Enforced = false
	if len(rep.Missing) > 0 && !bestEffort {
		return rep, refusal(rep)
	}
	fd, err := rs.create()
	if err != nil {
		return rep, err
	}
	defer unix.Close(fd)

	// From here on the thread changes: stay on it for good (see above).
	runtime.LockOSThread()
	if err := setNoNewPrivs(); err != nil {
		return rep, err
	}
	// No LANDLOCK_RESTRICT_SELF_TSYNC: the domain is for this thread only.
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		if errors.Is(err, unix.E2BIG) {
			return rep, fmt.Errorf("landlock: too many stacked domains on this thread (at most 16): %w", err)
		}
		return rep, os.NewSyscallError("landlock_restrict_self", err)
	}
	rep.Enforced = true
	return rep, nil
}

// create builds the kernel ruleset. On error no descriptor stays open.
func (rs ruleset) create() (int, error) {
	attr := ll.RulesetAttr{HandledAccessFS: rs.fs, HandledAccessNet: rs.net, Scoped: rs.scoped}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, os.NewSyscallError("landlock_create_ruleset", err)
	}
	for _, p := range rs.paths {
		err = addPath(fd, p)
		if err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	for _, p := range rs.ports {
		err = ll.LandlockAddNetPortRule(fd, &ll.NetPortAttr{AllowedAccess: p.access, Port: uint64(p.port)}, 0)
		if err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("landlock: rule for TCP port %d: %w", p.port, os.NewSyscallError("landlock_add_rule", err))
		}
	}
	return fd, nil
}

// addPath adds one path-beneath rule. The final component is not followed:
// a symlink there is refused, naming its target (see the package doc).
func addPath(rulesetFD int, p pathRule) error {
	fd, err := unix.Open(p.path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock: rule path: %w", &os.PathError{Op: "open", Path: p.path, Err: err})
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: rule path: %w", &os.PathError{Op: "fstat", Path: p.path, Err: err})
	}
	access := p.access
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		target, _ := os.Readlink(p.path)
		return fmt.Errorf("landlock: rule path %s is a symlink to %q; name its target instead", p.path, target)
	default:
		access &= fileRights // the kernel takes only file rights on a non-directory
	}
	err = ll.LandlockAddPathBeneathRule(rulesetFD, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0)
	if err != nil {
		return fmt.Errorf("landlock: rule for %s: %w", p.path, os.NewSyscallError("landlock_add_rule", err))
	}
	return nil
}

// setNoNewPrivs sets no_new_privs on the calling thread if it is not set yet.
// landlock_restrict_self needs it unless the thread has CAP_SYS_ADMIN, and
// acbox wants it for the member regardless.
func setNoNewPrivs() error {
	on, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err == nil && on == 1 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", err)
	}
	return nil
}
