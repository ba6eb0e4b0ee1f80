package docker

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// Backend is the docker backend behind backend.Backend. The zero value
// is ready to use.
type Backend struct {
	// Exe is the static acbox binary bound into the container as its init;
	// empty: this process's own executable.
	Exe string
	// RunDir is where the start gate's private directory is made when the
	// launch names no run directory (LaunchIO.RunDir, which wins, so that
	// the registry's gc removes a gate left by a killed acbox); empty:
	// os.TempDir(). The Docker daemon must see it at the same path.
	RunDir string
	// Hooks are test seams; all nil in production.
	Hooks Hooks
	// Warn receives non-fatal problems (an orphan that could not be
	// removed); nil: standard error.
	Warn func(string)
	// goos is the system the backend takes itself to run on; empty:
	// runtime.GOOS. Tests set it to see the refusal off Linux (host.go).
	goos string
}

// Hooks let tests tamper with a launch at the points where an attacker
// could, to show that the checks catch it.
type Hooks struct {
	// BeforeCreate may change the create request after it is built.
	BeforeCreate func(*engine.Config, *engine.HostConfig)
	// BeforeStart runs after the created container passed inspection.
	BeforeStart func()
	// AfterRelease runs once the member's start is released, before the
	// parent supervises it (signals, stdin).
	AfterRelease func()
	// DaemonPid replaces the container's pid 1 as the daemon reports it,
	// as a daemon in another pid namespace would number it.
	DaemonPid func(pid int) int
}

// Name implements backend.Backend.
func (Backend) Name() string { return "docker" }

// StartTimeout bounds the time from start to the init asking the gate.
const StartTimeout = 30 * time.Second

// Launch implements backend.Backend: it creates the hardened container,
// checks it, starts it, verifies every mounted bind through the start
// gate, releases the member, relays its streams and returns its exit. On
// every path out the container is removed.
func (b Backend) Launch(p *policy.Plan, lio backend.LaunchIO) (*backend.Outcome, error) {
	begin := time.Now()
	// Caught from the start, so a signal sent during setup cannot kill
	// acbox with its default action and orphan the container; supervise
	// passes held signals on once the member is released.
	if lio.Signals == nil {
		sigs := make(chan os.Signal, 16)
		signal.Notify(sigs, forwarded...)
		defer signal.Stop(sigs)
		lio.Signals = sigs
	}
	if err := b.hostSupport(); err != nil {
		return nil, err
	}
	if err := backend.Refuse(b, p); err != nil {
		return nil, err
	}
	ctx := context.Background()
	c, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := removeOrphans(ctx, c, self(), nil); err != nil {
		b.warn("acbox: " + err.Error())
	}
	l, err := b.prepare(ctx, c, p, lio)
	if err != nil {
		return nil, err
	}
	defer l.close()
	l.begin = begin
	return l.run(ctx)
}

// prepare checks the daemon and image, opens the gate and holds every bind
// source open, in that order, before anything is created. The plan was
// checked against Lacks already.
func (b Backend) prepare(ctx context.Context, c *engine.Client, p *policy.Plan, lio backend.LaunchIO) (*launch, error) {
	if err := checkDaemon(ctx, c); err != nil {
		return nil, err
	}
	image := p.Image
	if image == "" {
		image = DefaultImage
	}
	if err := checkImage(ctx, c, image); err != nil {
		return nil, err
	}
	exe, err := b.exe(p)
	if err != nil {
		return nil, err
	}
	proxy, err := proxySocket(p, lio.ProxySocket)
	if err != nil {
		return nil, err
	}
	g, err := newGate(b.runDir(lio))
	if err != nil {
		return nil, err
	}
	if lio.ID == "" {
		lio.ID = backend.NewID()
	}
	s := newSetup(p, lio.ID, image, exe, g.dir, proxy, g.token, self())
	rootOnly, err := hostRootOnlyProc()
	if err != nil {
		g.close()
		return nil, err
	}
	s.masked = append(s.masked, rootOnly...)
	h, err := holdSources(s)
	if err != nil {
		g.close()
		return nil, err
	}
	return &launch{b: b, c: c, s: s, gate: g, held: h, io: withStreams(lio), sigs: lio.Signals}, nil
}

