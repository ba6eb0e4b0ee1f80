package coordinator

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestTTYNeedsATerminal: a terminal session whose input is a pipe is
// refused before anything starts (125, field tty): the member's pty could
// never pass the pipe's end on.
func TestTTYNeedsATerminal(t *testing.T) {
	r := newRig(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	io := r.stdio
	io.In = pr
	_, err = r.l.Run(t.Context(), Request{Spec: policy.Spec{Command: []string{"cat"}, TTY: true}, Stdio: io})
	if policy.ExitCode(err) != policy.ExitRefused || policy.FieldOf(err) != "tty" {
		t.Fatalf("%v: exit %d field %q, want 125 tty", err, policy.ExitCode(err), policy.FieldOf(err))
	}
	if r.j.has("native.launch") || len(events(t, r)) != 0 {
		t.Errorf("something started: %v", events(t, r))
	}
}

// TestRefusedEvent: the refused event has exactly the fields of
// docs/events.schema.json, field and remedy even when empty, and the id
// of a launch that got one.
func TestRefusedEvent(t *testing.T) {
	for _, tc := range []struct {
		id     string
		status int
		err    error
		keys   []string
		remedy string
	}{
		{"", 125, policy.AtField("access.read[0]", policy.Refuse("/", "whole", "grant less")), []string{"event", "field", "message", "remedy", "status", "time"}, "grant less"},
		{"abc", 126, withID("abc", os.ErrClosed), []string{"event", "field", "id", "message", "remedy", "status", "time"}, "run acbox doctor for the remedy"},
		{"", 2, policy.Invalid("x"), []string{"event", "field", "message", "remedy", "status", "time"}, "see acbox run --help and docs/spec.schema.json"},
	} {
		var b bytes.Buffer
		NewEvents(&b).Emit(Refused(tc.id, tc.status, "msg", tc.err))
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, tc.keys) || m["status"] != float64(tc.status) || m["remedy"] != tc.remedy || m["event"] != "refused" {
			t.Errorf("%s", b.String())
		}
		if SandboxID(tc.err) != tc.id {
			t.Errorf("SandboxID %q, want %q", SandboxID(tc.err), tc.id)
		}
	}
}
