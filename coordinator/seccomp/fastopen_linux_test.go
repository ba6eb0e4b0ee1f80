//go:build amd64

package seccomp

import "golang.org/x/sys/unix"

// fastOpenCases are the TCP Fast Open calls on the real kernel, in the child
// of TestKernel. Each is made on fd -1: unfiltered the kernel says EBADF, so
// a refusal can only be the filter's, and nothing is sent.
var fastOpenCases = []kernelCase{
	{"go/sendto-fastopen", "ENOTSUP", true},      // Go names 95 ENOTSUP, C EOPNOTSUPP: the same number
	{"go/sendto-fastopen-high", "ENOTSUP", true}, // junk above the int the kernel reads
	{"go/sendmsg-fastopen", "ENOTSUP", true},
	{"go/sendmmsg-fastopen", "ENOTSUP", true},
	{"go/sendto", "EBADF", false},
	{"go/sendmsg-dontwait", "EBADF", false},
}

// fastOpenCases32 are testdata/probe.c's, made by both probe builds: the
// i386 entry points, direct and through socketcall, whose subcalls carry
// their flags in memory and are refused whatever they are.
var fastOpenCases32 = []kernelCase{
	{"int80-sendto-fastopen", "EOPNOTSUPP", true},
	{"int80-sendto", "EBADF", false},
	{"int80-sendmsg-fastopen", "EOPNOTSUPP", true},
	{"int80-sendmmsg-fastopen", "EOPNOTSUPP", true},
	{"int80-socketcall-sendto", "EOPNOTSUPP", true},
	{"int80-socketcall-sendmsg", "EOPNOTSUPP", true},
	{"int80-socketcall-sendmmsg", "EOPNOTSUPP", true},
	{"int80-socketcall-send", "EBADF", false},
	{"sendto-fastopen", "EOPNOTSUPP", true},
}

func fastOpenProbes() probeSet {
	const bad = ^uintptr(0) // fd -1
	return probeSet{
		"go/sendto-fastopen":      sys(unix.SYS_SENDTO, bad, 0, 0, unix.MSG_FASTOPEN, 0, 0),
		"go/sendto-fastopen-high": sys(unix.SYS_SENDTO, bad, 0, 0, 1<<32|unix.MSG_FASTOPEN, 0, 0),
		"go/sendmsg-fastopen":     sys(unix.SYS_SENDMSG, bad, 0, unix.MSG_FASTOPEN),
		"go/sendmmsg-fastopen":    sys(unix.SYS_SENDMMSG, bad, 0, 0, unix.MSG_FASTOPEN),
		"go/sendto":               sys(unix.SYS_SENDTO, bad, 0, 0, 0, 0, 0),
		"go/sendmsg-dontwait":     sys(unix.SYS_SENDMSG, bad, 0, unix.MSG_DONTWAIT),
	}
}
