package initproc

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestExecMessages: the init tells the parent over the gate whether it
// found the member's command, and if not, or if executing it failed, the
// class (the parent's 127 or 126) and what it looked at; the status it
// returns is the same class's.
func TestExecMessages(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("not a program\n"), 0o644)
	odd := filepath.Join(dir, "odd")
	os.WriteFile(odd, []byte("\x7fELF garbage"), 0o755)
	for _, tc := range []struct {
		name  string
		argv  []string
		code  int
		msgs  []string // the classes sent, in order ("" = found)
		field string
	}{
		{"found", []string{"true"}, 0, []string{""}, ""},
		{"not on PATH", []string{"no-such-command-acbox"}, 127, []string{policy.ExecNotFound}, "command[0]"},
		{"no such path", []string{filepath.Join(dir, "missing")}, 127, []string{policy.ExecNotFound}, "command[0]"},
		{"not executable", []string{plain}, 126, []string{policy.ExecDenied}, "command[0]"},
		{"a directory", []string{dir}, 126, []string{policy.ExecDenied}, "command[0]"},
		{"exec format", []string{odd}, 126, []string{"", policy.ExecDenied}, "command[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			initEnd, parentEnd := net.Pipe()
			got := make(chan []gate.Exec, 1)
			go func() {
				var ms []gate.Exec
				r := bufio.NewReader(parentEnd)
				for {
					var m gate.Exec
					if gate.ReadMsg(r, &m) != nil {
						got <- ms
						return
					}
					ms = append(ms, m)
				}
			}()
			errf, _ := os.CreateTemp(t.TempDir(), "err")
			c := Config{Stderr: errf}.streams()
			rel := &gate.Released{Env: []string{"PATH=/usr/bin:/bin"}, ParentGone: make(chan struct{}), Conn: initEnd}
			if code := c.runMember(tc.argv, rel, 0, make(chan os.Signal)); code != tc.code {
				t.Errorf("status %d, want %d", code, tc.code)
			}
			initEnd.Close()
			ms := <-got
			if len(ms) != len(tc.msgs) {
				t.Fatalf("messages %+v, want classes %q", ms, tc.msgs)
			}
			for i, m := range ms {
				if m.Exec != tc.msgs[i] {
					t.Errorf("message %d: %+v, want class %q", i, m, tc.msgs[i])
				}
			}
			if last := ms[len(ms)-1]; last.Exec != "" {
				e := &policy.ExecError{Command: last.Command, Class: last.Exec, Detail: last.Detail}
				if policy.ExitCode(e) != tc.code || policy.FieldOf(e) != tc.field || last.Command != tc.argv[0] {
					t.Errorf("%v: exit %d, field %q; want %d, %q", e, policy.ExitCode(e), policy.FieldOf(e), tc.code, tc.field)
				}
			}
		})
	}
}
