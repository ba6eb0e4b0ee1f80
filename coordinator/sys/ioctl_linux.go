package sys

import (
	"os"

	"golang.org/x/sys/unix"
)

// IoctlGetInt reads an int through ioctl(2) request req on fd.
func IoctlGetInt(fd int, name string, req uint) (int, error) {
	return pathErrFD("ioctl", name, func() (int, error) { return unix.IoctlGetInt(fd, req) })
}

// IoctlSetPointerInt passes a pointer to v through ioctl(2) request req.
func IoctlSetPointerInt(fd int, name string, req uint, v int) error {
	return pathErr("ioctl", name, func() error { return unix.IoctlSetPointerInt(fd, req, v) })
}

// IoctlGetWinsize reads a terminal's window size (TIOCGWINSZ).
func IoctlGetWinsize(fd int, name string) (*unix.Winsize, error) {
	var ws *unix.Winsize
	err := pathErr("ioctl(TIOCGWINSZ)", name, func() (err error) { ws, err = unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); return err })
	return ws, err
}

// IoctlSetWinsize sets a terminal's window size (TIOCSWINSZ).
func IoctlSetWinsize(fd int, name string, ws *unix.Winsize) error {
	return pathErr("ioctl(TIOCSWINSZ)", name, func() error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
}

// IoctlIfreq runs the network-interface ioctl(2) req, named reqName, on a
// socket; the error names the request and ifr's interface.
func IoctlIfreq(fd int, req uint, reqName string, ifr *unix.Ifreq) error {
	return pathErr("ioctl "+reqName, ifr.Name(), func() error { return unix.IoctlIfreq(fd, req, ifr) })
}

// Socket makes a socket (socket(2)).
func Socket(domain, typ, proto int) (int, error) {
	n, err := retryFD(func() (int, error) { return unix.Socket(domain, typ, proto) })
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return n, nil
}

// Sendmsg sends p and the control data oob on a socket (sendmsg(2)).
func Sendmsg(fd int, p, oob []byte, to unix.Sockaddr, flags int) error {
	return callErr("sendmsg", func() error { return unix.Sendmsg(fd, p, oob, to, flags) })
}

// Recvmsg receives into p and oob from a socket (recvmsg(2)).
func Recvmsg(fd int, p, oob []byte, flags int) (n, oobn, recvflags int, from unix.Sockaddr, err error) {
	err = callErr("recvmsg", func() (err error) { n, oobn, recvflags, from, err = unix.Recvmsg(fd, p, oob, flags); return err })
	return n, oobn, recvflags, from, err
}

// Socketpair makes a pair of connected sockets (socketpair(2)).
func Socketpair(domain, typ, proto int) ([2]int, error) {
	var fds [2]int
	err := callErr("socketpair", func() (err error) { fds, err = unix.Socketpair(domain, typ, proto); return err })
	return fds, err
}

// GetsockoptTCPInfo reads a TCP socket's TCP_INFO (getsockopt(2)).
func GetsockoptTCPInfo(fd int) (*unix.TCPInfo, error) {
	var ti *unix.TCPInfo
	err := callErr("getsockopt(TCP_INFO)", func() (err error) {
		ti, err = unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		return err
	})
	return ti, err
}

// GetsockoptInt reads an integer socket option (getsockopt(2)).
func GetsockoptInt(fd, level, opt int, name string) (int, error) {
	var v int
	err := callErr("getsockopt("+name+")", func() (err error) { v, err = unix.GetsockoptInt(fd, level, opt); return err })
	return v, err
}
