package probe

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const dockerSeccomp = "Docker default seccomp profile"

// sys is a syscall probe: fn makes the call with arguments that do nothing
// harmful if it is allowed, and the probe passes on one of want.
func sys(id, expect, source string, fn func(*Env) error, want ...unix.Errno) Probe {
	return Probe{ID: id, Category: Kernel, Expect: expect, Source: source,
		Run: func(e *Env) Outcome { return expectErrno(id[len("kernel."):], fn(e), want...) }}
}

// needs marks p as meaningful only where the kernel has feature.
func needs(feature string, p Probe) Probe {
	p.Needs = feature
	return p
}

func raw(trap uintptr, a ...uintptr) error {
	var args [6]uintptr
	copy(args[:], a)
	r, _, e := unix.Syscall6(trap, args[0], args[1], args[2], args[3], args[4], args[5])
	if e != 0 {
		return e
	}
	if trap == unix.SYS_USERFAULTFD || trap == unix.SYS_FSOPEN || trap == unix.SYS_OPEN_TREE || trap == sysOpenTreeAttr {
		unix.Close(int(r)) // a descriptor: the call was allowed
	}
	return nil
}

func cstr(s string) uintptr {
	p, _ := unix.BytePtrFromString(s)
	return uintptr(unsafe.Pointer(p))
}

