package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/nsjail"
)

// stdio are the member's standard streams.
type stdio struct{ in, out, err *os.File }

// runSpec resolves a spec and runs it: a private run directory for the
// sandbox's sockets, the broker when it may delegate, the plan, check (a
// profile's or the broker's narrowing; nil for none), admission, the egress
// proxy, the backend, and the started and exited events.
func runSpec(spec coordinator.Spec, host coordinator.Host, events *coordinator.Events, io stdio, check func(*coordinator.Plan) error) (*coordinator.Outcome, error) {
	id := nsjail.NewID()
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
	plan, err := coordinator.Resolve(spec, host)
	if err == nil && check != nil {
		err = check(plan)
	}
	if err != nil {
		return nil, err
	}
	if br != nil {
		go br.serve(plan)
	}
	return launch(plan, host, events, io, id, dir, br)
}

// delegate starts the broker and adds the two runtime mounts a delegating
// member needs: this binary and the broker's socket.
func delegate(spec *coordinator.Spec, id, dir string, host coordinator.Host, events *coordinator.Events) (*broker, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find the acbox binary to mount for delegation: %v", coordinator.ErrCannotSandbox, err)
	}
	br, err := startBroker(id, dir, host, events)
	if err != nil {
		return nil, err
	}
	spec.Mounts = append(spec.Mounts,
		coordinator.MountSpec{Source: exe, Target: coordinator.DelegateBin, Internal: true},
		coordinator.MountSpec{Source: br.path, Target: coordinator.DelegateSocket, Readonly: coordinator.RW(true), Internal: true})
	return br, nil
}

// makeRunDir creates StateDir/run/ID, 0700 with 0700 parents.
func makeRunDir(state, id string) (string, error) {
	dir := filepath.Join(state, "run", id)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("%w: state directory: %v", coordinator.ErrCannotSandbox, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: run directory: %v", coordinator.ErrCannotSandbox, err)
	}
	return dir, nil
}

// launch runs one plan on its backend with this sandbox's proxy.
// A delegating sandbox's children are ended (br.end) before the check for
// git redirects, so none can plant one after it.
func launch(plan *coordinator.Plan, host coordinator.Host, events *coordinator.Events, io stdio, id, dir string, br *broker) (*coordinator.Outcome, error) {
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
	out, err := b.Launch(plan, coordinator.LaunchIO{ID: id, Stdin: io.in, Stdout: io.out, Stderr: io.err, ProxySocket: proxy.socket(), RunDir: dir,
		OnReady: func(st coordinator.Started) {
			recordHelper(st.ID, st.Pid)
			events.Emit(coordinator.Event{Event: "started", ID: st.ID, Backend: plan.Backend, Pid: st.Pid,
				Access: json.RawMessage(plan.Access(true)), Report: st.Report.Digest()})
		}})
	br.end()
	moved, qerr := watch.quarantine(io.err) // also after a failed launch: the member may have run
	if err != nil {
		return nil, err
	}
	if qerr != nil {
		return nil, qerr
	}
	out.GitRedirects = moved
	code := out.Code
	events.Emit(coordinator.Event{Event: "exited", ID: id, Code: &code, Signal: out.Signal, DurationMS: out.Duration.Milliseconds()})
	return out, nil
}
