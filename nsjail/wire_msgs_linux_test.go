package nsjail

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// TestReadMsgsRefusesABadFrame: the parent passes a frame it cannot read
// on as an error of step "status", which fails the launch.
func TestReadMsgsRefusesABadFrame(t *testing.T) {
	ready := encodeMsg(helperMsg{Kind: "ready", Pid: 2})
	for _, tc := range []struct {
		name  string
		in    []byte
		kinds string
	}{
		{"clean end", append(bytes.Clone(ready), encodeMsg(helperMsg{Kind: "exit"})...), "ready exit"},
		{"cut", append(bytes.Clone(ready), ready[:20]...), "ready error"},
		{"json", append(bytes.Clone(ready), `{"kind":"exit"}`+"\n"...), "ready error"},
	} {
		out := make(chan helperMsg, 4)
		readMsgs(bufio.NewReader(bytes.NewReader(tc.in)), out)
		var kinds []string
		for m := range out {
			kinds = append(kinds, m.Kind)
			if m.Kind == "error" && (m.Step != "status" || !strings.Contains(helperError(m).Error(), "a message from the sandbox's pid 1 was refused: status")) {
				t.Errorf("%s: %+v: %v", tc.name, m, helperError(m))
			}
		}
		if got := strings.Join(kinds, " "); got != tc.kinds {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.kinds)
		}
	}
}
