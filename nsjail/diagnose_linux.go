package nsjail

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// startError is a failure to create the helper's namespaces, with its
// cause and the step that fixes it (Backend.Available reports the two
// apart). It is ErrCannotSandbox and keeps the errno: errors.Is(err,
// unix.EPERM) holds.
type startError struct {
	why, remedy string
	err         error
}

func (e *startError) Error() string { return e.cause() + "; " + e.remedy }

// cause is the message without the remedy.
func (e *startError) cause() string {
	return policy.ErrCannotSandbox.Error() + ": " + e.why + ": " + e.err.Error()
}

func (e *startError) Unwrap() []error { return []error{policy.ErrCannotSandbox, e.err} }

// explainStart turns a failure to create the helper's namespaces into a
// cause and a remedy.
func explainStart(err error) error {
	var why, remedy string
	switch {
	case errors.Is(err, unix.ENOSPC):
		why = "user namespaces are disabled or exhausted (user.max_user_namespaces=" + readSysctl("user/max_user_namespaces") + ")"
		remedy = "run: sudo sysctl -w user.max_user_namespaces=15000, or use --backend docker"
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		why, remedy = explainEPERM()
	case errors.Is(err, unix.EINVAL):
		why = "the kernel refused the namespace flags"
		remedy = "acbox needs Linux 5.12 or later with user namespaces; use --backend docker"
	default:
		why = "creating the sandbox's namespaces failed"
		remedy = "run `acbox doctor` for the failing check"
	}
	return &startError{why: why, remedy: remedy, err: err}
}

func explainEPERM() (string, string) {
	if readSysctl("kernel/unprivileged_userns_clone") == "0" {
		return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)",
			"run: sudo sysctl -w kernel.unprivileged_userns_clone=1, or use --backend docker"
	}
	if readSysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
		return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)",
			"install the AppArmor profile printed by `acbox doctor`, or use --backend docker"
	}
	return "the kernel or a security module refused to create a user namespace",
		"run `acbox doctor`; inside a container, run it with --security-opt seccomp=unconfined or use --backend docker"
}

func readSysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return "absent"
	}
	return strings.TrimSpace(string(b))
}
