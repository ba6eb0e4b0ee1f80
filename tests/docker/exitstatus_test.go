//go:build integration

package docker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestExitStatuses is the docker backend's run of the exit status taxonomy
// (tests/integration's TestExitStatuses is the native one): each class's
// status, and for acbox's own statuses the refused event written last on
// --status-fd with the field and stderr's message.
func TestExitStatuses(t *testing.T) {
	e := setup(t)
	ro, rw := dirs(t)
	plain := filepath.Join(ro, "ro-file")
	big := strings.Repeat("a", 200000)
	deep := "p=d; i=1; while [ $i -lt 1005 ]; do p=$p/d; i=$((i+1)); done; mkdir -p $p || exit 9"
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		field string // "-": the member's own status, no refused event
		says  string
	}{
		{"unknown spec field", []string{"--spec", "-"}, `{"backend":"docker","image":"` + image + `","command":["true"],"bogus":1}` + "\n", 2, "bogus", "unknown field"},
		{"refused grant", []string{"-r", "/", "--", "true"}, "", 125, "access.read[0]", "whole of /"},
		{"tty on a pipe", []string{"--tty", "--", "cat"}, "hi\n", 125, "tty", "not a TTY"},
		{"oversized environment", []string{"--spec", "-"}, `{"backend":"docker","image":"` + image + `","command":["true"],"env":{"BIG":"` + big + `"}}` + "\n", 125, "env.BIG", "bytes long"},
		{"missing image", []string{"--image", "acbox-no-such-image:0", "--", "true"}, "", 126, "", "acbox-no-such-image:0"},
		{"not found", []string{"--", "acbox-no-such-command"}, "", 127, "command[0]", "command not found in the sandbox: acbox-no-such-command"},
		{"empty PATH", []string{"--env", "PATH=", "--", "true"}, "", 127, "command[0]", "command not found in the sandbox: true"},
		{"not executable", []string{"-r", ro, "--", plain}, "", 126, "command[0]", "permission denied executing " + plain},
		{"a directory", []string{"--", "/bin"}, "", 126, "command[0]", "permission denied executing /bin"},
		{"unchecked", []string{"-w", rw, "--cwd", rw, "--", "sh", "-c", deep}, "", 124, "", "could not check"},
		{"member's status", []string{"--", "sh", "-c", "exit 127"}, "", 127, "-", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, evs := e.runStatus(t, c.stdin, c.args...)
			if code != c.code || !strings.Contains(stderr, c.says) {
				t.Fatalf("want exit %d and %q on stderr; got %d:\n%s", c.code, c.says, code, stderr)
			}
			var last map[string]any
			if len(evs) > 0 {
				last = evs[len(evs)-1]
			}
			if c.field == "-" {
				if last != nil && last["event"] == "refused" {
					t.Errorf("the member's own status, yet a refused event: %v", last)
				}
				return
			}
			msg, _ := last["message"].(string)
			if last["event"] != "refused" || last["status"] != float64(c.code) || last["field"] != c.field || msg == "" || !strings.Contains(stderr, "acbox: "+msg) {
				t.Errorf("last event %v, want refused with status %d, field %q and stderr's message\nstderr: %s", last, c.code, c.field, stderr)
			}
			if c.code == 127 || c.code == 126 && c.field != "" {
				for _, ev := range evs {
					if ev["event"] == "started" {
						t.Errorf("a command that could not be executed was reported started: %v", evs)
					}
				}
			}
		})
	}
	e.noneLeft(t)
}

// runStatus runs acbox on the docker backend with --status-fd 3 (within
// 60s: a launch that hangs fails) and returns its status, stderr and
// events.
func (e *env) runStatus(t *testing.T, stdin string, args ...string) (int, string, []map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a := []string{"run", "--status-fd", "3", "--backend", "docker"}
	if !slices.Contains(args, "--image") { // given twice, a flag is refused
		a = append(a, "--image", image)
	}
	a = append(a, args...)
	cmd := exec.CommandContext(ctx, e.bin, a...)
	cmd.Stdin = strings.NewReader(stdin)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{w}
	cmd.WaitDelay = 5 * time.Second
	evc := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); evc <- b }()
	err = cmd.Run()
	w.Close()
	if ctx.Err() != nil {
		t.Fatalf("acbox did not end within 60s\nstderr:\n%s", errb.String())
	}
	var evs []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(<-evc), []byte("\n")) {
		var ev map[string]any
		if json.Unmarshal(line, &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return cmd.ProcessState.ExitCode(), errb.String(), evs
}
