package coordinator

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/homes"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestPersistedHomeLocked: a launch with a persisted home makes it before
// the exit scan begins and holds its lock from then until its checks
// after the run are done (the proxy stops after them), so a second run
// with the same home is refused throughout; once the launch has returned
// the home is free again.
func TestPersistedHomeLocked(t *testing.T) {
	r := newRig(t)
	home, _ := filepath.EvalSymlinks(t.TempDir())
	r.l.Host.Home = home
	want := &policy.PersistedHome{Name: "go", Path: filepath.Join(home, ".local", "state", "acbox", "homes", "go")}
	tryAcquire := func(when string) {
		release, err := homes.Acquire(want, os.Getuid())
		if err == nil {
			release()
			t.Errorf("%s: a second run took the home", when)
		} else if !errors.Is(err, policy.ErrRefused) {
			t.Errorf("%s: %v", when, err)
		}
	}
	r.native.during = func(p *policy.Plan, _ backend.LaunchIO) {
		if p.PersistedHome == nil || *p.PersistedHome != *want {
			t.Errorf("plan's home %+v, want %+v", p.PersistedHome, want)
		}
		if fi, err := os.Lstat(want.Path); err != nil || !fi.IsDir() {
			t.Errorf("home not made before the launch: %v", err)
		}
		tryAcquire("during the run")
	}
	r.proxies.check = func() { tryAcquire("after the checks after the run") }
	if _, err := r.run(t, policy.Spec{Home: "go", Access: policy.Access{Network: policy.NetworkSpec{Mode: "proxy"}}}); err != nil {
		t.Fatal(err)
	}
	release, err := homes.Acquire(want, os.Getuid())
	if err != nil {
		t.Fatalf("after the launch: %v", err)
	}
	release()
}
