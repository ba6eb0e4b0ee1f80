package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The set-id probes try to leave in the write-granted fixture a file that
// the host would run with more privilege than its maker: setuid or setgid
// (through every call that sets a mode), or with file capabilities. Such a
// file is harmless inside (nosuid, no_new_privs) and outlives the sandbox:
// as root, `chmod 2755` on a copy of a program makes a setgid-root program
// for every user of the host. A probe passes only when the call failed with
// the seccomp policy's errno AND the file it aimed at carries no set-id bit.
//
// The clock probes pass a pointer the kernel cannot read, so that without
// the filter the kernel answers EFAULT before its privilege check and a
// probe that sees EPERM has seen the filter; nothing is ever set.
//
// These are the x86_64 calls. The i386 entry points are proved in
// coordinator/seccomp's kernel tests (a 32-bit probe built with gcc -m32, and
// int 0x80 from 64-bit code) and, on the embedded bytes, in its
// interpreter tests: a Go probe here would need its own 32-bit code path,
// and on kernels that run no 32-bit code (PVM guests: ENOEXEC for i386
// binaries, #GP for int 0x80) it could never be seen to work.

const (
	setuidMode = 0o4755
	setgidMode = 0o2755
	// badAddr is never mapped: a kernel that reads it answers EFAULT.
	badAddr    = 8
	capsV2Size = 20 // the value sizes security.capability accepts
	capsV3Size = 24
	// sysSetxattrat is setxattrat's number on x86_64 (Linux 6.13).
	sysSetxattrat = 463
)

var setidSeq atomic.Int64

// setidTarget names a fresh path in the fixture; with create, an empty
// 0644 file is made there first.
func setidTarget(e *Env, create bool) (string, error) {
	if e.Fixture == "" {
		return "", fmt.Errorf("no fixture")
	}
	p := filepath.Join(e.Fixture, fmt.Sprintf("setid-%d-%d", os.Getpid(), setidSeq.Add(1)))
	if create {
		return p, os.WriteFile(p, nil, 0o644)
	}
	return p, nil
}

// setidCall is one attempt: make the call on path (fresh, created first
// when the call needs a file), return its error.
type setidCall struct {
	id, expect string
	create     bool
	call       func(path string) error
	want       []unix.Errno
}

func setidProbe(c setidCall) Probe {
	return Probe{ID: "kernel.setid-" + c.id, Category: Kernel, Source: "systemd RestrictSUIDSGID; acbox issue 11",
		Expect: c.expect, Run: func(e *Env) Outcome {
			path, err := setidTarget(e, c.create)
			if err != nil {
				return skipf("the runner named no writable fixture: %v", err)
			}
			defer os.Remove(path)
			o := expectErrno(c.id, c.call(path), c.want...)
			if bits := setidBits(path); bits != "" {
				return failf("%s: the file in the write grant is %s; %s", c.id, bits, o.Detail)
			}
			return o
		}}
}

// setidBits describes the set-id bits of path, "" when it has none or is
// gone. Lstat: a link the call might have made is not followed.
func setidBits(path string) string {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&(unix.S_ISUID|unix.S_ISGID) == 0 {
		return ""
	}
	return fmt.Sprintf("mode %#o", st.Mode&0o7777)
}

func sysErr(_, _ uintptr, e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

func sysPath(nr uintptr, pre []uintptr, post ...uintptr) func(string) error {
	return func(path string) error {
		a := append(append(append([]uintptr{}, pre...), cstr(path)), post...)
		a = append(a, 0, 0, 0, 0, 0, 0)
		return sysErr(unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]))
	}
}

// setidOpen makes an open-like call and closes what it returns.
func setidOpen(nr uintptr, args func(path string) []uintptr) func(string) error {
	return func(path string) error {
		a := append(args(path), 0, 0, 0, 0)
		r, _, e := unix.Syscall6(nr, a[0], a[1], a[2], a[3], 0, 0)
		if e == 0 {
			unix.Close(int(r))
			return nil
		}
		return e
	}
}

func fchmodProbe(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the target: %w", err)
	}
	defer unix.Close(fd)
	return unix.Fchmod(fd, setuidMode)
}

// tmpfileProbe makes an unnamed file with the setuid bit and, if that
// worked, names it in the fixture (what a member would do next).
func tmpfileProbe(path string) error {
	fd, err := unix.Open(filepath.Dir(path), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, setuidMode)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	return nil
}

