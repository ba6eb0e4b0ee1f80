package initproc

import (
	"os"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/docker/gate"
)

// TestMemberOOMScoreAdj: the member, and a child it forks at once, have
// oom_score_adj 1000 from their start, and the init keeps its own value:
// the OOM killer takes the member before the init, whose death ends the
// container.
func TestMemberOOMScoreAdj(t *testing.T) {
	own, err := os.ReadFile("/proc/self/oom_score_adj")
	if err != nil {
		t.Skip("no /proc/self/oom_score_adj: " + err.Error())
	}
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Stdout: out, adj: openOOMAdj()}.streams()
	defer c.adj.f.Close()
	rel := &gate.Released{Env: []string{"PATH=/usr/bin:/bin"}, ParentGone: make(chan struct{})}
	if got := c.runMember([]string{"sh", "-c", "cat /proc/self/oom_score_adj"}, rel, 0, make(chan os.Signal)); got != 0 {
		t.Fatalf("status %d", got)
	}
	if b, _ := os.ReadFile(out.Name()); strings.TrimSpace(string(b)) != "1000" {
		t.Errorf("the member's first child has oom_score_adj %q, want 1000", b)
	}
	if after, _ := os.ReadFile("/proc/self/oom_score_adj"); string(after) != string(own) {
		t.Errorf("the init's oom_score_adj is %q after the start, was %q", after, own)
	}
}