func kernelProbes() []Probe {
	eperm := unix.EPERM
	return []Probe{
		sys("kernel.unshare", "unshare(CLONE_NEWUSER) fails with EPERM", "bubblewrap --disable-userns; Codex",
			func(*Env) (err error) { lockThread(func() { err = unix.Unshare(unix.CLONE_NEWUSER) }); return }, eperm),
		{ID: "kernel.clone-namespaces", Category: Kernel, Source: "docs/kernel-facts.md 6; CVE-2022-0185 (needs a user namespace)",
			Expect: "starting a child in any new namespace (user, mount, pid, net, ipc, uts, cgroup) fails with EPERM", Run: cloneNamespaces},
		sys("kernel.setns", "setns into a namespace fails with EPERM", dockerSeccomp, setnsProbe, eperm),
		sys("kernel.mount", "mount(tmpfs) in the write grant fails with EPERM", "bubblewrap tests", mountProbe, eperm),
		needs("clone3", sys("kernel.clone3", "clone3 fails with ENOSYS (so callers fall back to clone, whose flags seccomp sees)", "docs/kernel-facts.md 6",
			func(*Env) error { return raw(unix.SYS_CLONE3, 0, 0) }, unix.ENOSYS, eperm)),
		sys("kernel.keyctl", "keyctl on the session keyring fails with EPERM", dockerSeccomp+"; CVE-2016-0728",
			func(*Env) error { return raw(unix.SYS_KEYCTL, 0, ^uintptr(2), 0) }, eperm),
		sys("kernel.add-key", "add_key fails with EPERM", dockerSeccomp,
			func(*Env) error { return raw(unix.SYS_ADD_KEY, cstr("user"), cstr("acbox"), 0, 0, ^uintptr(2)) }, eperm),
		needs("bpf", sys("kernel.bpf", "bpf() fails with EPERM before reaching the kernel", dockerSeccomp+"; CVE-2021-3490",
			func(*Env) error { return raw(unix.SYS_BPF, 0, 0, 0) }, eperm)),
		needs("perf_event_open", sys("kernel.perf-event-open", "perf_event_open fails with EPERM", dockerSeccomp+"; CVE-2023-2235",
			func(*Env) error { return raw(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0) }, eperm)),
		needs("userfaultfd", sys("kernel.userfaultfd", "userfaultfd fails with EPERM", dockerSeccomp+"; CVE-2016-5195 exploits",
			func(*Env) error { return raw(unix.SYS_USERFAULTFD, unix.O_CLOEXEC) }, eperm)),
		needs("io_uring", sys("kernel.io-uring-setup", "io_uring_setup fails with EPERM", "Google kCTF io_uring report; CVE-2023-2598",
			func(*Env) error { return raw(unix.SYS_IO_URING_SETUP, 1, 0) }, eperm)),
		needs("open_by_handle_at", sys("kernel.open-by-handle-at", "open_by_handle_at fails with EPERM", "Docker 'shocker' breakout (2014)",
			func(*Env) error { return raw(unix.SYS_OPEN_BY_HANDLE_AT, atFdcwd, 0, 0) }, eperm)),
		sys("kernel.name-to-handle-at", "name_to_handle_at fails with EPERM", "Docker 'shocker' breakout",
			func(*Env) error { return raw(unix.SYS_NAME_TO_HANDLE_AT, atFdcwd, cstr("/"), 0, 0, 0) }, eperm),
		sys("kernel.kexec-load", "kexec_load fails with EPERM", dockerSeccomp,
			func(*Env) error { return raw(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0) }, eperm),
		sys("kernel.init-module", "init_module fails with EPERM", dockerSeccomp,
			func(*Env) error { return raw(unix.SYS_INIT_MODULE, 0, 0, cstr("")) }, eperm),
		sys("kernel.iopl", "iopl(3) fails with EPERM", dockerSeccomp,
			func(*Env) error { return raw(unix.SYS_IOPL, 3) }, eperm),
		sys("kernel.acct", "acct fails with EPERM", dockerSeccomp,
			func(*Env) error { return raw(unix.SYS_ACCT, 0) }, eperm),
		sys("kernel.modify-ldt", "modify_ldt (reading the LDT) fails with EPERM", "systemd @cpu-emulation; CVE-2015-5157",
			func(*Env) error {
				return raw(unix.SYS_MODIFY_LDT, 0, uintptr(unsafe.Pointer(&ldtBuf)), uintptr(len(ldtBuf)))
			}, eperm),
		sys("kernel.ustat", "ustat of the root file system's device fails with ENOSYS (it answers for any mount, past the namespace)",
			dockerSeccomp+"; systemd @obsolete", ustatProbe, unix.ENOSYS),
		sys("kernel.syslog", "syslog(READ_ALL) fails with EPERM: the kernel log is unreadable", "kernel.dmesg_restrict; Docker seccomp",
			syslogProbe, eperm),
		sys("kernel.personality", "personality(ADDR_NO_RANDOMIZE) fails with EPERM", dockerSeccomp,
			personalityProbe, eperm),
		sys("kernel.chroot", "chroot fails with EPERM", design,
			func(*Env) error { return unix.Chroot("/tmp") }, eperm),
		sys("kernel.pivot-root", "pivot_root fails with EPERM", design,
			func(*Env) error { return unix.PivotRoot("/tmp", "/tmp") }, eperm),
		sys("kernel.fsopen", "fsopen(tmpfs) fails with EPERM", design,
			func(*Env) error { return raw(unix.SYS_FSOPEN, cstr("tmpfs"), 0) }, eperm),
		sys("kernel.open-tree", "open_tree(/, OPEN_TREE_CLONE) fails with EPERM", "docs/kernel-facts.md 2",
			func(*Env) error { return raw(unix.SYS_OPEN_TREE, atFdcwd, cstr("/"), unix.OPEN_TREE_CLONE) }, eperm),
		// Flags 0: the kernel itself allows this without privilege and returns
		// a descriptor, so only the filter refuses it (attack repro-6).
		// Under docker, runc answers ENOSYS past the syscalls its libseccomp
		// knows; where the kernel lacks the call the probe skips.
		needs("open_tree_attr", sys("kernel.open-tree-attr", "open_tree_attr(/, no flags) fails with EPERM, as open_tree does (ENOSYS under docker's runtime)", "attack repro-6 (2026-12-01)",
			func(*Env) error { return raw(sysOpenTreeAttr, atFdcwd, cstr("/"), 0, 0, 0) }, eperm, unix.ENOSYS)),
		needs("statmount", sys("kernel.mount-by-id", "statmount and listmount fail with ENOSYS (callers fall back to /proc/self/mountinfo)", "attack repro-6 (2026-12-01)",
			mountByID, unix.ENOSYS, eperm)),
		{ID: "kernel.landlock-domain", Category: Kernel, Source: "docs/kernel-facts.md 5",
			Expect: "Landlock is in force: writing /proc/self/comm (a read-write proc mount, covered only by a read-only rule) fails with EACCES", Run: landlockDomain},
	}
}

// ldtBuf receives what modify_ldt reads if it is allowed (an empty LDT
// reads nothing).
var ldtBuf [16]byte

