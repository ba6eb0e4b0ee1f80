package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/homes"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// Launcher runs launch specs in sandboxes. Its fields are its
// collaborators; set them once and use the launcher from any number of
// goroutines (the broker runs nested launches through the same one).
type Launcher struct {
	// Host is the user and machine the plans are resolved for.
	Host policy.Host
	// Registry is the host registry at Host.StateDir (admission, ps, stop).
	Registry *registry.Registry
	// Backends are the backends a spec may name; "auto" picks "native"
	// when it says it is available, else "docker".
	Backends []backend.Backend
	// Proxies starts a plan's egress proxy; nil: EgressProxies{}.
	Proxies ProxyFactory
	// Events receives the started, egress and exited events; nil: none.
	Events *Events
	// Checks are the checks after the run; nil: none.
	Checks Checks
	// Exe is the acbox binary mounted into delegating sandboxes; empty:
	// this process's executable.
	Exe string
	// NewID names a sandbox; nil: backend.NewID (12 random hex digits).
	NewID func() string
}

// Stdio are the member's standard streams.
type Stdio struct{ In, Out, Err *os.File }

// Request is one launch.
type Request struct {
	Spec  policy.Spec
	Stdio Stdio
	// Check narrows the plan (a profile's check, the broker's); nil: none.
	Check func(*policy.Plan) error
	// Report asks for the full exit scan (a walk before the run as well).
	Report bool
	// Signals are signals for this launch alone (a nested client's,
	// through the broker): from when the launch holds the signals of the
	// process until it releases them, they are passed on to the member as
	// those are; nil: none.
	Signals <-chan os.Signal
}

// Result is what a launch that got as far as starting the member
// returns: the outcome (nil when the backend failed) and the exit scan.
type Result struct {
	*backend.Outcome
	// Scan is the report's exit_scan section (see Checks), nil without.
	Scan *exitscan.ExitScan
}

// Run resolves the request's spec and runs it: a private run directory
// for the sandbox's sockets, the broker when it may delegate, the backend
// choice, the plan and its narrowing, the exit scan's first step,
// admission, the egress proxy, the git guard, the backend, and the
// started and exited events. With an error, the Result may still hold the
// exit scan: the member ran. Every step's teardown is on one cleanup
// stack, undone in reverse on every way out.
func (l *Launcher) Run(ctx context.Context, req Request) (*Result, error) {
	id := l.newID()
	var c Cleanup
	defer c.Clean()
	dir := newRunDir(l.Host.StateDir, id)
	c.Add(dir.remove)
	spec := req.Spec
	peers := newSandboxPeers() // peers.go: who may use the sandbox's sockets
	c.Add(peers.end)
	var br *broker
	if spec.Delegate {
		var err error
		if br, err = l.delegate(&spec, id, dir, peers); err != nil {
			return nil, err
		}
		c.Add(br.stop)
	}
	plan, err := l.Resolve(ctx, spec, req.Check)
	if err == nil && plan.TTY {
		err = needTerminal(req.Stdio.In)
	}
	if err == nil {
		err = acquireHome(&c, plan)
	}
	var scan ScanCheck
	if err == nil && l.Checks != nil {
		scan, err = l.Checks.BeginScan(plan, req.Report)
	}
	if err != nil {
		return nil, err
	}
	var requester []int
	if plan.Within {
		if requester, err = l.pinRequester(plan.Parent); err != nil {
			return nil, err
		}
		c.Add(func() { closeAll(requester) })
	}
	if br != nil {
		go br.serve(plan)
	}
	r, err := l.launch(ctx, &c, plan, req, id, sockets{dir, br, peers}, scan, requester)
	return r, withID(id, err)
}

// acquireHome makes, checks and locks the plan's persisted home, if any,
// before the exit scan begins (it walks the home) and until the cleanup
// stack unwinds, after the checks after the run: the next run with the
// same home never sees one half checked.
func acquireHome(c *Cleanup, plan *policy.Plan) error {
	if plan.PersistedHome == nil {
		return nil
	}
	release, err := homes.Acquire(plan.PersistedHome, plan.UID)
	if err != nil {
		return err
	}
	c.Add(release)
	return nil
}

// sockets are what a sandbox keeps in its run directory, and who may use
// them.
type sockets struct {
	dir   *runDir
	br    *broker // nil without delegation
	peers *sandboxPeers
}

