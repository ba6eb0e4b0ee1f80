//go:build amd64

package seccomp

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The set-id, file-capability and clock rules on the real kernel, 64-bit
// calls (the i386 entry points are in probe.c and, on every host, in the
// interpreter tests of policy_linux_test.go). Each call is made on a file of
// its own in setidDir, which probeDir makes writable for nobody too, and is
// judged by its errno: unfiltered, the kernel lets a file's owner set
// S_ISUID and S_ISGID (OK), and the clock and capability calls get arguments
// the kernel rejects before its privilege check (EFAULT, EINVAL), so EPERM
// can only come from the filter.
const setidDir = "w"

var setidCases = []kernelCase{
	{"go/chmod-setuid", "EPERM", true},
	{"go/chmod-setgid", "EPERM", true},
	{"go/chmod-plain", "OK", false},
	{"go/fchmod-setuid", "EPERM", true},
	{"go/fchmodat-setgid", "EPERM", true},
	{"go/fchmodat2-setuid", "EPERM", true},
	{"go/open-creat-setuid", "EPERM", true},
	{"go/openat-creat-setgid", "EPERM", true},
	{"go/openat-creat-plain", "OK", false},
	{"go/openat-tmpfile-setuid", "EPERM", true},
	{"go/creat-setuid", "EPERM", true},
	{"go/mknod-setuid", "EPERM", true},
	{"go/mknodat-setgid", "EPERM", true},
	{"go/mkdir-setgid", "EPERM", true},
	{"go/mkdirat-setuid", "EPERM", true},
	{"go/openat2", "ENOSYS", true},
	{"go/setxattr-caps-size", "EPERM", true}, // unfiltered: EINVAL, not a caps header
	{"go/lsetxattr-caps-v3-size", "EPERM", true},
	{"go/lsetxattr-other-size", "EFAULT", false},
	{"go/setxattrat", "EPERM", true}, // unfiltered: EFAULT
	{"go/settimeofday", "EPERM", true},
	{"go/clock_settime", "EPERM", true},
	{"go/clock_adjtime", "EPERM", true},
	{"go/adjtimex", "EPERM", true},
	{"go/clock_gettime", "OK", false},
}

// setidCases32 are the same refusals through the i386 entry points, made
// by testdata/probe.c: from the 32-bit build (its glibc's own calls and
// int 0x80) and from the 64-bit one (int 0x80, the classic way around a
// filter that knows only x86_64 numbers). Unfiltered, the owner's chmod
// succeeds and the others fail with EINVAL or EFAULT, never EPERM.
var setidCases32 = []struct{ name, want string }{
	{"chmod-setuid", "EPERM"},
	{"int80-chmod-setuid", "EPERM"},
	{"int80-open-creat-setgid", "EPERM"},
	{"int80-mknod-setuid", "EPERM"},
	{"int80-fchmodat2-setgid", "EPERM"},
	{"int80-setxattr-caps", "EPERM"},
	{"int80-setxattrat", "EPERM"},
	{"int80-openat2", "ENOSYS"},
	{"int80-settimeofday", "EPERM"},
	{"int80-clock-settime64", "EPERM"},
}

// kernelSetidCases is setidCases and setidCases32 for both probe builds.
func kernelSetidCases() []kernelCase {
	out := slices.Clone(setidCases)
	for _, bits := range []string{"32", "64"} {
		for _, c := range setidCases32 {
			out = append(out, kernelCase{"probe" + bits + "/" + c.name, c.want, true})
		}
	}
	return out
}

var setidSeq atomic.Int64

// fresh creates a new empty file (mode 0644) in setidDir and returns its
// name as a C string and as a Go string.
func fresh() (uintptr, string) {
	name := fmt.Sprintf("%s/f%d-%d", setidDir, os.Getpid(), setidSeq.Add(1))
	os.Remove(name)
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		panic(err)
	}
	return cstring(name), name
}

// unused returns a name in setidDir that does not exist.
func unused() uintptr {
	return cstring(fmt.Sprintf("%s/n%d-%d", setidDir, os.Getpid(), setidSeq.Add(1)))
}

func cstring(s string) uintptr {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return uintptr(unsafe.Pointer(p))
}

// bad is an address that is never mapped: the kernel answers EFAULT.
const bad = 8

