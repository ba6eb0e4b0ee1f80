package profile

import (
	"slices"
	"testing"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// keptAgainstDocker are the syscalls docker's default profile refuses to a
// container without capabilities and acbox's native policy allows, each
// with the reason. Every other syscall docker refuses, acbox refuses too
// (coordinator/seccomp/surface.go has the ones added for this).
var keptAgainstDocker = map[string]string{
	"file_getattr":  "newer than the profile (6.17); the path form of the FS_IOC_FSGETXATTR ioctl, which docker allows",
	"file_setattr":  "newer than the profile; FS_IOC_FSSETXATTR's path form: the owner's own files, immutable and append need CAP_LINUX_IMMUTABLE",
	"nice":          "x86's form of setpriority, which docker allows",
	"oldfstat":      "x86's old fstat, the same code as fstat",
	"oldlstat":      "x86's old lstat, the same code as lstat",
	"oldstat":       "x86's old stat, the same code as stat",
	"olduname":      "x86's old uname, the same code as uname",
	"oldolduname":   "x86's oldest uname, the same code as uname",
	"readdir":       "x86's old getdents, one entry at a time",
	"sigaction":     "x86's pre-rt_ signal calls, the same code as the rt_ forms docker allows",
	"signal":        "x86's pre-rt_ signal calls, the same code as the rt_ forms docker allows",
	"sigpending":    "x86's pre-rt_ signal calls, the same code as the rt_ forms docker allows",
	"sigsuspend":    "x86's pre-rt_ signal calls, the same code as the rt_ forms docker allows",
	"sethostname":   "the UTS namespace is the sandbox's own, and it needs CAP_SYS_ADMIN there, which the member lacks",
	"setdomainname": "the UTS namespace is the sandbox's own, and it needs CAP_SYS_ADMIN there, which the member lacks",
	"uprobe":        "newer than the profile; callable only from a uprobe's trampoline (SIGILL otherwise)",
	"vhangup":       "needs CAP_SYS_TTY_CONFIG, which the member lacks; acts only on its own controlling terminal",
}

func TestNativeRefusesWhatDockerRefuses(t *testing.T) {
	docker := defaultProfile()
	allowed := seccomp.Allowed()
	for _, n := range allowed {
		if verdict(t, docker, n) == "allow" {
			continue
		}
		if _, ok := keptAgainstDocker[n]; !ok {
			t.Errorf("%s: docker's default refuses it and acbox allows it; refuse it in coordinator/seccomp "+
				"or add it to keptAgainstDocker with the reason", n)
		}
	}
	for n := range keptAgainstDocker {
		if !slices.Contains(allowed, n) {
			t.Errorf("%s is in keptAgainstDocker but acbox does not allow it", n)
		} else if verdict(t, docker, n) == "allow" {
			t.Errorf("%s is in keptAgainstDocker but docker's default allows it", n)
		}
	}
}
