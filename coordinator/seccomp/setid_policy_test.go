//go:build linux && amd64

package seccomp

import (
	"slices"
	"testing"
)

// The set-id, capability and clock rules in the interpreter, on both
// architectures: what must stay allowed as much as what is refused. This is
// the i386 proof on hosts whose kernel runs no 32-bit code.
func TestSetidFilter(t *testing.T) {
	const (
		rw, cloexec  = 0o2, 0o2000000
		otmpfile     = oTmpfile | 0o200000 // O_TMPFILE as callers pass it, with O_DIRECTORY
		ifreg, ififo = 0o100000, 0o10000
		high         = 0xdead_0000_0000 // junk above the bits the kernel reads
		atFdcwd      = 0xffffff9c
	)
	cases := []struct {
		name, syscall string
		args          []uint64
		want          string
	}{
		{"chmod 0755", "chmod", []uint64{0, 0o755}, allow},
		{"chmod sticky", "chmod", []uint64{0, 0o1777}, allow},
		{"chmod 4755", "chmod", []uint64{0, 0o4755}, "EPERM"},
		{"chmod 2755", "chmod", []uint64{0, 0o2755}, "EPERM"},
		{"chmod 2644 (no group exec)", "chmod", []uint64{0, 0o2644}, "EPERM"},
		{"chmod 6755", "chmod", []uint64{0, 0o6755}, "EPERM"},
		{"chmod 4755 high junk", "chmod", []uint64{0, high | 0o4755}, "EPERM"},
		{"fchmod 0600", "fchmod", []uint64{3, 0o600}, allow},
		{"fchmod 4755", "fchmod", []uint64{3, 0o4755}, "EPERM"},
		{"fchmodat 0644", "fchmodat", []uint64{atFdcwd, 0, 0o644}, allow},
		{"fchmodat 2755", "fchmodat", []uint64{atFdcwd, 0, 0o2755}, "EPERM"},
		{"fchmodat2 0644", "fchmodat2", []uint64{atFdcwd, 0, 0o644, 0x100}, allow},
		{"fchmodat2 4755", "fchmodat2", []uint64{atFdcwd, 0, 0o4755, 0x100}, "EPERM"},
		{"open read, mode junk", "open", []uint64{0, 0, 0o4755}, allow},
		{"open creat 0644", "open", []uint64{0, oCreat | rw | cloexec, 0o644}, allow},
		{"open creat 4755", "open", []uint64{0, oCreat | rw, 0o4755}, "EPERM"},
		{"open tmpfile 2755", "open", []uint64{0, otmpfile | rw, 0o2755}, "EPERM"},
		{"openat read", "openat", []uint64{atFdcwd, 0, cloexec, 0}, allow},
		{"openat creat 0666", "openat", []uint64{atFdcwd, 0, oCreat | rw, 0o666}, allow},
		{"openat creat 2755", "openat", []uint64{atFdcwd, 0, oCreat | rw, 0o2755}, "EPERM"},
		{"openat tmpfile 0600", "openat", []uint64{atFdcwd, 0, otmpfile | rw, 0o600}, allow},
		{"openat tmpfile 4700", "openat", []uint64{atFdcwd, 0, otmpfile | rw, 0o4700}, "EPERM"},
		{"openat creat 4755 high junk", "openat", []uint64{atFdcwd, 0, high | oCreat, high | 0o4755}, "EPERM"},
		{"creat 0644", "creat", []uint64{0, 0o644}, allow},
		{"creat 4755", "creat", []uint64{0, 0o4755}, "EPERM"},
		{"mknod fifo", "mknod", []uint64{0, ififo | 0o644, 0}, allow},
		{"mknod regular 4755", "mknod", []uint64{0, ifreg | 0o4755, 0}, "EPERM"},
		{"mknodat regular 2755", "mknodat", []uint64{atFdcwd, 0, ifreg | 0o2755, 0}, "EPERM"},
		{"mkdir 0755", "mkdir", []uint64{0, 0o755}, allow},
		{"mkdir 2775", "mkdir", []uint64{0, 0o2775}, "EPERM"},
		{"mkdirat 4755", "mkdirat", []uint64{atFdcwd, 0, 0o4755}, "EPERM"},
		{"openat2", "openat2", []uint64{atFdcwd, 0, 0, 24}, "ENOSYS"},
		{"setxattr 5 bytes", "setxattr", []uint64{0, 0, 0, 5, 0}, allow},
		{"setxattr 20 bytes", "setxattr", []uint64{0, 0, 0, capsSize2, 0}, "EPERM"},
		{"setxattr 21 bytes", "setxattr", []uint64{0, 0, 0, 21, 0}, allow},
		{"lsetxattr 24 bytes", "lsetxattr", []uint64{0, 0, 0, capsSize3, 0}, "EPERM"},
		{"fsetxattr 20 bytes", "fsetxattr", []uint64{3, 0, 0, capsSize2, 0}, "EPERM"},
		{"fsetxattr 0 bytes", "fsetxattr", []uint64{3, 0, 0, 0, 0}, allow},
		{"setxattr 20 bytes + 4 GiB", "setxattr", []uint64{0, 0, 0, 1<<32 | capsSize2, 0}, allow}, // E2BIG from the kernel
		{"setxattrat", "setxattrat", nil, "EPERM"},
		{"getxattr 20 bytes", "getxattr", []uint64{0, 0, 0, capsSize2}, allow},
		{"settimeofday", "settimeofday", nil, "EPERM"},
		{"clock_settime", "clock_settime", nil, "EPERM"},
		{"clock_adjtime", "clock_adjtime", nil, "EPERM"},
		{"adjtimex", "adjtimex", nil, "EPERM"},
		{"clock_gettime", "clock_gettime", nil, allow},
		{"gettimeofday", "gettimeofday", nil, allow},
	}
	prog := buildForTest(t).insns()
	for _, a := range testArches {
		for _, c := range cases {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				if a.name == ArchX86 && slices.ContainsFunc(c.args, above32) {
					t.Skip("x86 registers are 32 bits: the kernel never hands the filter high bits")
				}
				if got := eval(t, prog, a.name, c.syscall, c.args...); got != c.want {
					t.Errorf("%s(%#o): %s, want %s", c.syscall, c.args, got, c.want)
				}
			})
		}
	}
	for _, c := range []struct{ syscall, want string }{
		{"stime", "EPERM"}, {"clock_settime64", "EPERM"}, {"clock_adjtime64", "EPERM"},
	} {
		if got := eval(t, prog, ArchX86, c.syscall); got != c.want {
			t.Errorf("x86 %s: %s, want %s", c.syscall, got, c.want)
		}
	}
}
