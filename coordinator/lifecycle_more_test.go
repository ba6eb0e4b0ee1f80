package coordinator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/egress"
	"golang.org/x/sys/unix"
)

// TestGuardChecks: the product's checks after the run, on a real write
// grant: a set-id file the "member" left is named and its bits cleared,
// and a plan without a protected repository has nothing to quarantine.
func TestGuardChecks(t *testing.T) {
	dir := t.TempDir()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	plan := &policy.Plan{Backend: "native", Grants: []policy.Grant{{Path: dir, Write: true, Dev: uint64(st.Dev), Ino: st.Ino}}} // Dev is int32 on macOS
	scan, err := GuardChecks{}.BeginScan(plan, true)
	if err != nil {
		t.Fatal(err)
	}
	git, err := GuardChecks{}.WatchGit(plan)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "planted")
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	moved, err := git.Quarantine(&bytes.Buffer{})
	if err != nil || len(moved) != 0 {
		t.Fatalf("quarantine without a repository: %v %v", moved, err)
	}
	var errw bytes.Buffer
	es, err := scan.Finish(&errw, []string{"/x/.git"})
	if err != nil {
		t.Fatalf("finish: %v", err)
	}
	if !slices.Contains(es.NewSetuid, f) || !slices.Contains(es.GitRedirects, "/x/.git") {
		t.Errorf("scan %+v: want %s among new set-id files and the git redirect listed", es, f)
	}
	if fi, err := os.Stat(f); err != nil || fi.Mode()&os.ModeSetuid != 0 {
		t.Errorf("the set-id bit was not cleared: %v %v", fi.Mode(), err)
	}
	if !strings.Contains(errw.String(), f) {
		t.Errorf("the finding was not named on the member's stderr: %q", errw.String())
	}
}

// TestDecisionsAreEgressEvents: each proxy decision becomes one egress
// event with the sandbox's id.
func TestDecisionsAreEgressEvents(t *testing.T) {
	var buf bytes.Buffer
	decisions(NewEvents(&buf), "sb1")(egress.Decision{Allowed: false, Host: "blocked.invalid", Port: 443, Reason: "not allowed"})
	got := buf.String()
	for _, want := range []string{`"event":"egress"`, `"id":"sb1"`, `"allowed":false`, `"host":"blocked.invalid"`, `"port":443`} {
		if !strings.Contains(got, want) {
			t.Errorf("event %s lacks %s", got, want)
		}
	}
	decisions(nil, "sb1")(egress.Decision{Allowed: true}) // no events: no panic
	if NewEvents(nil) != nil {
		t.Error("NewEvents(nil) is not nil")
	}
}

// TestInheritLimits: a child asking for nothing gets its requester's limit
// where that is below the default; what it asks for is left to Narrower.
func TestInheritLimits(t *testing.T) {
	small := policy.Limits{Memory: 256 << 20, Pids: 64}
	big := policy.Limits{Memory: policy.DefaultMemory * 2, Pids: policy.DefaultPids * 2}
	for _, c := range []struct {
		name    string
		asked   policy.LimitsSpec
		parent  policy.Limits
		wantMem string
		wantPid int
	}{
		{"nothing asked, small parent", policy.LimitsSpec{}, small, strconv.FormatInt(256<<20, 10), 64},
		{"nothing asked, big parent", policy.LimitsSpec{}, big, "", 0},
		{"asked kept", policy.LimitsSpec{Memory: "1g", Pids: 9}, small, "1g", 9},
	} {
		asked := c.asked
		inheritLimits(&asked, c.parent)
		if asked.Memory != c.wantMem || asked.Pids != c.wantPid {
			t.Errorf("%s: got %q/%d, want %q/%d", c.name, asked.Memory, asked.Pids, c.wantMem, c.wantPid)
		}
	}
}

// TestBrokerCheckPlacement: the broker refuses a child deeper than
// allowed, and one its handler did not place under this sandbox.
func TestBrokerCheckPlacement(t *testing.T) {
	parent := &policy.Plan{Depth: policy.MaxDelegationDepth - 1}
	b := &broker{id: "p1", parent: parent}
	deep := &policy.Plan{Parent: "p1", Depth: policy.MaxDelegationDepth, Delegate: true}
	if err := b.check(deep); !errors.Is(err, policy.ErrRefused) {
		t.Errorf("a delegating child at the depth limit: %v, want a refusal", err)
	}
	stray := &policy.Plan{Parent: "other", Depth: parent.Depth + 1}
	if err := b.check(stray); !errors.Is(err, policy.ErrCannotSandbox) {
		t.Errorf("a child placed under another sandbox: %v", err)
	}
	if (&BrokerError{Msg: "refused: x", Code: 125}).Error() != "refused: x" {
		t.Error("BrokerError does not print its message")
	}
}

