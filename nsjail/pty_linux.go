package nsjail

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// openPty opens a pty pair in the sandbox's own devpts instance (after
// pivot_root, so the host's ptys are out of reach). TIOCSTI on it can only
// inject into this pty.
func openPty() (master, slave *os.File, err error) {
	m, err := sys.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := sys.IoctlSetPointerInt(m, "/dev/ptmx (TIOCSPTLCK)", unix.TIOCSPTLCK, 0); err != nil {
		sys.Close(m)
		return nil, nil, err
	}
	n, err := sys.IoctlGetInt(m, "/dev/ptmx (TIOCGPTN)", unix.TIOCGPTN)
	if err != nil {
		sys.Close(m)
		return nil, nil, err
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	s, err := sys.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		sys.Close(m)
		return nil, nil, err
	}
	return os.NewFile(uintptr(m), "ptmx"), os.NewFile(uintptr(s), name), nil
}

// sendFd passes fd over a Unix socket with SCM_RIGHTS.
func sendFd(sock int, fd int) error {
	return sys.Sendmsg(sock, []byte{0}, unix.UnixRights(fd), nil, 0)
}

// recvFd receives one descriptor sent with sendFd.
func recvFd(sock int) (*os.File, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := sys.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, fmt.Errorf("pty: no descriptor received: %w", err)
	}
	if len(msgs) != 1 {
		return nil, fmt.Errorf("pty: no descriptor received (%d control messages)", len(msgs))
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil {
		return nil, fmt.Errorf("pty: bad descriptor message: %w", err)
	}
	if len(fds) != 1 {
		return nil, fmt.Errorf("pty: bad descriptor message (%d descriptors)", len(fds))
	}
	return os.NewFile(uintptr(fds[0]), "ptmx"), nil
}

// setupTTY opens the member's private pty and hands the master to the
// parent; the member gets the slave as stdin, stdout, stderr and
// controlling terminal.
func (s *sandbox) setupTTY() error {
	if !s.cfg.Plan.TTY {
		return nil
	}
	master, slave, err := openPty()
	if err != nil {
		return &stepError{step: "pty", err: err}
	}
	defer master.Close()
	if ws := s.cfg.Winsize; ws != nil {
		// Best effort: a wrong size until the next resize is cosmetic.
		sys.IoctlSetWinsize(int(master.Fd()), "ptmx", ws)
	}
	if err := sendFd(s.cfg.PtyFD, int(master.Fd())); err != nil {
		return &stepError{step: "pty handover", err: err}
	}
	s.mio = memberIO{files: []*os.File{slave, slave, slave}, ctty: true}
	return nil
}
