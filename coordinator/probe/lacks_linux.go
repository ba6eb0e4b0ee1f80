package probe

import (
	"os"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// A probe that expects a call to be refused proves nothing where the
// kernel lacks the call altogether: the refusal would be the same without
// any sandbox. The runner therefore asks the kernel, outside the sandbox
// and with arguments that can only fail, whether each such feature exists
// (ENOSYS means it does not), and passes the missing ones in; a probe that
// Needs one of them reports skip without running. No check creates
// anything, loads a module or changes host state.

// featureChecks maps a feature name to its check; true: present.
var featureChecks = map[string]func() bool{
	"clone3":            func() bool { return sysExists(unix.SYS_CLONE3, 0, 0) },
	"userfaultfd":       func() bool { return sysExists(unix.SYS_USERFAULTFD, ^uintptr(0)) },
	"io_uring":          ioUringPresent,
	"bpf":               func() bool { return sysExists(unix.SYS_BPF, ^uintptr(0), 0, 0) },
	"perf_event_open":   func() bool { return sysExists(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), ^uintptr(0)) },
	"pidfd_getfd":       func() bool { return sysExists(unix.SYS_PIDFD_GETFD, ^uintptr(0), ^uintptr(0), ^uintptr(0)) },
	"open_by_handle_at": func() bool { return sysExists(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(0), 0, ^uintptr(0)) },
	"mptcp":             mptcpPresent,
	"open_tree_attr":    func() bool { return sysExists(sysOpenTreeAttr, ^uintptr(0), 0, ^uintptr(0), 0, 0) },
	"statmount":         func() bool { return sysExists(sysStatmount, 0, 0, 0, ^uintptr(0)) },
}

// sysExists makes a call with arguments it must reject and reports
// whether the kernel knows the call.
func sysExists(trap uintptr, a ...uintptr) bool {
	var args [6]uintptr
	copy(args[:], a)
	r, _, e := unix.Syscall6(trap, args[0], args[1], args[2], args[3], args[4], args[5])
	if e == 0 && int(r) >= 0 {
		unix.Close(int(r)) // cannot happen with these arguments; do not leak it if it does
	}
	return e != unix.ENOSYS
}

// ioUringPresent: the call exists and is not disabled for everyone
// (kernel.io_uring_disabled=2, Linux 6.6+).
func ioUringPresent() bool {
	if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && strings.TrimSpace(string(b)) == "2" {
		return false
	}
	return sysExists(unix.SYS_IO_URING_SETUP, 0, 0)
}

// mptcpPresent: built in and enabled (net.mptcp.enabled, read in this
// process's network namespace; a sandbox gets a new one with the default).
func mptcpPresent() bool {
	b, err := os.ReadFile("/proc/sys/net/mptcp/enabled")
	return err == nil && strings.TrimSpace(string(b)) == "1"
}

// KernelLacks lists the features this kernel does not offer, checked in
// the calling process (the runner, outside every sandbox).
func KernelLacks() []string {
	var out []string
	for name, present := range featureChecks {
		if !present() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
