package nsjail_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/nsjail"
)

var _ backend.Backend = nsjail.Backend{}
var _ backend.Expecter = nsjail.Backend{}

// TestAvailable: where a sandbox can be launched (the other tests of this
// package launch them), the probe launch says so, and says it fast enough
// for `acbox status`.
func TestAvailable(t *testing.T) {
	if _, err := nsjail.Launch(planFor(t, t.TempDir(), "true"), quiet(t)); err != nil {
		t.Skipf("no sandbox on this host: %v", err)
	}
	a := nsjail.Backend{}.Available(context.Background())
	if !a.Available || a.Backend != "native" || a.Why != "" {
		t.Errorf("Available: %+v, want available", a)
	}
}

// TestLacksOtherBackend: a plan resolved for the docker backend is refused
// before anything runs, as a policy refusal naming the remedy.
func TestLacksOtherBackend(t *testing.T) {
	p := &policy.Plan{Backend: "docker", Command: []string{"true"}}
	b := nsjail.Backend{}
	if got := b.Lacks(p); len(got) != 1 {
		t.Fatalf("Lacks: %q, want one shortfall", got)
	}
	if _, err := b.Launch(p, backend.LaunchIO{}); !errors.Is(err, policy.ErrRefused) {
		t.Errorf("Launch of a docker plan: %v, want a refusal", err)
	}
	if got := b.Lacks(&policy.Plan{Backend: "native"}); len(got) != 0 {
		t.Errorf("Lacks of a native plan: %q, want none", got)
	}
}

// TestCleanupSparesLive: Cleanup removes the empty sandbox cgroups of dead
// ids only, as the launcher's admission reap asks (live is false only for
// the reaped ids).
func TestCleanupSparesLive(t *testing.T) {
	parent := sandboxCgroupParent(t)
	dead, kept := filepath.Join(parent, "acbox-testdead"+t.Name()), filepath.Join(parent, "acbox-testkept"+t.Name())
	for _, d := range []string{dead, kept} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot make a cgroup beside this process's: %v", err)
		}
		t.Cleanup(func() { os.Remove(d) })
	}
	removed, err := nsjail.Backend{}.Cleanup(context.Background(), func(id string) bool { return id != "testdead"+t.Name() })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead id's cgroup %s is still there (removed %q)", dead, removed)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the live id's cgroup %s was removed: %v", kept, err)
	}
}

func quiet(t *testing.T) nsjail.Options {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { null.Close() })
	return nsjail.Options{Stdin: null, Stdout: null, Stderr: null}
}

// sandboxCgroupParent is the first cgroup where this process's sandbox
// cgroups go, or a skip where there is none.
func sandboxCgroupParent(t *testing.T) string {
	ps := nsjail.SandboxCgroupParents()
	if len(ps) == 0 {
		t.Skip("no cgroup hierarchy for sandbox cgroups here")
	}
	return ps[0]
}
