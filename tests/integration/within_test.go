//go:build integration

package integration

import (
	"testing"
	"time"
)

// TestWithinChildEndsWithRequester: a child launched with --within ends
// when its requester ends, not only when `acbox stop` names the requester:
// when the requester's member exits, and when the requester's acbox is
// SIGKILLed. The child's member ignores SIGTERM, so the child must also be
// killed after the grace. (Before, the child kept running with a registry
// entry naming a requester that no longer existed.)
func TestWithinChildEndsWithRequester(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for _, how := range []string{"member exits", "acbox SIGKILLed"} {
			t.Run(how, func(t *testing.T) {
				f := newFixture(t, m)
				dir := f.dir("w")
				parent := startBox(t, m, "run", "-w", dir, "--cwd", dir, "--", "sh", "-c", `echo "$ACBOX_ID"; until [ -e go ]; do sleep 0.1; done`)
				id := firstLine(t, parent)
				child := startBox(t, m, "run", "--within", id, "-r", dir, "--", "sh", "-c", `trap '' TERM; echo ready; sleep 60; sleep 60`)
				child.waitLine(t, "ready")
				if how == "member exits" {
					f.file("w/go", "")
				} else {
					parent.cmd.Process.Kill()
				}
				parent.wait(t, 20*time.Second)
				if code := child.wait(t, 20*time.Second); code == 0 {
					t.Fatalf("the child exited 0 after its requester ended; stderr:\n%s", child.stderr)
				}
			})
		}
	})
}

// firstLine is the first line the box's member prints.
func firstLine(t *testing.T, b *box) string {
	t.Helper()
	select {
	case l, ok := <-b.lines:
		if !ok {
			<-b.done
			t.Fatalf("acbox ended (exit %d) before printing; stderr:\n%s", b.code, b.stderr)
		}
		return l
	case <-time.After(15 * time.Second):
		t.Fatalf("no line from the member within 15s; stderr:\n%s", b.stderr)
	}
	return ""
}
