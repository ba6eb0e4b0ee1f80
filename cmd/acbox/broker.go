package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/acbox/acbox/coordinator"
)

// broker serves nested launches for one delegating sandbox. It knows the
// requester from the socket the request came in on (one socket per
// sandbox, in its private run directory), never from anything the
// requester writes, and launches only children narrower than it.
type broker struct {
	id     string // the requesting sandbox
	ln     *net.UnixListener
	path   string
	host   coordinator.Host
	events *coordinator.Events
	parent *coordinator.Plan
	wg     sync.WaitGroup
}

func startBroker(id, dir string, host coordinator.Host, events *coordinator.Events) (*broker, error) {
	path := filepath.Join(dir, "broker.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("%w: broker: %v", coordinator.ErrCannotSandbox, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return &broker{id: id, ln: ln, path: path, host: host, events: events}, nil
}

// serve answers requests until stop; parent must be set first.
func (b *broker) serve(parent *coordinator.Plan) {
	b.parent = parent
	for {
		c, err := b.ln.AcceptUnix()
		if err != nil {
			return
		}
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.handle(c) }()
	}
}

// stop closes the socket; children already running end with their
// requester's sandbox, since they share this acbox process as parent.
func (b *broker) stop() {
	if b != nil {
		b.ln.Close()
	}
}

// end stops taking requests, ends every sandbox launched through this
// broker (deepest first, through its own pid 1) and waits until their
// launches have returned, each with its own git-redirect check done.
// Called once the requester's member has exited.
func (b *broker) end() {
	if b == nil {
		return
	}
	b.ln.Close()
	if reg, err := coordinator.OpenRegistry(b.host.StateDir); err == nil {
		for _, k := range descendants(reg, b.id) {
			if k, err := withHelper(reg, k); err == nil {
				stopOne(k, 0)
			}
		}
	}
	b.wg.Wait()
}

func (b *broker) handle(c *net.UnixConn) {
	defer c.Close()
	req, files, err := recvRequest(c)
	for _, f := range files {
		defer f.Close()
	}
	if err != nil {
		reply(c, nestedReply{Error: err.Error(), Code: coordinator.ExitUsage})
		return
	}
	if len(req.Spec.PassEnv) > 0 {
		// Resolved here it would copy the host's values into the child.
		reply(c, nestedReply{Error: "pass_env in a nested launch: the broker would read the host's environment; send the values in env", Code: coordinator.ExitUsage})
		return
	}
	// Before resolving: the default /tmp and home sizes follow the limit.
	inheritLimits(&req.Spec.Limits, b.parent.Limits)
	relay := coordinator.NewEvents(eventRelay{c, b.events})
	check := b.check
	scanned := func() *ExitScan { return nil }
	if req.Report { // the exit scan runs here, outside, as for a launch from the host
		check, scanned = exitScanHook(check, true)
	}
	out, err := runSpec(req.Spec, b.host, relay, stdio{files[0], files[1], files[2]}, check)
	if err != nil {
		reply(c, nestedReply{Error: err.Error(), Code: coordinator.ExitCode(err)})
		return
	}
	if req.Report {
		reply(c, nestedReply{Report: out.Report, ExitScan: withRedirects(scanned(), out)})
	}
	reply(c, nestedReply{Exit: &out.Code})
}

// check refuses a child wider than the requester or deeper than allowed.
func (b *broker) check(p *coordinator.Plan) error {
	p.Depth, p.Parent = b.parent.Depth+1, b.id
	if p.Depth > coordinator.MaxDelegationDepth || (p.Delegate && p.Depth >= coordinator.MaxDelegationDepth) {
		return &coordinator.RefusedError{Subject: "delegate", Why: fmt.Sprintf("nested launches may go %d deep", coordinator.MaxDelegationDepth), Instead: "launch it from an outer sandbox"}
	}
	return coordinator.Narrower(p, b.parent)
}

// inheritLimits gives a child that asks for no memory or pids limit its
// requester's, where that is smaller than the default; a limit the child
// asks for is left for Narrower to judge. It edits the spec, not the plan,
// so that what depends on the limit (the default tmpfs sizes) follows it.
func inheritLimits(asked *coordinator.LimitsSpec, parent coordinator.Limits) {
	if asked.Memory == "" && parent.Memory < coordinator.DefaultMemory {
		asked.Memory = strconv.FormatInt(parent.Memory, 10)
	}
	if asked.Pids == 0 && parent.Pids < coordinator.DefaultPids {
		asked.Pids = parent.Pids
	}
}

func reply(w io.Writer, r nestedReply) {
	b, _ := json.Marshal(r)
	w.Write(append(b, '\n'))
}

// eventRelay passes each of a child's events to the requester, wrapped,
// and to the outer acbox's own event stream.
type eventRelay struct {
	w     io.Writer
	outer *coordinator.Events
}

func (e eventRelay) Write(line []byte) (int, error) {
	var ev coordinator.Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return len(line), nil
	}
	reply(e.w, nestedReply{Event: &ev})
	e.outer.Emit(ev)
	return len(line), nil
}