func setidProbes() []Probe {
	eperm, enosys := unix.EPERM, unix.ENOSYS
	at := uintptr(atFdcwd)
	caps := make([]byte, capsV3Size) // magic 0: not a valid header, so the kernel alone says EINVAL
	capVal := uintptr(unsafe.Pointer(&caps[0]))
	calls := []setidCall{
		{"chmod-setuid", "chmod 4755 on a file in the write grant fails with EPERM; the file stays without set-id bits", true,
			sysPath(unix.SYS_CHMOD, nil, setuidMode), []unix.Errno{eperm}},
		{"chmod-setgid", "chmod 2755 (the setgid-root program of issue 11) fails with EPERM", true,
			sysPath(unix.SYS_CHMOD, nil, setgidMode), []unix.Errno{eperm}},
		{"fchmod", "fchmod 4755 on an open file fails with EPERM", true, fchmodProbe, []unix.Errno{eperm}},
		{"fchmodat", "fchmodat 2755 fails with EPERM", true,
			sysPath(unix.SYS_FCHMODAT, []uintptr{at}, setgidMode, 0), []unix.Errno{eperm}},
		{"fchmodat2", "fchmodat2 4755 fails with EPERM (ENOSYS where the runtime does not know the call)", true,
			sysPath(unix.SYS_FCHMODAT2, []uintptr{at}, setuidMode, 0), []unix.Errno{eperm, enosys}},
		{"open-creat", "open(O_CREAT, 4755) fails with EPERM", false,
			setidOpen(unix.SYS_OPEN, func(p string) []uintptr { return []uintptr{cstr(p), unix.O_CREAT | unix.O_WRONLY, setuidMode} }), []unix.Errno{eperm}},
		{"openat-creat", "openat(O_CREAT, 2755) fails with EPERM", false,
			setidOpen(unix.SYS_OPENAT, func(p string) []uintptr { return []uintptr{at, cstr(p), unix.O_CREAT | unix.O_WRONLY, setgidMode} }), []unix.Errno{eperm}},
		{"openat-tmpfile", "openat(O_TMPFILE, 4755) in the write grant fails with EPERM", false, tmpfileProbe, []unix.Errno{eperm}},
		{"creat", "creat(4755) fails with EPERM", false,
			setidOpen(unix.SYS_CREAT, func(p string) []uintptr { return []uintptr{cstr(p), setuidMode} }), []unix.Errno{eperm}},
		{"mknod", "mknod(S_IFREG|4755) fails with EPERM", false,
			sysPath(unix.SYS_MKNOD, nil, unix.S_IFREG|setuidMode, 0), []unix.Errno{eperm}},
		{"mknodat", "mknodat(S_IFREG|2755) fails with EPERM", false,
			sysPath(unix.SYS_MKNODAT, []uintptr{at}, unix.S_IFREG|setgidMode, 0), []unix.Errno{eperm}},
		{"mkdir", "mkdir(2775) fails with EPERM", false,
			sysPath(unix.SYS_MKDIR, nil, 0o2775), []unix.Errno{eperm}},
		{"mkdirat", "mkdirat(4755) fails with EPERM", false,
			sysPath(unix.SYS_MKDIRAT, []uintptr{at}, setuidMode), []unix.Errno{eperm}},
		{"openat2", "openat2 fails with ENOSYS (its mode is out of seccomp's reach; callers fall back to openat)", false,
			setidOpen(unix.SYS_OPENAT2, func(p string) []uintptr {
				how := &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY | unix.O_CLOEXEC, Mode: setuidMode}
				return []uintptr{at, cstr(p), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how)}
			}), []unix.Errno{enosys}},
		{"setxattr-caps", "setxattr(security.capability, 20 bytes) fails with EPERM from the filter (the kernel alone says EINVAL for this value)", true,
			sysPath(unix.SYS_SETXATTR, nil, cstr("security.capability"), capVal, capsV2Size, 0), []unix.Errno{eperm}},
		{"lsetxattr-caps", "lsetxattr(security.capability, 24 bytes) fails with EPERM", true,
			sysPath(unix.SYS_LSETXATTR, nil, cstr("security.capability"), capVal, capsV3Size, 0), []unix.Errno{eperm}},
		{"setxattrat", "setxattrat fails with EPERM (ENOSYS where the runtime does not know the call)", true,
			sysPath(sysSetxattrat, []uintptr{at}, 0, cstr("security.capability"), badAddr, 32), []unix.Errno{eperm, enosys}},
	}
	var out []Probe
	for _, c := range calls {
		out = append(out, setidProbe(c))
	}
	return append(out, clockProbes()...)
}

// clockProbes: every clock setter fails with EPERM. Without the filter the
// unreadable pointer gets EFAULT first, so EPERM is the filter's answer.
func clockProbes() []Probe {
	clock := func(id, expect string, nr uintptr, a ...uintptr) Probe {
		return sys("kernel.clock-"+id, expect, "acbox issue 11; Docker seccomp (CAP_SYS_TIME rules)",
			func(*Env) error {
				a := append(a, 0, 0, 0)
				return sysErr(unix.Syscall(nr, a[0], a[1], a[2]))
			}, unix.EPERM)
	}
	return []Probe{
		clock("settimeofday", "settimeofday fails with EPERM from the filter", unix.SYS_SETTIMEOFDAY, badAddr, 0),
		clock("settime", "clock_settime(CLOCK_REALTIME) fails with EPERM from the filter", unix.SYS_CLOCK_SETTIME, unix.CLOCK_REALTIME, badAddr),
		clock("adjtime", "clock_adjtime(CLOCK_REALTIME) fails with EPERM from the filter", unix.SYS_CLOCK_ADJTIME, unix.CLOCK_REALTIME, badAddr),
		clock("adjtimex", "adjtimex fails with EPERM from the filter", unix.SYS_ADJTIMEX, badAddr),
	}
}
