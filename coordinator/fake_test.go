package coordinator

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/coordinator/sys"
)

// The fake backends report the test process as the sandbox's pid 1, and
// the test itself talks to the broker: its own pid namespace is the
// sandbox's here (peers.go refuses that outside tests).
func init() { sandboxNS = sys.PidNSOf }

// journal records what the fakes saw, in order, shared by all of them.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, s)
}

func (j *journal) has(s string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, l := range j.lines {
		if l == s {
			return true
		}
	}
	return false
}

// fakeBackend implements backend.Backend: it records its calls and
// returns scripted answers.
type fakeBackend struct {
	name      string
	avail     bool
	lacks     []string
	live      []string
	liveErr   error
	cleaned   []string // what Cleanup reports removed
	cleanErr  error
	ready     bool  // call OnReady before returning
	launchErr error // Launch's error
	code      int
	during    func(p *policy.Plan, io backend.LaunchIO) // runs inside Launch
	onLive    func()                                    // runs inside Live (admission)
	started   func(id string) backend.Started           // what OnReady gets; nil: this process as pid 1
	j         *journal
	mu        sync.Mutex
	plans     []*policy.Plan
	planJSON  []string
}

func (f *fakeBackend) Name() string { return f.name }

func (f *fakeBackend) Available(ctx context.Context) backend.Availability {
	f.j.add(f.name + ".available")
	return backend.Availability{Backend: f.name, Available: f.avail}
}

func (f *fakeBackend) Lacks(p *policy.Plan) []string { return f.lacks }

func (f *fakeBackend) Live(ctx context.Context) ([]string, error) {
	if f.onLive != nil {
		f.onLive()
	}
	return f.live, f.liveErr
}

func (f *fakeBackend) Cleanup(ctx context.Context, live func(string) bool) ([]string, error) {
	f.j.add(f.name + ".cleanup")
	return f.cleaned, f.cleanErr
}

func (f *fakeBackend) Launch(p *policy.Plan, io backend.LaunchIO) (*backend.Outcome, error) {
	f.mu.Lock()
	f.plans = append(f.plans, p)
	f.planJSON = append(f.planJSON, string(p.JSON()))
	f.mu.Unlock()
	f.j.add(f.name + ".launch")
	if f.ready {
		st := backend.Started{ID: io.ID, Pid: os.Getpid(), Report: &policy.Report{}}
		if f.started != nil {
			st = f.started(io.ID)
		}
		io.OnReady(st)
	}
	if f.during != nil {
		f.during(p, io)
	}
	if f.launchErr != nil {
		return nil, f.launchErr
	}
	return &backend.Outcome{Code: f.code, Report: &policy.Report{}}, nil
}

// fakeProxies is a ProxyFactory whose proxies record their stop, and
// check at that moment that what was acquired before them is still held.
type fakeProxies struct {
	j      *journal
	err    error
	check  func()  // runs in Stop
	events *Events // what the last Start was given
}

type fakeProxy struct{ p *fakeProxies }

func (f *fakeProxies) Start(plan *policy.Plan, id, dir string, events *Events, peers Peers) (Proxy, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.j.add("proxy.start")
	f.events = events
	return fakeProxy{f}, nil
}

func (p fakeProxy) Socket() string { return "/nonexistent/proxy.sock" }

func (p fakeProxy) Stop() {
	if p.p.check != nil {
		p.p.check()
	}
	p.p.j.add("proxy.stop")
}

// fakeChecks are the checks after the run, scripted.
type fakeChecks struct {
	j        *journal
	beginErr error
	gitErr   error
	finErr   error
	moved    []string
}

type fakeScan struct{ c *fakeChecks }
type fakeGit struct{ c *fakeChecks }

func (c *fakeChecks) BeginScan(p *policy.Plan, full bool) (ScanCheck, error) {
	c.j.add("scan.begin")
	if c.beginErr != nil {
		return nil, c.beginErr
	}
	return fakeScan{c}, nil
}

func (c *fakeChecks) WatchGit(p *policy.Plan) (GitCheck, error) {
	c.j.add("git.watch")
	if c.gitErr != nil {
		return nil, c.gitErr
	}
	return fakeGit{c}, nil
}

func (s fakeScan) Finish(errw io.Writer, moved []string) (*exitscan.ExitScan, error) {
	s.c.j.add("scan.finish")
	return &exitscan.ExitScan{GitRedirects: moved}, s.c.finErr
}

func (g fakeGit) Quarantine(errw io.Writer) ([]string, error) {
	g.c.j.add("git.quarantine")
	return g.c.moved, nil
}

// rig is one launcher with fakes around it and a temporary state dir.
type rig struct {
	l       *Launcher
	native  *fakeBackend
	docker  *fakeBackend
	proxies *fakeProxies
	checks  *fakeChecks
	events  *bytes.Buffer
	j       *journal
	stdio   Stdio
}

func newRig(t *testing.T) *rig {
	t.Helper()
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	h.StateDir = t.TempDir()
	os.Chmod(h.StateDir, 0o700)
	h.Cwd = "/"
	reg, err := registry.OpenRegistry(h.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{}
	r := &rig{j: j, events: &bytes.Buffer{},
		native:  &fakeBackend{name: "native", avail: true, ready: true, j: j},
		docker:  &fakeBackend{name: "docker", avail: true, ready: true, j: j},
		proxies: &fakeProxies{j: j}, checks: &fakeChecks{j: j}}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { null.Close() })
	r.stdio = Stdio{null, null, null}
	r.l = &Launcher{Host: h, Registry: reg, Backends: []backend.Backend{r.native, r.docker},
		Proxies: r.proxies, Events: NewEvents(syncWriter{w: r.events}), Checks: r.checks,
		NewID: func() string { return "sandbox1" }}
	return r
}

// syncWriter serializes writes (the broker's children emit from their
// own goroutines).
type syncWriter struct{ w io.Writer }

var eventsMu sync.Mutex

func (s syncWriter) Write(b []byte) (int, error) {
	eventsMu.Lock()
	defer eventsMu.Unlock()
	return s.w.Write(b)
}

func (r *rig) run(t *testing.T, spec policy.Spec) (*Result, error) {
	t.Helper()
	if spec.Command == nil {
		spec.Command = []string{"true"}
	}
	return r.l.Run(context.Background(), Request{Spec: spec, Stdio: r.stdio})
}

// gone checks that the launch left nothing: no run directory, no entry.
func (r *rig) gone(t *testing.T, id string) {
	t.Helper()
	if _, err := os.Stat(r.l.Registry.RunDir(id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run directory of %s left behind: %v", id, err)
	}
	if _, err := r.l.Registry.Get(id); !errors.Is(err, registry.ErrNoSandbox) {
		t.Errorf("registry entry of %s left behind: %v", id, err)
	}
}
