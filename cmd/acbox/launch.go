package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// stdio are the member's standard streams.
type stdio struct{ in, out, err *os.File }

// ran is what a launch that got as far as starting the member returns:
// the outcome (nil when the backend failed) and the exit scan.
type ran struct {
	*backend.Outcome
	Scan  *ExitScan
	moved []string // what the git check moved aside
}

// runSpec resolves a spec and runs it: a private run directory for the
// sandbox's sockets, the broker when it may delegate, the plan, check (a
// profile's or the broker's narrowing; nil for none), the exit scan's
// first step (scan.go; full with --report), admission, the egress proxy,
// the backend, and the started and exited events. With an error, ran may
// still hold the exit scan: the member ran.
func runSpec(spec policy.Spec, host policy.Host, events *policy.Events, io stdio, check func(*policy.Plan) error, report bool) (*ran, error) {
	id := backend.NewID()
	dir, err := makeRunDir(host.StateDir, id)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var br *broker
	if spec.Delegate {
		if br, err = delegate(&spec, id, dir, host, events); err != nil {
			return nil, err
		}
		defer br.stop()
	}
	spec.Backend = chooseBackend(spec.Backend)
	plan, err := policy.Resolve(spec, host)
	if err == nil && check != nil {
		err = check(plan)
	}
	scan := &exitScan{full: report}
	if err == nil {
		err = scan.begin(plan)
	}
	if err != nil {
		return nil, err
	}
	if br != nil {
		go br.serve(plan)
	}
	return launch(plan, host, events, io, id, dir, br, scan)
}

// delegate starts the broker and adds the two runtime mounts a delegating
// member needs: this binary and the broker's socket.
func delegate(spec *policy.Spec, id, dir string, host policy.Host, events *policy.Events) (*broker, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find the acbox binary to mount for delegation: %v", policy.ErrCannotSandbox, err)
	}
	br, err := startBroker(id, dir, host, events)
	if err != nil {
		return nil, err
	}
	spec.Mounts = append(spec.Mounts,
		policy.MountSpec{Source: exe, Target: policy.DelegateBin, Internal: true},
		policy.MountSpec{Source: br.path, Target: policy.DelegateSocket, Readonly: policy.RW(true), Internal: true})
	return br, nil
}

// makeRunDir creates StateDir/run/ID, 0700 with 0700 parents.
func makeRunDir(state, id string) (string, error) {
	dir := filepath.Join(state, "run", id)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("%w: state directory: %v", policy.ErrCannotSandbox, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: run directory: %v", policy.ErrCannotSandbox, err)
	}
	return dir, nil
}

// launch runs one plan on its backend with this sandbox's proxy. Once the
// backend has been asked to start the member, what follows (afterRun)
// happens on every way out: the member's exit, a failed launch, a signal
// to acbox (held meanwhile), a broker whose requests hang.
func launch(plan *policy.Plan, host policy.Host, events *policy.Events, io stdio, id, dir string, br *broker, scan *exitScan) (*ran, error) {
	b, err := backendFor(plan.Backend)
	if err != nil {
		return nil, err
	}
	plan.Backend = b.Name()
	release, err := admit(plan, host, id)
	if err != nil {
		return nil, err
	}
	defer release()
	proxy, err := startProxy(plan, id, dir, events)
	if err != nil {
		return nil, err
	}
	defer proxy.stop()
	watch, err := watchGitRedirects(plan)
	if err != nil {
		return nil, err
	}
	held := holdSignals(io.err)
	defer held.release()
	out, err := b.Launch(plan, backend.LaunchIO{ID: id, Stdin: io.in, Stdout: io.out, Stderr: io.err, ProxySocket: proxy.socket(), RunDir: dir,
		OnReady: func(st backend.Started) {
			recordHelper(st.ID, st.Pid)
			events.Emit(policy.Event{Event: "started", ID: st.ID, Backend: plan.Backend, Pid: st.Pid,
				Access: json.RawMessage(plan.Access(true)), Report: st.Report.Digest()})
		}})
	held.ended()
	r, aerr := afterRun(io.err, br, watch, scan) // also after a failed launch: the member may have run
	r.Outcome = out
	if aerr != nil {
		if err != nil {
			return r, fmt.Errorf("%w\nacbox: the launch had failed too: %v", aerr, err)
		}
		return r, aerr
	}
	if err != nil {
		return r, err
	}
	out.GitRedirects = r.moved
	code := out.Code
	events.Emit(policy.Event{Event: "exited", ID: id, Code: &code, Signal: out.Signal, DurationMS: out.Duration.Milliseconds()})
	return r, nil
}

// afterRun is the check after every process of the sandbox has ended:
// first the nested children (broker.end: none can write after the
// checks), then the git quarantine (gitredirect.go), then the exit scan
// (scan.go). Each finding is named on errw (the member's standard error;
// for a nested launch, the requester's). Whatever could not be checked or
// undone is an ErrUnchecked error (exit 124).
func afterRun(errw io.Writer, br *broker, watch *gitWatch, scan *exitScan) (*ran, error) {
	errs := []error{br.end()}
	moved, err := watch.quarantine(errw)
	errs = append(errs, err)
	es, err := scan.finish(errw)
	errs = append(errs, err)
	return &ran{Scan: withRedirects(es, moved), moved: moved}, firstError(errs)
}

// firstError is the first non-nil error, with the others' text after it
// (each is also printed where it arose).
func firstError(errs []error) error {
	var first error
	var more []string
	for _, e := range errs {
		switch {
		case e == nil:
		case first == nil:
			first = e
		default:
			more = append(more, e.Error())
		}
	}
	if first != nil && len(more) > 0 {
		return fmt.Errorf("%w; and %s", first, strings.Join(more, "; and "))
	}
	return first
}
