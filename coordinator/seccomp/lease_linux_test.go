//go:build amd64

package seccomp

import (
	"os"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The lease rules on the real kernel. Each call is made on a fresh file of
// the caller's own in setidDir, opened read-only and by nothing else, so
// that unfiltered the kernel grants the lease (OK; then it is dropped at
// once) and EACCES can only come from the filter. F_SETDELEG gets EINVAL
// from a kernel without it (6.18), so it too tells the filter apart.
var leaseCases = []kernelCase{
	{"go/fcntl-setlease-rdlck", "EACCES", true},
	{"go/fcntl-setlease-wrlck", "EACCES", true},
	{"go/fcntl-setlease-high", "EACCES", true}, // the kernel reads the low 32 bits: a lease
	{"go/fcntl-setdeleg", "EACCES", true},
	{"go/fcntl-getlease", "OK", false},
	{"go/fcntl-notify", "OK", false}, // dnotify stays: nobody waits for it
}

// leaseCases32 are the calls of testdata/probe.c, made by both builds:
// the libc's fcntl (fcntl64 in 32-bit glibc, fcntl in 64-bit) and the
// i386 entry points through int 0x80.
var leaseCases32 = []kernelCase{
	{"fcntl-setlease", "EACCES", true},
	{"int80-fcntl-setlease", "EACCES", true},
	{"int80-fcntl64-setlease", "EACCES", true},
	{"int80-fcntl64-setdeleg", "EACCES", true},
	{"int80-fcntl64-getlease", "OK", false},
}

func leaseKernelCases() []kernelCase {
	return slices.Concat(leaseCases, probeCases(leaseCases32))
}

// delegation is linux/fcntl.h's struct delegation.
type delegation struct {
	flags uint32
	typ   uint16
	_     uint16
}

func leaseProbes() probeSet {
	const (
		fSetlease, fGetlease, fNotify = fLinuxSpecificBase, fLinuxSpecificBase + 1, fLinuxSpecificBase + 2
		fSetdeleg                     = fLinuxSpecificBase + 16
		dnModify                      = 0x2 // linux/fcntl.h
	)
	deleg := &delegation{typ: unix.F_RDLCK}
	ps := probeSet{
		"go/fcntl-setlease-rdlck": leased(fSetlease, unix.F_RDLCK),
		"go/fcntl-setlease-wrlck": leased(fSetlease, unix.F_WRLCK),
		"go/fcntl-setlease-high":  leased(1<<32|fSetlease, unix.F_WRLCK),
		"go/fcntl-setdeleg":       leased(fSetdeleg, uintptr(unsafe.Pointer(deleg))),
		"go/fcntl-getlease":       leased(fGetlease, 0),
		"go/fcntl-notify": func() string {
			fd, err := unix.Open(setidDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				panic(err)
			}
			defer unix.Close(fd) // drops the watch
			return sys(unix.SYS_FCNTL, uintptr(fd), fNotify, dnModify)()
		},
	}
	for _, bits := range []string{"32", "64"} {
		path := os.Getenv("ACBOX_SECCOMP_PROBE" + bits)
		for _, c := range leaseCases32 {
			ps["probe"+bits+"/"+c.probe] = execProbe(path, c.probe)
		}
	}
	return ps
}

// leased makes fcntl(fd, cmd, arg) on a fresh file of the caller's open
// read-only; a lease the kernel granted is dropped with the descriptor.
func leased(cmd, arg uintptr) func() string {
	return func() string {
		_, name := fresh()
		defer os.Remove(name)
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			panic(err)
		}
		defer unix.Close(fd)
		return sys(unix.SYS_FCNTL, uintptr(fd), cmd, arg)()
	}
}
