package gate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"
)

// The start gate holds a container's member until the parent has checked
// the running container. The in-container init (the client) and the parent
// (the server, in package coordinator/docker) speak one JSON object per
// line over the gate's Unix socket, exactly once per sandbox:
//
//	init   -> {"token": T}                       the token from the container config
//	parent -> {"stat": ["/grant", ...]}           or a refusal
//	init   -> {"idents": [...], "self": {...}}    fstat of each path, and its own privileges
//	parent -> {"release": true, "env": [...]}     or a refusal; the member's environment
//	init   -> {"exec": ""}                        the command was found; or its class ("not-found", ...)
//	init   -> {"exec": "cannot-execute", ...}     only if executing the found command failed
//
// The parent accepts one connection, checks and forgets the token, and
// closes the socket; a replay finds nothing to talk to. After release the
// parent keeps the connection open for the member's life: when it closes,
// the parent is gone and the init ends the member (the container's
// equivalent of a parent-death signal).

// Hello is the init's first message.
type Hello struct {
	Token string `json:"token"`
}

// Stat is the parent's first answer: the paths whose identity it wants.
// Refused is set (and Stat empty) when the parent will not release.
type Stat struct {
	Stat    []string `json:"stat,omitempty"`
	Refused string   `json:"refused,omitempty"`
}

// Ident is the identity of one path as seen inside the sandbox. Err is set
// when it could not be opened without following symlinks.
type Ident struct {
	Path string `json:"path"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
	Err  string `json:"err,omitempty"`
}

// SelfStatus is what the init holds, read from /proc/self/status and
// getgroups just before it asks for release; the member inherits it.
type SelfStatus struct {
	UID        string            `json:"uid"`
	GID        string            `json:"gid"`
	Groups     []int             `json:"groups"`
	Caps       map[string]string `json:"caps"`
	NoNewPrivs bool              `json:"no_new_privs"`
	Seccomp    string            `json:"seccomp"`
	AppArmor   string            `json:"apparmor,omitempty"`
	// PidNS is the init's pid namespace (stat of /proc/self/ns/pid): the
	// parent takes a host pid for the container's pid 1 only if that
	// process, seen from the host, is pid 1 of this namespace. Zero when
	// the init could not read it.
	PidNS NS `json:"pid_ns"`
}

// NS names a namespace by the device and inode of its nsfs file, which
// are the same from every namespace of one kernel.
type NS struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// Idents is the init's second message.
type Idents struct {
	Idents []Ident    `json:"idents"`
	Self   SelfStatus `json:"self"`
}

// Release is the parent's last answer.
type Release struct {
	Release bool     `json:"release"`
	Env     []string `json:"env,omitempty"`
	Refused string   `json:"refused,omitempty"`
}

// ErrNotReleased is returned when the parent refused to release the member.
var ErrNotReleased = errors.New("the parent did not release this sandbox")

// Timeout bounds the whole exchange on the init's side: the parent
// checks the running container within it or the member never starts.
const Timeout = 60 * time.Second

// Exec is the init's message after release: Exec is empty once the
// member's command is found on its PATH (the member starts next, and the
// parent reports it started only then), else the class of why it cannot be
// executed (policy.ExecNotFound and its peers), with the command and what
// was looked at; the parent exits 127 or 126 with it. When executing a
// found command fails, a second message says why.
type Exec struct {
	Exec    string `json:"exec"`
	Command string `json:"command,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// Released is a granted release: the member's environment, and a channel
// closed when the parent's end of the gate connection goes away.
type Released struct {
	Env        []string
	ParentGone <-chan struct{}
	// Conn is the gate connection, for Tell; nil (a test's init) has no
	// parent to tell.
	Conn net.Conn
}

// ErrNoGate is Tell's error without a gate connection.
var ErrNoGate = errors.New("no gate connection")

// Tell sends the parent the Exec message; an error means the parent may
// not have heard.
func (r *Released) Tell(m Exec) error {
	if r.Conn == nil {
		return ErrNoGate
	}
	return WriteMsg(r.Conn, m)
}

// Ask connects to the gate at path, presents token, answers the
// parent's identity request with stat and waits for release. Any refusal
// or failure is an error and the caller must not run the member.
func Ask(path, token string, stat func([]string) Idents) (*Released, error) {
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("connect to the start gate %s: %w", path, err)
	}
	rel, err := askGate(c, token, stat)
	if err != nil {
		c.Close()
		return nil, err
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		c.Read(make([]byte, 1)) // the parent sends nothing more: any return is its end
		c.Close()
	}()
	return &Released{Env: rel.Env, ParentGone: gone, Conn: c}, nil
}

func askGate(c net.Conn, token string, stat func([]string) Idents) (*Release, error) {
	c.SetDeadline(time.Now().Add(Timeout))
	r := bufio.NewReader(c)
	var st Stat
	if err := gateRoundTrip(c, r, Hello{Token: token}, &st); err != nil {
		return nil, err
	}
	if st.Refused != "" {
		return nil, fmt.Errorf("%w: %s", ErrNotReleased, st.Refused)
	}
	var rel Release
	if err := gateRoundTrip(c, r, stat(st.Stat), &rel); err != nil {
		return nil, err
	}
	if !rel.Release {
		return nil, fmt.Errorf("%w: %s", ErrNotReleased, rel.Refused)
	}
	c.SetDeadline(time.Time{})
	return &rel, nil
}

// gateRoundTrip writes one message and reads the answer.
func gateRoundTrip(c net.Conn, r *bufio.Reader, out, in any) error {
	if err := WriteMsg(c, out); err != nil {
		return fmt.Errorf("start gate: %w", err)
	}
	if err := ReadMsg(r, in); err != nil {
		return fmt.Errorf("%w: start gate: %w", ErrNotReleased, err)
	}
	return nil
}

// MaxMsg bounds one gate message.
const MaxMsg = 1 << 20

// WriteMsg writes v as one JSON line.
func WriteMsg(c net.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.Write(append(b, '\n'))
	return err
}

// ReadMsg reads one JSON line of at most MaxMsg bytes into v.
func ReadMsg(r *bufio.Reader, v any) error {
	var line []byte
	for {
		part, more, err := r.ReadLine()
		if err != nil {
			return err
		}
		line = append(line, part...)
		if len(line) > MaxMsg {
			return errors.New("gate message too large")
		}
		if !more {
			break
		}
	}
	return json.Unmarshal(line, v)
}
