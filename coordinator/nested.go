package coordinator

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
)

// Nested is `acbox run` inside a sandbox that may delegate: instead of
// creating namespaces (which seccomp refuses), it sends the spec and its
// standard streams to the broker at sock (policy.DelegateSocket), which
// launches the child as a sibling sandbox no wider than this one, and
// relays the child's events to events. It returns the child's exit
// status, or the broker's refusal as a *BrokerError carrying its exit
// status. With report set, the broker sends the child's enforcement
// report and exit scan back, and report is called with them. From its
// start until it returns, Nested catches the signals acbox passes on to a
// member (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH)
// and sends them to the broker, which passes them on to the child's
// member as acbox passes its own on: it is for a process whose only
// signal handling is this.
func Nested(sock string, spec policy.Spec, io Stdio, events *Events, report func(*policy.Report, json.RawMessage) error) (int, error) {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, nestedSignals...)
	defer signal.Stop(sigs)
	absolutize(&spec)
	passEnvHere(&spec)
	addr := &net.UnixAddr{Name: sock, Net: "unix"}
	c, err := net.DialUnix("unix", nil, addr)
	if err != nil {
		return 0, fmt.Errorf("%w: nested launch: cannot reach the broker at %s: %w", policy.ErrCannotSandbox, sock, err)
	}
	defer c.Close()
	if err := sendRequest(c, nestedRequest{Spec: spec, Report: report != nil}, []*os.File{io.In, io.Out, io.Err}); err != nil {
		return 0, fmt.Errorf("%w: nested launch: %w", policy.ErrCannotSandbox, err)
	}
	done := make(chan struct{})
	defer close(done)
	go sendSignals(c, sigs, done) // wire_signals.go
	return readReplies(bufio.NewReader(c), events, report)
}

// clientReply is a reply as the client reads it: the exit scan stays JSON.
type clientReply struct {
	nestedReply
	ExitScan json.RawMessage `json:"exit_scan,omitempty"`
}

func readReplies(r *bufio.Reader, events *Events, report func(*policy.Report, json.RawMessage) error) (int, error) {
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0, fmt.Errorf("%w: nested launch: the broker went away", policy.ErrCannotSandbox)
		}
		var rep clientReply
		if json.Unmarshal(line, &rep) != nil {
			continue
		}
		switch {
		case rep.Event != nil:
			events.Emit(*rep.Event)
		case rep.Report != nil:
			if report != nil {
				if err := report(rep.Report, rep.ExitScan); err != nil {
					return 0, err
				}
			}
		case rep.Exit != nil:
			return *rep.Exit, nil
		case rep.Error != "":
			return 0, &BrokerError{Msg: rep.Error, Code: rep.Code, Field: rep.Field, Remedy: rep.Remedy}
		}
	}
}

// passEnvHere turns pass_env into env values from this process's own
// environment, the requesting sandbox's: the broker runs outside and would
// read the host's (it refuses pass_env for that reason).
func passEnvHere(s *policy.Spec) {
	for _, k := range s.PassEnv {
		if v, ok := os.LookupEnv(k); ok {
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			if _, set := s.Env[k]; !set {
				s.Env[k] = v
			}
		}
	}
	s.PassEnv = nil
}

// absolutize makes the child's paths absolute against this process's
// working directory: grants are mounted at the same paths inside and out.
func absolutize(s *policy.Spec) {
	wd, _ := os.Getwd()
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(wd, p)
	}
	for i := range s.Access.Read {
		s.Access.Read[i] = abs(s.Access.Read[i])
	}
	for i := range s.Access.Write {
		s.Access.Write[i] = abs(s.Access.Write[i])
	}
	s.Cwd = abs(s.Cwd)
	if s.Cwd == "" && insideAny(wd, append(s.Access.Read, s.Access.Write...)) {
		s.Cwd = wd
	}
}

func insideAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// BrokerError is a refusal relayed from the broker with its exit status.
type BrokerError struct {
	Msg  string
	Code int
	// Field and Remedy are the refused spec field and the next step, as
	// the broker named them; may be empty.
	Field, Remedy string
}

func (e *BrokerError) Error() string     { return e.Msg }
func (e *BrokerError) FieldPath() string { return e.Field }
func (e *BrokerError) NextStep() string  { return e.Remedy }
