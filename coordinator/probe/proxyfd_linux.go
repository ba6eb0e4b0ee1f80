package probe

import (
	"bufio"
	"errors"
	"io/fs"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The bridge hands each accepted connection to the egress proxy over its
// Unix socket (SCM_RIGHTS). Under the docker backend the member can reach
// that socket itself (it is mounted at /.acbox/proxy for the bridge, which
// runs as the member's uid) and pass descriptors of its choosing; natively
// the socket is not in the member's view at all. Either way the proxy must
// take nothing but one connected TCP socket with the marker byte: anything
// else is answered 400 and closed, before any read from the descriptor.

// proxySocket is where the docker backend mounts the proxy's socket for the
// bridge (coordinator/docker: proxyDir and the socket's own name).
const proxySocket = "/.acbox/proxy/proxy.sock"

func proxyPassDescriptor(*Env) Outcome {
	if _, err := os.Lstat(proxySocket); errors.Is(err, fs.ErrNotExist) {
		return passf("no proxy socket in the member's view (%s)", proxySocket)
	}
	var outs []Outcome
	for _, c := range passCases() {
		fds, cleanup, err := c.make()
		if err != nil {
			outs = append(outs, errorf("%s: %v", c.name, err))
			continue
		}
		line, err := passTo(proxySocket, c.marker, fds)
		cleanup()
		switch {
		case err != nil:
			outs = append(outs, errorf("%s: %s", c.name, short(err)))
		case !strings.Contains(line, " 400 "):
			outs = append(outs, failf("%s: %q", c.name, strings.TrimSpace(line)))
		default:
			outs = append(outs, passf("%s: 400", c.name))
		}
	}
	return worst(outs...)
}

// passCase is one thing a member might hand the proxy.
type passCase struct {
	name   string
	marker []byte
	make   func() ([]int, func(), error)
}

func passCases() []passCase {
	mark := []byte{0}
	return []passCase{
		{"a listening TCP socket", mark, listenerFD},
		{"a pipe", mark, pipeFDs},
		{"two descriptors", mark, func() ([]int, func(), error) {
			fds, done, err := pipeFDs()
			if err != nil {
				return nil, done, err
			}
			return []int{fds[0], fds[0]}, done, nil
		}},
		{"a listening socket with a wrong marker", []byte("X"), listenerFD},
	}
}

func listenerFD() ([]int, func(), error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, func() {}, err
	}
	f, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		return nil, func() {}, err
	}
	return []int{int(f.Fd())}, func() { f.Close() }, nil
}

func pipeFDs() ([]int, func(), error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, func() {}, err
	}
	return []int{int(r.Fd())}, func() { r.Close(); w.Close() }, nil
}

// passTo sends fds with data over a new connection to the Unix socket at
// path and returns the first line of the answer.
func passTo(path string, data []byte, fds []int) (string, error) {
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := c.(*net.UnixConn).WriteMsgUnix(data, unix.UnixRights(fds...), nil); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}
