//go:build !linux

package bridge

import (
	"net"
	"os"
	"syscall"
)

// LoopbackUp is Linux only.
func LoopbackUp() error { return os.NewSyscallError("ioctl SIOCSIFFLAGS", syscall.ENOSYS) }

// DialFD is Linux only.
func DialFD(fd int) func() (net.Conn, error) {
	return func() (net.Conn, error) { return nil, os.NewSyscallError("connect", syscall.ENOSYS) }
}
