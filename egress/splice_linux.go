package egress

import (
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/acbox/acbox/coordinator/sys"
	"golang.org/x/sys/unix"
)

// maxSplice is how much one splice(2) call asks to move, and the pipe size
// asked for, as the standard library's own splice does.
const maxSplice = 1 << 20

// spliceN moves exactly n bytes from src to dst through a kernel pipe, never
// through user memory, for the pairs the standard library cannot splice with
// a limit (a TCP source into a Unix socket). handled is false, with nothing
// moved, when either end is not a kernel stream socket or no pipe can be
// had; the caller then copies. Deadlines and Close on either end end it, as
// they end a read or a write. A src that ends early is io.ErrUnexpectedEOF.
func spliceN(dst, src net.Conn, n int64) (written int64, handled bool, err error) {
	if !spliceable(dst) || !spliceable(src) {
		return 0, false, nil
	}
	drc, err1 := dst.(syscall.Conn).SyscallConn()
	src0, err2 := src.(syscall.Conn).SyscallConn()
	if err1 != nil || err2 != nil {
		return 0, false, nil
	}
	var p [2]int
	if sys.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK) != nil {
		return 0, false, nil
	}
	defer sys.Close(p[0])
	defer sys.Close(p[1])
	sys.SetPipeSize(p[0], maxSplice) // a hint: the default 64 KiB works too
	for written < n {
		in, err := spliceIn(src0, p[1], int(min(n-written, maxSplice)))
		if err != nil {
			return written, true, err
		}
		if in == 0 {
			return written, true, io.ErrUnexpectedEOF
		}
		out, err := spliceOut(drc, p[0], in)
		written += int64(out)
		if err != nil {
			return written, true, err
		}
	}
	return written, true, nil
}

// spliceIn moves up to max bytes from the socket into the empty pipe,
// waiting for the socket to be readable; 0 means end of stream.
func spliceIn(rc syscall.RawConn, pipe, max int) (int, error) {
	var n int64
	var serr error
	err := rc.Read(func(fd uintptr) bool {
		n, serr = sys.Splice(int(fd), pipe, max, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
		return !errors.Is(serr, unix.EAGAIN)
	})
	if err == nil {
		err = wrapSplice(serr)
	}
	return int(n), err
}

// spliceOut moves all n bytes in the pipe to the socket, waiting for it to
// be writable as often as needed.
func spliceOut(rc syscall.RawConn, pipe, n int) (int, error) {
	done := 0
	var serr error
	err := rc.Write(func(fd uintptr) bool {
		for done < n {
			m, e := sys.Splice(pipe, int(fd), n-done, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
			switch {
			case errors.Is(e, unix.EAGAIN):
				return false
			case e != nil:
				serr = e
				return true
			}
			done += int(m)
		}
		return true
	})
	if err == nil {
		err = wrapSplice(serr)
	}
	return done, err
}

func wrapSplice(err error) error {
	if err == nil {
		return nil
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		return &net.OpError{Op: "splice", Err: errno}
	}
	return err
}