// ustatProbe asks ustat for the file system of the sandbox's root, which
// the kernel answers, unfiltered, for any mounted file system by device
// number.
func ustatProbe(*Env) error {
	var st unix.Stat_t
	if err := unix.Stat("/", &st); err != nil {
		return err
	}
	var buf [64]byte
	return raw(unix.SYS_USTAT, uintptr(uint32(st.Dev)), uintptr(unsafe.Pointer(&buf)))
}

// Syscalls newer than x/sys/unix's table: the same number on x86_64 and x86.
const (
	sysStatmount    = 457 // Linux 6.8
	sysListmount    = 458 // Linux 6.8
	sysOpenTreeAttr = 467 // Linux 6.15
)

// mountByID calls statmount and listmount with null buffers: the kernel
// answers EFAULT or EINVAL, only a filter ENOSYS (native) or EPERM (a
// docker runtime whose libseccomp cannot name them meets the profile's
// default). It returns the first answer that is neither.
func mountByID(*Env) error {
	var last error
	for _, c := range []struct {
		name string
		nr   uintptr
	}{{"statmount", sysStatmount}, {"listmount", sysListmount}} {
		err := raw(c.nr, 0, 0, 0, 0)
		if err == nil {
			return fmt.Errorf("%s succeeded", c.name)
		}
		if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		last = err
	}
	return last
}

func setnsProbe(*Env) error {
	fd, err := unix.Open("/proc/self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	lockThread(func() { err = unix.Setns(fd, unix.CLONE_NEWNET) })
	return err
}

func mountProbe(e *Env) error {
	dir := "/tmp"
	if e.Fixture != "" {
		dir = e.Fixture
	}
	dst := filepath.Join(dir, "mnt")
	os.Mkdir(dst, 0o755)
	err := unix.Mount("tmpfs", dst, "tmpfs", 0, "size=64k")
	if err == nil {
		unix.Unmount(dst, unix.MNT_DETACH)
	}
	return err
}

func syslogProbe(*Env) error {
	buf := make([]byte, 4096)
	_, err := unix.Klogctl(unix.SYSLOG_ACTION_READ_ALL, buf)
	return err
}

func personalityProbe(*Env) (err error) {
	lockThread(func() {
		old, _, _ := unix.Syscall(unix.SYS_PERSONALITY, 0xffffffff, 0, 0)
		_, _, e := unix.Syscall(unix.SYS_PERSONALITY, 0x0040000, 0, 0)
		if e != 0 {
			err = e
			return
		}
		unix.Syscall(unix.SYS_PERSONALITY, old, 0, 0)
	})
	return err
}

// cloneNamespaces starts a trivial child per namespace flag through Go's
// fork path (clone with the flag), as a program inside would.
func cloneNamespaces(*Env) Outcome {
	bin, err := exec.LookPath("true")
	if err != nil {
		return skipf("no `true` binary to start: %v", err)
	}
	flags := map[string]uintptr{"user": unix.CLONE_NEWUSER, "mnt": unix.CLONE_NEWNS, "pid": unix.CLONE_NEWPID,
		"net": unix.CLONE_NEWNET, "ipc": unix.CLONE_NEWIPC, "uts": unix.CLONE_NEWUTS, "cgroup": unix.CLONE_NEWCGROUP}
	var outs []Outcome
	for _, n := range []string{"user", "mnt", "pid", "net", "ipc", "uts", "cgroup"} {
		c := exec.Command(bin)
		c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags[n]}
		outs = append(outs, expectErrno("clone(CLONE_NEW"+n+")", c.Run(), unix.EPERM))
	}
	return worst(outs...)
}

func landlockDomain(*Env) Outcome {
	abi, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e == unix.ENOSYS || e == unix.EOPNOTSUPP {
		return skipf("Landlock is not available: %s", errnoName(e))
	}
	// The proc mount is read-write and the member owns /proc/self/comm, so
	// only Landlock (which covers /proc read-only) can refuse this write.
	err := os.WriteFile("/proc/self/comm", []byte("probe"), 0)
	o := expectErrno("write /proc/self/comm", err, unix.EACCES)
	o.Detail += " (Landlock ABI " + itoa(int(abi)) + ")"
	return o
}

// atFdcwd is AT_FDCWD as a syscall argument (a negative int).
var atFdcwd = func() uintptr { v := unix.AT_FDCWD; return uintptr(v) }()
