//go:build amd64

package seccomp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel cases for the rlimit rules and for syscalls the policy did not
// know: what the filtered thread must get, in the child of TestKernel.
var limitCases = []kernelCase{
	{"go/setrlimit-data", "EPERM", true}, // unfiltered: OK, the same values set again
	{"go/setrlimit-data-high", "EPERM", true},
	{"go/prlimit-data-set", "EPERM", true},
	{"go/prlimit-data-read", "OK", false},
	{"go/getrlimit-data", "OK", false},
	{"go/prlimit-nofile-set", "OK", false},
	{"go/prlimit-stack-set", "OK", false}, // pid 1 sets soft = hard instead
	{"go/mmap-growsdown", "EPERM", true},  // unfiltered: a stack the data limit does not count
	{"go/mmap-growsdown-high", "EPERM", true},
	{"go/mmap-stack-flag", "OK", false},  // MAP_STACK sets no VM_STACK
	{"go/open_tree_attr", "EPERM", true}, // unfiltered on Linux 6.15+: a mount descriptor; before: ENOSYS
	// Unfiltered, Linux 6.8+ answers EFAULT or EINVAL; an older kernel
	// ENOSYS too, so these cannot tell the filter from the kernel there.
	{"go/statmount", "ENOSYS", false},
	{"go/listmount", "ENOSYS", false},
	// Numbers no kernel has yet: ENOSYS with or without the filter; the
	// interpreter tests show the filter's own answer.
	{"go/nr-470", "ENOSYS", false},
	{"go/nr-1000", "ENOSYS", false},
	{"go/nr-400", "ENOSYS", false},
}

// stackCases32 are the mmap calls of testdata/probe.c, made by both probe
// builds (bare names here; probeCases adds "probe32/" and "probe64/").
// Through int 0x80 they reach the i386 table from either: old mmap
// (number 90), whose flags are in memory, is refused whatever they are;
// mmap2 meets the MAP_GROWSDOWN rule. The libc's own mmap is mmap2 in
// 32-bit glibc and mmap in 64-bit glibc. Unfiltered, every call succeeds.
var stackCases32 = []kernelCase{
	{"int80-old-mmap-growsdown", "ENOSYS", true}, // a stack the data limit does not count
	{"int80-old-mmap", "ENOSYS", true},
	{"int80-mmap2-growsdown", "EPERM", true},
	{"int80-mmap2", "OK", false},
	{"mmap-growsdown", "EPERM", true},
	{"mmap", "OK", false},
}

// probeCases is cs for both probe builds.
func probeCases(cs []kernelCase) []kernelCase {
	var out []kernelCase
	for _, bits := range []string{"32", "64"} {
		for _, c := range cs {
			out = append(out, kernelCase{"probe" + bits + "/" + c.probe, c.want, c.differs})
		}
	}
	return out
}

var (
	dataLimit, nofileLimit, stackLimit, readBack unix.Rlimit
)

func limitProbes() probeSet {
	unix.Getrlimit(unix.RLIMIT_DATA, &dataLimit)
	unix.Getrlimit(unix.RLIMIT_NOFILE, &nofileLimit)
	unix.Getrlimit(unix.RLIMIT_STACK, &stackLimit)
	data := uintptr(unsafe.Pointer(&dataLimit))
	root, _ := unix.BytePtrFromString("/")
	return probeSet{
		"go/setrlimit-data":      sys(unix.SYS_SETRLIMIT, unix.RLIMIT_DATA, data),
		"go/setrlimit-data-high": sys(unix.SYS_SETRLIMIT, 1<<32|unix.RLIMIT_DATA, data),
		"go/prlimit-data-set":    sys(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_DATA, data, 0),
		"go/prlimit-data-read":   sys(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_DATA, 0, uintptr(unsafe.Pointer(&readBack))),
		"go/getrlimit-data":      sys(unix.SYS_GETRLIMIT, unix.RLIMIT_DATA, uintptr(unsafe.Pointer(&readBack))),
		"go/prlimit-nofile-set":  sys(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, uintptr(unsafe.Pointer(&nofileLimit)), 0),
		"go/prlimit-stack-set":   sys(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_STACK, uintptr(unsafe.Pointer(&stackLimit)), 0),
		"go/mmap-growsdown":      mmapProbe(unix.MAP_GROWSDOWN),
		"go/mmap-growsdown-high": mmapProbe(1<<32 | unix.MAP_GROWSDOWN),
		"go/mmap-stack-flag":     mmapProbe(unix.MAP_STACK),
		"go/open_tree_attr": func() string {
			r, _, e := unix.RawSyscall6(467, uintptr(atFDCWD), uintptr(unsafe.Pointer(root)), 0, 0, 0, 0)
			if e == 0 {
				unix.Close(int(r))
			}
			return errnoName(e)
		},
		"go/statmount": sys(457, 0, 0, 0, 0),
		"go/listmount": sys(458, 0, 0, 0, 0),
		"go/nr-470":    sys(470),
		"go/nr-1000":   sys(1000),
		"go/nr-400":    sys(400), // unused on x86_64 (337 to 423)
	}
}

// mmapProbe maps one private writable page with extra flags, and unmaps it.
func mmapProbe(flags uintptr) func() string {
	return func() string {
		r, _, e := unix.RawSyscall6(unix.SYS_MMAP, 0, 4096, unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|flags, ^uintptr(0), 0)
		if e == 0 {
			unix.RawSyscall(unix.SYS_MUNMAP, r, 4096, 0)
		}
		return errnoName(e)
	}
}

var atFDCWD = func() int { v := unix.AT_FDCWD; return v }()
