//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// statusCase is one way an acbox run ends, with the status it must exit
// with (docs: README "Exit statuses") and, for acbox's own statuses, the
// refused event it must write last on --status-fd.
type statusCase struct {
	name  string
	args  []string // after `run --status-fd 3`
	stdin string
	env   []string
	code  int
	field string // the refused event's field; "-" when no refused event is due (the member's own status)
	says  string // in stderr
}

// runStatus runs acbox with --status-fd 3 and returns how it ended and
// its events. A launch that would hang (--tty on a pipe) fails the test
// after 30s instead.
func runStatus(t *testing.T, m mode, c statusCase) (result, []map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := m.command(ctx, c.env, append([]string{"run", "--status-fd", "3"}, c.args...)...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(c.stdin), &out, &errb
	cmd.ExtraFiles = []*os.File{w}
	evc := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); evc <- b }()
	err = cmd.Run()
	w.Close()
	if ctx.Err() != nil {
		t.Fatalf("%s: acbox did not end within 30s\nstderr:\n%s", c.name, errb.String())
	}
	res := result{stdout: out.String(), stderr: errb.String(), code: exitCode(cmd.ProcessState)}
	var evs []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(<-evc), []byte("\n")) {
		var ev map[string]any
		if len(line) > 0 && json.Unmarshal(line, &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return res, evs
}

// checkStatus asserts the exit status, the words on stderr and the last
// event: refused with the same status, the field and stderr's message, or
// (the member's own status) no refused event at all.
func checkStatus(t *testing.T, m mode, c statusCase) {
	t.Helper()
	res, evs := runStatus(t, m, c)
	if res.code != c.code || !strings.Contains(res.stderr, c.says) {
		t.Errorf("%s: want exit %d and %q on stderr; got %v", c.name, c.code, c.says, res)
		return
	}
	var refused map[string]any
	for i, ev := range evs {
		if ev["event"] == "refused" {
			if i != len(evs)-1 {
				t.Errorf("%s: refused is not the last event: %v", c.name, evs)
			}
			refused = ev
		}
	}
	if c.field == "-" {
		if refused != nil {
			t.Errorf("%s: the member's own status, yet a refused event: %v", c.name, refused)
		}
		return
	}
	if refused == nil {
		t.Errorf("%s: no refused event: %v", c.name, evs)
		return
	}
	msg, _ := refused["message"].(string)
	if refused["status"] != float64(c.code) || refused["field"] != c.field || msg == "" || !strings.Contains(res.stderr, "acbox: "+msg) {
		t.Errorf("%s: refused event %v, want status %d field %q and stderr's message\nstderr: %s", c.name, refused, c.code, c.field, res.stderr)
	}
	if _, ok := refused["remedy"].(string); !ok {
		t.Errorf("%s: refused event without remedy: %v", c.name, refused)
	}
}

// TestExitStatuses runs one launch per class of the exit status taxonomy
// on the native backend (the docker backend's twin is in tests/docker).
func TestExitStatuses(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		plain := f.file("w/plain", "echo not executable\n")
		big := strings.Repeat("a", 200000)
		deep := "p=d; i=1; while [ $i -lt 1005 ]; do p=$p/d; i=$((i+1)); done; mkdir -p $p || exit 9"
		for _, c := range []statusCase{
			{name: "unknown flag", args: []string{"--bogus", "--", "true"}, code: 2, says: "unknown flag --bogus"},
			{name: "missing spec file", args: []string{"--spec", "/nonexistent/acbox.json"}, code: 2, says: "--spec"},
			{name: "unknown spec field", args: []string{"--spec", "-"}, stdin: `{"command":["true"],"bogus":1}` + "\n", code: 2, field: "bogus", says: "unknown field"},
			{name: "refused grant", args: []string{"-r", "/", "--", "true"}, code: 125, field: "access.read[0]", says: "whole of /"},
			{name: "tty on a pipe", args: []string{"--tty", "--", "cat"}, stdin: "hi\n", code: 125, field: "tty", says: "not a TTY"},
			{name: "oversized environment", args: []string{"--spec", "-"}, stdin: `{"command":["true"],"env":{"BIG":"` + big + `"}}` + "\n", code: 125, field: "env.BIG", says: "bytes long"},
			{name: "no docker here", args: []string{"--backend", "docker", "--", "true"}, env: []string{"DOCKER_HOST=unix:///nonexistent/docker.sock"}, code: 126, says: "docker"},
			{name: "not found", args: []string{"--", "acbox-no-such-command"}, code: 127, field: "command[0]", says: "command not found in the sandbox: acbox-no-such-command"},
			{name: "empty PATH", args: []string{"--env", "PATH=", "--", "true"}, code: 127, field: "command[0]", says: "command not found in the sandbox: true"},
			{name: "not executable", args: []string{"-r", w, "--", plain}, code: 126, field: "command[0]", says: "permission denied executing " + plain},
			{name: "a directory", args: []string{"--", "/etc"}, code: 126, field: "command[0]", says: "permission denied executing /etc"},
			{name: "unchecked", args: []string{"-w", w, "--cwd", w, "--", "sh", "-c", deep}, code: 124, field: "", says: "could not check"},
			{name: "member's status", args: []string{"--", "sh", "-c", "exit 127"}, code: 127, field: "-"},
			{name: "member's signal", args: []string{"--", "sh", "-c", "kill -TERM $$"}, code: 143, field: "-"},
		} {
			t.Run(c.name, func(t *testing.T) { checkStatus(t, m, c) })
		}
	})
}

// TestUncheckedEventOrder: when the member ran and left what acbox could
// not check, its own outcome comes first (exited, with its status), then
// the refusal (refused, 124).
func TestUncheckedEventOrder(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		deep := "p=d; i=1; while [ $i -lt 1005 ]; do p=$p/d; i=$((i+1)); done; mkdir -p $p || exit 9; exit 3"
		res, evs := runStatus(t, m, statusCase{name: "unchecked", args: []string{"-w", w, "--cwd", w, "--", "sh", "-c", deep}})
		var kinds []string
		for _, ev := range evs {
			kinds = append(kinds, ev["event"].(string))
		}
		if res.code != 124 || strings.Join(kinds, ",") != "started,exited,refused" || evs[1]["code"] != float64(3) || evs[2]["status"] != float64(124) {
			t.Fatalf("want exit 124 and started, exited (code 3), refused (124); got %v\nevents %v", res, evs)
		}
	})
}
