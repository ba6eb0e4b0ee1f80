package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
)

// runNested is `acbox run` inside a sandbox that may delegate: instead of
// creating namespaces (which seccomp refuses), it sends the spec and its
// standard streams to the broker outside, which launches the child as a
// sibling sandbox no wider than this one, and relays its events and status.
// With report set, the broker sends the child's enforcement report and exit
// scan back, and they are written there as for a launch from the host.
func runNested(sock string, spec policy.Spec, events *policy.Events, s *Streams, report string) error {
	absolutize(&spec)
	passEnvHere(&spec)
	addr := &net.UnixAddr{Name: sock, Net: "unix"}
	c, err := net.DialUnix("unix", nil, addr)
	if err != nil {
		return fmt.Errorf("%w: nested launch: cannot reach the broker at %s: %v", policy.ErrCannotSandbox, sock, err)
	}
	defer c.Close()
	if err := sendRequest(c, nestedRequest{Spec: spec, Report: report != ""}, []*os.File{s.In, os.Stdout, os.Stderr}); err != nil {
		return fmt.Errorf("%w: nested launch: %v", policy.ErrCannotSandbox, err)
	}
	return readReplies(bufio.NewReader(c), events, report)
}

func readReplies(r *bufio.Reader, events *policy.Events, report string) error {
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%w: nested launch: the broker went away", policy.ErrCannotSandbox)
		}
		var rep nestedReply
		if json.Unmarshal(line, &rep) != nil {
			continue
		}
		switch {
		case rep.Event != nil:
			events.Emit(*rep.Event)
		case rep.Report != nil:
			if err := writeReport(report, rep.Report, rep.ExitScan); err != nil {
				return err
			}
		case rep.Exit != nil:
			return exitError{code: *rep.Exit}
		case rep.Error != "":
			return codeError{msg: rep.Error, code: rep.Code}
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

// codeError is a refusal relayed from the broker with its exit status.
type codeError struct {
	msg  string
	code int
}

func (e codeError) Error() string { return e.msg }
