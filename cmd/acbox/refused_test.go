package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestRefusedEventBeforeRun: a run refused before it could open its
// status stream (a bad flag, a bad spec) still writes the refused event
// there, with the status it exits with and the message it prints.
func TestRefusedEventBeforeRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		field string
	}{
		{"unknown flag", []string{"--bogus"}, 2, ""},
		{"missing spec file", []string{"--spec", "/nonexistent/acbox-spec.json"}, 2, ""},
		{"status fd with =", []string{"--bogus"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// Main wraps the descriptor in an *os.File of its own, whose
			// finalizer closes it some time later: it gets a copy that
			// nothing else closes, or a later test's file could be closed
			// under it.
			dup, err := syscall.Dup(int(w.Fd()))
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			r.SetReadDeadline(time.Now().Add(10 * time.Second))
			fd := strconv.Itoa(dup)
			args := append([]string{"run", "--status-fd", fd}, tc.args...)
			if tc.name == "status fd with =" {
				args = append([]string{"run", "--status-fd=" + fd}, tc.args...)
			}
			var stderr bytes.Buffer
			code := Main(append(args, "--", "true"), nil, &bytes.Buffer{}, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			var ev map[string]any
			line, _ := bufio.NewReader(r).ReadBytes('\n')
			if err := json.Unmarshal(line, &ev); err != nil {
				t.Fatalf("no refused event (%v): %q", err, line)
			}
			want := "acbox: " + ev["message"].(string) + "\n"
			if ev["event"] != "refused" || ev["status"] != float64(tc.code) || ev["field"] != tc.field || stderr.String() != want {
				t.Errorf("event %v\nstderr %q", ev, stderr.String())
			}
			if _, ok := ev["remedy"].(string); !ok {
				t.Errorf("no remedy: %v", ev)
			}
		})
	}
}

func TestStatusFdArg(t *testing.T) {
	for _, tc := range []struct {
		args []string
		fd   int
		ok   bool
	}{
		{[]string{"run", "--status-fd", "3"}, 3, true},
		{[]string{"run", "-r", "x", "--status-fd=7", "--", "true"}, 7, true},
		{[]string{"run", "--", "--status-fd", "3"}, 0, false},
		{[]string{"plan", "--status-fd", "3"}, 0, false},
		{[]string{"run", "--status-fd"}, 0, false},
		{[]string{"run", "--status-fd", "x"}, 0, false},
		{nil, 0, false},
	} {
		if fd, ok := statusFdArg(tc.args); fd != tc.fd || ok != tc.ok {
			t.Errorf("%q: %d %v, want %d %v", tc.args, fd, ok, tc.fd, tc.ok)
		}
	}
}