// exe is the acbox binary to bind. It must not lie inside one of this
// plan's write grants, where the member could replace the init of the
// next container.
func (b Backend) exe(p *policy.Plan) (string, error) {
	exe := b.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("%w: find the acbox binary: %w", policy.ErrCannotSandbox, err)
		}
	}
	exe, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", fmt.Errorf("%w: acbox binary: %w", policy.ErrCannotSandbox, err)
	}
	for _, w := range p.WriteGrants() {
		if exe == w || strings.HasPrefix(exe, w+"/") {
			return "", &policy.RefusedError{Subject: exe, Why: "the acbox binary lies inside the write grant " + w + ", where the member could replace it", Instead: "install acbox outside the grant"}
		}
	}
	return exe, nil
}

// proxySocket is the egress proxy's socket, resolved, in proxy mode (the
// host network is refused by Lacks).
func proxySocket(p *policy.Plan, sock string) (string, error) {
	if p.Network.Mode != "proxy" {
		return "", nil
	}
	if sock == "" {
		return "", fmt.Errorf("%w: proxy mode needs the egress proxy's socket", policy.ErrCannotSandbox)
	}
	real, err := filepath.EvalSymlinks(sock)
	if err != nil {
		return "", fmt.Errorf("%w: egress proxy socket: %w", policy.ErrCannotSandbox, err)
	}
	return real, nil
}

func (b Backend) runDir(lio backend.LaunchIO) string {
	if lio.RunDir != "" {
		return lio.RunDir
	}
	if b.RunDir != "" {
		return b.RunDir
	}
	return os.TempDir()
}

func (b Backend) warn(msg string) {
	if b.Warn != nil {
		b.Warn(msg)
		return
	}
	fmt.Fprintln(policy.MessageWriter(os.Stderr), msg)
}

func withStreams(io backend.LaunchIO) backend.LaunchIO {
	if io.Stdin == nil {
		io.Stdin = os.Stdin
	}
	if io.Stdout == nil {
		io.Stdout = os.Stdout
	}
	if io.Stderr == nil {
		io.Stderr = os.Stderr
	}
	return io
}

// Available implements backend.Backend: the daemon is reachable,
// permitted, rootful without user-namespace remapping and recent enough,
// and the default image is present and declares no volumes or ports (see
// Probe). Why is the check's error, which names the next step. Off Linux
// it never is (host.go).
func (b Backend) Available(ctx context.Context) backend.Availability {
	if b.hostSupport() != nil {
		return backend.Availability{Backend: b.Name(), Why: needsLinuxProc, Remedy: runOnLinux}
	}
	st := Probe(ctx, "")
	return backend.Availability{Backend: b.Name(), Available: st.Available, Why: st.Reason, Remedy: st.Remedy}
}

// Live implements backend.Backend: the ids of the acbox containers on this
// host whose owner is alive, whoever started them (see LiveSandboxes).
func (Backend) Live(ctx context.Context) ([]string, error) { return LiveSandboxes(ctx) }

// Cleanup implements backend.Backend: it removes the acbox containers whose
// owning acbox is gone (see RemoveOrphans), sparing those whose id live
// reports (nil live spares none), and names each "container NAME". On a
// host without docker (no socket, no docker binary) there is nothing to
// clean and no error.
func (Backend) Cleanup(ctx context.Context, live func(id string) bool) ([]string, error) {
	c, err := connect(ctx)
	if notInstalled(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	names, err := removeOrphans(ctx, c, self(), live)
	for i, n := range names {
		names[i] = "container " + n // as gc prints it
	}
	return names, err
}
