//go:build amd64

package seccomp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// surfaceCases are the kernel tests of surface.go's rules from Go (x86_64
// numbers). Each call succeeds or fails differently without the filter on
// the test hosts; where a kernel may lack it (no NUMA, secretmem off), the
// case does not require a difference.
var surfaceCases = []kernelCase{
	{"go/modify_ldt-read", "EPERM", true}, // unfiltered: 0, the bytes of an empty LDT
	{"go/arch_prctl-get-fs", "OK", false}, // the thread pointer, what libcs use instead
	{"go/ustat-root", "ENOSYS", true},     // unfiltered: the root file system's counts
	{"go/sysfs-count", "ENOSYS", true},
	{"go/get_mempolicy", "ENOSYS", false},
	{"go/mbind-nothing", "ENOSYS", false},
	{"go/memfd_secret", "ENOSYS", false},
	{"go/memfd_create", "OK", false},
	{"go/fanotify_init", "EPERM", false}, // unprivileged fanotify is 5.13's
	{"go/inotify_init1", "OK", false},
	{"go/lsm_get_self_attr", "ENOSYS", true}, // unfiltered: EOPNOTSUPP or E2BIG
	{"go/lsm_list_modules", "ENOSYS", true},
}

// surfaceCases32 are the calls of testdata/probe.c for the same rules on
// the i386 table, by both probe builds; unfiltered, vm86 and vm86old say
// ENOSYS on a 64-bit kernel, the rest succeed.
var surfaceCases32 = []kernelCase{
	{"modify-ldt", "EPERM", true}, // the libc's syscall(): x86_64's table or i386's
	{"int80-modify-ldt", "EPERM", true},
	{"int80-vm86old", "EPERM", true},
	{"int80-vm86", "EPERM", true},
	{"int80-sgetmask", "ENOSYS", true},
	{"int80-ustat-root", "ENOSYS", true},
	{"int80-get-mempolicy", "ENOSYS", false},
}

var (
	ldtBuf   [16]byte
	fsBase   uint64
	lsmSize  uint32
	ustatBuf [64]byte
)

const archGetFS = 0x1003

func surfaceProbes() probeSet {
	var rootDev uint64
	var st unix.Stat_t
	if unix.Stat("/", &st) == nil {
		rootDev = st.Dev
	}
	size := uintptr(unsafe.Pointer(&lsmSize))
	none, _ := unix.BytePtrFromString("acbox-seccomp-test")
	return probeSet{
		"go/modify_ldt-read":   sys(unix.SYS_MODIFY_LDT, 0, uintptr(unsafe.Pointer(&ldtBuf)), uintptr(len(ldtBuf))),
		"go/arch_prctl-get-fs": sys(unix.SYS_ARCH_PRCTL, archGetFS, uintptr(unsafe.Pointer(&fsBase))),
		"go/ustat-root":        sys(unix.SYS_USTAT, uintptr(uint32(rootDev)), uintptr(unsafe.Pointer(&ustatBuf))),
		"go/sysfs-count":       sys(unix.SYS_SYSFS, 3),
		"go/get_mempolicy":     sys(unix.SYS_GET_MEMPOLICY, 0, 0, 0, 0, 0),
		"go/mbind-nothing":     sys(unix.SYS_MBIND, 0, 0, 0, 0, 0, 0),
		"go/memfd_secret":      sysFD(447, 0),
		"go/memfd_create":      sysFD(unix.SYS_MEMFD_CREATE, uintptr(unsafe.Pointer(none)), unix.MFD_CLOEXEC),
		"go/fanotify_init":     sysFD(unix.SYS_FANOTIFY_INIT, unix.FAN_CLASS_NOTIF|unix.FAN_REPORT_FID|unix.FAN_CLOEXEC, unix.O_RDONLY),
		"go/inotify_init1":     sysFD(unix.SYS_INOTIFY_INIT1, unix.IN_CLOEXEC),
		"go/lsm_get_self_attr": sys(459, 100 /* LSM_ATTR_CURRENT */, 0, size, 0),
		"go/lsm_list_modules":  sys(461, 0, size, 0),
	}
}

// sysFD is sys for a call that returns a descriptor, which it closes.
func sysFD(nr uintptr, args ...uintptr) func() string {
	var a [6]uintptr
	copy(a[:], args)
	return func() string {
		r, _, e := unix.RawSyscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
		if e == 0 {
			unix.Close(int(r))
		}
		return errnoName(e)
	}
}