func setidProbes() probeSet {
	atFdcwd := uintptr(0xffffffffffffff9c) // AT_FDCWD as a register
	const suid, sgid = 0o4755, 0o2755
	onFile := func(nr uintptr, pre []uintptr, post ...uintptr) func() string {
		return func() string {
			p, _ := fresh()
			return sys(nr, append(append(pre, p), post...)...)()
		}
	}
	onNew := func(nr uintptr, pre []uintptr, post ...uintptr) func() string {
		return func() string { return sys(nr, append(append(pre, unused()), post...)...)() }
	}
	closing := func(nr uintptr, args func() []uintptr) func() string {
		return func() string {
			a := args()
			r, _, e := unix.RawSyscall6(nr, a[0], a[1], a[2], a[3], 0, 0)
			if e == 0 {
				unix.Close(int(r))
			}
			return errnoName(e)
		}
	}
	caps := make([]byte, 24) // zero magic: not a valid header
	capName := cstring("security.capability")
	return probeSet{
		"go/chmod-setuid": onFile(unix.SYS_CHMOD, nil, suid),
		"go/chmod-setgid": onFile(unix.SYS_CHMOD, nil, sgid),
		"go/chmod-plain":  onFile(unix.SYS_CHMOD, nil, 0o755),
		"go/fchmod-setuid": func() string {
			_, name := fresh()
			fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return errnoName(errnoOf(err))
			}
			defer unix.Close(fd)
			return sys(unix.SYS_FCHMOD, uintptr(fd), suid)()
		},
		"go/fchmodat-setgid":       onFile(unix.SYS_FCHMODAT, []uintptr{atFdcwd}, sgid, 0),
		"go/fchmodat2-setuid":      onFile(unix.SYS_FCHMODAT2, []uintptr{atFdcwd}, suid, 0),
		"go/open-creat-setuid":     closing(unix.SYS_OPEN, func() []uintptr { return []uintptr{unused(), unix.O_CREAT | unix.O_WRONLY, suid, 0} }),
		"go/openat-creat-setgid":   closing(unix.SYS_OPENAT, func() []uintptr { return []uintptr{atFdcwd, unused(), unix.O_CREAT | unix.O_WRONLY, sgid} }),
		"go/openat-creat-plain":    closing(unix.SYS_OPENAT, func() []uintptr { return []uintptr{atFdcwd, unused(), unix.O_CREAT | unix.O_WRONLY, 0o644} }),
		"go/openat-tmpfile-setuid": closing(unix.SYS_OPENAT, func() []uintptr { return []uintptr{atFdcwd, cstring(setidDir), unix.O_TMPFILE | unix.O_WRONLY, suid} }),
		"go/creat-setuid":          closing(unix.SYS_CREAT, func() []uintptr { return []uintptr{unused(), suid, 0, 0} }),
		"go/mknod-setuid":          onNew(unix.SYS_MKNOD, nil, unix.S_IFREG|suid, 0),
		"go/mknodat-setgid":        onNew(unix.SYS_MKNODAT, []uintptr{atFdcwd}, unix.S_IFREG|sgid, 0),
		"go/mkdir-setgid":          onNew(unix.SYS_MKDIR, nil, sgid),
		"go/mkdirat-setuid":        onNew(unix.SYS_MKDIRAT, []uintptr{atFdcwd}, suid),
		"go/openat2": closing(unix.SYS_OPENAT2, func() []uintptr {
			how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC}
			return []uintptr{atFdcwd, cstring("."), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how)}
		}),
		"go/setxattr-caps-size":     onFile(unix.SYS_SETXATTR, nil, capName, uintptr(unsafe.Pointer(&caps[0])), capsSize2, 0),
		"go/lsetxattr-caps-v3-size": onFile(unix.SYS_LSETXATTR, nil, capName, uintptr(unsafe.Pointer(&caps[0])), capsSize3, 0),
		"go/lsetxattr-other-size":   onFile(unix.SYS_LSETXATTR, nil, cstring("user.acbox"), bad, 5, 0),
		"go/setxattrat":             onFile(463, []uintptr{atFdcwd}, 0, capName, bad, 32),
		"go/settimeofday":           sys(unix.SYS_SETTIMEOFDAY, bad, 0),
		"go/clock_settime":          sys(unix.SYS_CLOCK_SETTIME, unix.CLOCK_REALTIME, bad),
		"go/clock_adjtime":          sys(unix.SYS_CLOCK_ADJTIME, unix.CLOCK_REALTIME, bad),
		"go/adjtimex":               sys(unix.SYS_ADJTIMEX, bad),
		"go/clock_gettime":          sys(unix.SYS_CLOCK_GETTIME, unix.CLOCK_REALTIME, uintptr(unsafe.Pointer(new(unix.Timespec)))),
	}
}
