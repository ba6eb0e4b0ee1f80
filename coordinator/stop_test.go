package coordinator

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// TestStopWaitsForNestedHelper: a nested sandbox shares its owner with its
// requester, so stop must reach it through its own pid 1. One still
// starting (no pid 1 recorded) is waited for, then refused; it is never
// stopped through the shared owner, which would stop the whole tree.
func TestStopWaitsForNestedHelper(t *testing.T) {
	defer func(d time.Duration) { startWait = d }(startWait)
	startWait = 300 * time.Millisecond
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	reg, err := registry.OpenRegistry(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"late", "never"} {
		e, err := registry.NewEntry(&policy.Plan{Backend: "native", Depth: 1, Parent: "top"}, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		reg.Update("late", func(e *registry.Entry) { e.HelperPid, e.HelperStart = 4242, 1 })
	}()
	late, _ := reg.Get("late")
	if got, err := withHelper(reg, late); err != nil || got.HelperPid != 4242 {
		t.Fatalf("a child that records its pid 1 late: %+v, %v", got, err)
	}
	never, _ := reg.Get("never")
	if _, err := withHelper(reg, never); err == nil || !strings.Contains(err.Error(), "has not started") {
		t.Fatalf("a child that never records its pid 1: %v", err)
	}
}