// TestRunRefusalsBeforeAnything: a state directory that cannot hold the
// run directory a delegating launch needs, an unknown backend and a
// resolving check that refuses each end the launch before any backend is
// asked, leaving nothing.
func TestRunRefusalsBeforeAnything(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(t *testing.T, r *rig, s *policy.Spec)
		want error
	}{
		{"state dir is a file", func(t *testing.T, r *rig, s *policy.Spec) {
			f := filepath.Join(t.TempDir(), "file")
			os.WriteFile(f, nil, 0o600)
			r.l.Host.StateDir = f
			s.Delegate = true
		}, policy.ErrCannotSandbox},
		{"backend not in this build", func(t *testing.T, r *rig, s *policy.Spec) { r.l.Backends = r.l.Backends[:1]; s.Backend = "docker" }, policy.ErrCannotSandbox},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			spec := policy.Spec{Command: []string{"true"}}
			c.set(t, r, &spec)
			if _, err := r.run(t, spec); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
			if r.j.has("native.launch") || r.j.has("docker.launch") {
				t.Errorf("a backend was asked to launch: %v", r.j.lines)
			}
		})
	}
}

// TestResolveAppliesCheck: Launcher.Resolve is what acbox plan prints:
// the backend chosen, the spec resolved, the check applied.
func TestResolveAppliesCheck(t *testing.T) {
	r := newRig(t)
	r.native.avail = false
	p, err := r.l.Resolve(context.Background(), policy.Spec{Backend: "auto", Command: []string{"true"}}, nil)
	if err != nil || p.Backend != "docker" {
		t.Fatalf("auto with native unavailable: %v %v", p, err)
	}
	no := errors.New("narrower, please")
	if _, err := r.l.Resolve(context.Background(), policy.Spec{Command: []string{"true"}}, func(*policy.Plan) error { return no }); !errors.Is(err, no) {
		t.Fatalf("the check's refusal was lost: %v", err)
	}
	if (&Launcher{}).proxies() == nil {
		t.Error("a launcher without a proxy factory has none")
	}
}

// TestAdmitWaiting: with the cap full, a launch with a wait says once on
// its stderr that it waits, runs as soon as the slot frees, and gives up
// with a refusal naming the wait when none frees in time; its ticket is
// gone either way.
func TestAdmitWaiting(t *testing.T) {
	for _, frees := range []bool{true, false} {
		t.Run(fmt.Sprint("frees=", frees), func(t *testing.T) {
			r := newRig(t)
			r.l.Host.MaxSandboxes = 1
			holder, err := registry.NewEntry(&policy.Plan{Backend: "native", Limits: policy.Limits{Memory: 1 << 30, Pids: 64}}, "holder")
			if err != nil {
				t.Fatal(err)
			}
			if err := r.l.Registry.Register(holder); err != nil {
				t.Fatal(err)
			}
			if frees {
				go func() { time.Sleep(300 * time.Millisecond); r.l.Registry.Remove("holder") }()
			}
			errf, err := os.CreateTemp(t.TempDir(), "stderr")
			if err != nil {
				t.Fatal(err)
			}
			r.stdio.Err = errf
			_, err = r.run(t, policy.Spec{Wait: "1500ms"})
			said, _ := os.ReadFile(errf.Name())
			if !strings.Contains(string(said), "waiting up to 1.5s for a sandbox slot") {
				t.Errorf("stderr %q: want the one line saying it waits", said)
			}
			switch {
			case frees && (err != nil || !r.j.has("native.launch")):
				t.Errorf("the slot freed, the launch did not run: %v", err)
			case !frees && (!errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), "waited 1.5s")):
				t.Errorf("no slot freed: %v, want a refusal naming the wait", err)
			}
			if ts, _ := os.ReadDir(filepath.Join(r.l.Host.StateDir, "queue")); len(ts) != 0 {
				t.Errorf("tickets left: %v", ts)
			}
		})
	}
}

// TestStatusFile: --status-fd must name a descriptor open for writing.
// A refused descriptor stays the caller's: StatusFile used to wrap it in an
// *os.File first, whose finalizer closed it at a later collection (the
// cmd/acbox tests then saw EBADF writing an unrelated file that had
// reused the number).
func TestStatusFile(t *testing.T) {
	own := func(f *os.File) int {
		fd, err := unix.Dup(int(f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		return fd
	}
	ro, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := StatusFile(int(ro.Fd())); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "not open for writing") {
		t.Errorf("read-only descriptor: %v", err)
	}
	runtime.GC()
	runtime.GC()
	if _, err := unix.FcntlInt(ro.Fd(), unix.F_GETFD, 0); err != nil {
		t.Errorf("the refused descriptor was closed behind the caller's back: %v", err)
	}
	rw, err := os.CreateTemp(t.TempDir(), "events")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if f, err := StatusFile(own(rw)); err != nil {
		t.Errorf("writable descriptor refused: %v", err)
	} else {
		f.Close()
	}
	if _, err := StatusFile(987654); !errors.Is(err, policy.ErrInvalid) {
		t.Errorf("closed descriptor: %v", err)
	}
	e := &BrokerError{Msg: "m", Field: "access.read[0]", Remedy: "grant less"}
	if e.FieldPath() != "access.read[0]" || e.NextStep() != "grant less" {
		t.Errorf("broker error parts: %q %q", e.FieldPath(), e.NextStep())
	}
	in := &Interrupted{Signal: syscall.SIGTERM}
	if in.ExitStatus() != 143 || !strings.Contains(in.Error(), "nothing was started") {
		t.Errorf("interrupted: %d %q", in.ExitStatus(), in.Error())
	}
}