// launch runs one plan on its backend with this sandbox's proxy. Once the
// backend has been asked to start the member, what follows (afterRun)
// happens on every way out: the member's exit, a failed launch, a signal
// to acbox (held meanwhile), a broker whose requests hang.
func (l *Launcher) launch(ctx context.Context, c *Cleanup, plan *policy.Plan, req Request, id string, so sockets, scan ScanCheck, requester []int) (*Result, error) {
	io := req.Stdio
	// acbox's own lines on the member's stderr (the user's terminal, or a
	// requester's) pass through policy.MessageWriter; the member's output
	// goes to io.Err itself.
	msgs := policy.MessageWriter(io.Err)
	dir, br := so.dir, so.br
	b, err := l.backendFor(plan)
	if err != nil {
		return nil, err
	}
	release, entry, err := l.admit(ctx, plan, b, id, msgs)
	if err != nil {
		return nil, err
	}
	c.Add(release)
	// The proxy's events wait for started (Events.Held), which comes with
	// OnReady, or, if the launch fails before it, for the backend's return.
	egressEvents := l.Events.Held()
	c.Add(egressEvents.Open)
	if plan.Network.Mode == "proxy" {
		if err := dir.make(); err != nil {
			return nil, err
		}
	}
	proxy, err := l.proxies().Start(plan, id, dir.path, egressEvents, so.proxyPeers(plan))
	if err != nil {
		return nil, err
	}
	socket := ""
	if proxy != nil {
		c.Add(proxy.Stop)
		socket = proxy.Socket()
	}
	var git GitCheck
	if l.Checks != nil {
		if git, err = l.Checks.WatchGit(plan); err != nil {
			return nil, err
		}
	}
	io = guardTerminals(c, plan, io, msgs) // termguard.go: the member may change or read a terminal it is handed
	held := holdSignals(msgs)
	c.Add(held.release)
	held.relay(req.Signals)
	// The watch ends with the sandbox: the checks after the run are not
	// cut short by a requester that ends meanwhile.
	var sandbox sandboxPin                                                // its pid 1, for a stop that must not skip the checks
	unwatch := watchRequester(requester, msgs, plan.Parent, id, &sandbox) // within_watch.go
	out, err := b.Launch(plan, backend.LaunchIO{ID: id, Stdin: io.In, Stdout: io.Out, Stderr: io.Err, ProxySocket: socket, RunDir: dir.path,
		OnReady: func(st backend.Started) {
			so.bind(plan, st)
			sandbox.set(st)
			l.started(plan, st, &sandbox, entry)
			egressEvents.Open()
		}, Signals: held.signals()})
	unwatch()
	sandbox.close()
	held.ended()
	egressEvents.Open()
	// The sandboxes launched --within this one end with its member (their
	// own watch) and run their checks; this one's checks come after them.
	werr := l.endWithin(id, msgs) // within_end.go
	r, ferr := l.finish(msgs, br, git, scan, id, out, err)
	if werr != nil {
		ferr = errors.Join(werr, ferr)
	}
	return r, ferr
}

// started records the sandbox's pid 1 in its registry entry, when the
// backend gave one and it is pinned (a docker daemon in another pid
// namespace gives none: acbox stop then ends the container through the
// backend), and emits the started event. e is the entry as admission
// wrote it: only this process writes it, so it is not read back.
func (l *Launcher) started(plan *policy.Plan, st backend.Started, pin *sandboxPin, e registry.Entry) {
	if start, ok := pin.start(st.Pid); ok && l.Registry != nil {
		e.HelperPid, e.HelperStart = st.Pid, start
		l.Registry.Replace(e)
	}
	if l.Events == nil {
		return // nothing listens: the event's access and report digest (reflective JSON) would be thrown away
	}
	l.Events.Emit(Event{Event: "started", ID: st.ID, Backend: plan.Backend, Pid: st.Pid,
		Access: json.RawMessage(plan.Access(true)), Report: st.Report.Digest()})
}

// finish runs the checks after the run, also after a failed launch (the
// member may have run), and emits the exited event, with the exit scan,
// whenever the backend reported how the member ended.
func (l *Launcher) finish(errw io.Writer, br *broker, git GitCheck, scan ScanCheck, id string, out *backend.Outcome, err error) (*Result, error) {
	r, moved, aerr := afterRun(errw, br, git, scan)
	r.Outcome = out
	if out != nil {
		// The member ran: its outcome comes first, also when a check after
		// the run then fails (124), so a client sees how the member ended.
		out.GitRedirects = moved
		code := out.Code
		l.Events.Emit(Event{Event: "exited", ID: id, Code: &code, Signal: out.Signal, DurationMS: out.Duration.Milliseconds(), ExitScan: r.Scan})
	}
	if aerr != nil {
		if err != nil {
			return r, fmt.Errorf("%w\nacbox: the launch had failed too: %w", aerr, err)
		}
		return r, aerr
	}
	return r, err
}

func (l *Launcher) newID() string {
	if l.NewID != nil {
		return l.NewID()
	}
	return backend.NewID()
}

func (l *Launcher) proxies() ProxyFactory {
	if l.Proxies == nil {
		return EgressProxies{}
	}
	return l.Proxies
}
