package docker

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// gate is the parent's side of the start gate: a Unix socket in a private
// directory (0700, socket 0600) bound read-only into the container. It
// serves exactly one connection; the listener and socket are gone before
// that connection is answered, and the token is forgotten on first use.
type startGate struct {
	dir   string
	ln    *net.UnixListener
	token string
}

// newGate creates the gate under base (a fresh directory of its own).
func newGate(base string) (*startGate, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("%w: start gate: %w", policy.ErrCannotSandbox, err)
	}
	dir, err := os.MkdirTemp(base, "acbox-gate-")
	if err != nil {
		return nil, fmt.Errorf("%w: start gate: %w", policy.ErrCannotSandbox, err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, filepath.Base(gateSocket))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: start gate: %w", policy.ErrCannotSandbox, err)
	}
	return &startGate{dir: dir, ln: ln, token: newToken()}, nil
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (g *startGate) close() {
	g.ln.Close()
	os.RemoveAll(g.dir)
}

// accept waits for the init's one connection until deadline, then closes
// the listener so no second connection can be made.
func (g *startGate) accept(deadline time.Time) (net.Conn, error) {
	g.ln.SetDeadline(deadline)
	c, err := g.ln.Accept()
	g.ln.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: the container's init did not reach the start gate: %w", policy.ErrCannotSandbox, err)
	}
	c.SetDeadline(deadline)
	return c, nil
}

// session is one gate exchange after accept.
type session struct {
	c net.Conn
	r *bufio.Reader
}

// hello reads the token and checks it against the gate's, which is then
// forgotten: a second presentation of the same token can never match.
func (g *startGate) hello(c net.Conn) (*session, error) {
	s := &session{c: c, r: bufio.NewReader(c)}
	var h gate.Hello
	if err := gate.ReadMsg(s.r, &h); err != nil {
		return nil, fmt.Errorf("%w: start gate: %w", policy.ErrCannotSandbox, err)
	}
	want := g.token
	g.token = ""
	if want == "" || subtle.ConstantTimeCompare([]byte(h.Token), []byte(want)) != 1 {
		s.refuse("wrong token")
		return nil, errors.New("start gate: wrong token; the gate was asked by something other than this sandbox's init")
	}
	return s, nil
}

// stat asks the init for the identity of each path.
func (s *session) stat(paths []string) (gate.Idents, error) {
	var out gate.Idents
	if err := gate.WriteMsg(s.c, gate.Stat{Stat: paths}); err != nil {
		return out, err
	}
	err := gate.ReadMsg(s.r, &out)
	return out, err
}

func (s *session) release(env []string) error {
	return gate.WriteMsg(s.c, gate.Release{Release: true, Env: env})
}

func (s *session) refuse(why string) {
	gate.WriteMsg(s.c, gate.Release{Refused: why})
}

// found reads the init's answer to release (within the gate's deadline):
// the member's command was found, or the error of why it cannot be
// executed, which fails the launch before it is reported started.
func (s *session) found() error {
	var m gate.Exec
	if err := gate.ReadMsg(s.r, &m); err != nil {
		return fmt.Errorf("%w: start gate: the init did not say whether it found the command: %w", policy.ErrCannotSandbox, err)
	}
	return execError(m)
}

// execFailure reads the init's one further message, sent only when
// executing the found command failed; the channel gets nil when the
// connection ends without one (the member ran, or the init is gone).
func (s *session) execFailure() <-chan error {
	out := make(chan error, 1)
	s.c.SetReadDeadline(time.Time{}) // open for the member's life
	go func() {
		var m gate.Exec
		if err := gate.ReadMsg(s.r, &m); err != nil {
			out <- nil
			return
		}
		out <- execError(m)
	}()
	return out
}

func execError(m gate.Exec) error {
	if m.Exec == "" {
		return nil
	}
	return &policy.ExecError{Command: m.Command, Class: m.Exec, Detail: m.Detail}
}
