package probe

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// procSysMountProbe: /proc/sys is on a read-only mount, by every path the
// member has to it, so a write to a sysctl fails at the mount whatever
// Landlock does. A root caller's member is host root to a sysctl's file
// mode, and most handlers (core_pattern, modprobe) check nothing more.
// Nothing is written: the opens are O_WRONLY and closed at once, and the
// file is the sandbox's own UTS namespace's hostname.
func procSysMountProbe() Probe {
	return Probe{ID: "fs.proc-sys-ro-mount", Category: Filesystem, Source: "reviewer's finding 2026-12-02; runc/Docker read-only paths",
		Expect: "/proc/sys is on a read-only mount, also by /proc/self/root and /proc/thread-self/root, and opening a sysctl for writing fails",
		Run:    procSysMount}
}

// procSysPaths are the ways to /proc/sys a member has without a mount of
// its own (which seccomp and the missing capabilities refuse).
var procSysPaths = []string{"/proc/sys", "/proc/sys/kernel", "/proc/sys/user", "/proc/sys/net/ipv4",
	"/proc/self/root/proc/sys/kernel", "/proc/thread-self/root/proc/sys/kernel"}

func procSysMount(*Env) Outcome {
	var writable, checked []string
	for _, p := range procSysPaths {
		var fs unix.Statfs_t
		if err := unix.Statfs(p, &fs); err != nil {
			continue // absent on this kernel or in this view
		}
		checked = append(checked, p)
		if fs.Flags&unix.ST_RDONLY == 0 {
			writable = append(writable, p)
		}
	}
	if len(checked) == 0 {
		return failf("/proc/sys cannot be examined (statfs failed on every path)")
	}
	if len(writable) > 0 {
		return failf("on a writable mount: %s", strings.Join(writable, ", "))
	}
	return worst(passf("%d paths on read-only mounts", len(checked)),
		expectDenied("open /proc/sys/kernel/hostname O_WRONLY", openClose("/proc/sys/kernel/hostname", os.O_WRONLY)))
}
