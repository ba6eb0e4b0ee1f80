package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// broker serves nested launches for one delegating sandbox. It knows the
// requester from the socket the request came in on (one socket per
// sandbox, in its private run directory), never from anything the
// requester writes, answers only processes inside that sandbox (peers),
// and launches only children narrower than it.
type broker struct {
	id     string // the requesting sandbox
	ln     *net.UnixListener
	path   string
	l      *Launcher // launches the children, and finds them to stop
	peers  *sandboxPeers
	parent *policy.Plan
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[*net.UnixConn]bool // open requests; nil once ended
	ended  chan struct{}          // closed with conns = nil
}

// maxBrokerConns bounds the requests one sandbox may hold open at once:
// each costs this process a descriptor and a goroutine.
const maxBrokerConns = 64

// brokerEndWait bounds how long end waits for nested launches to return
// after stopping them.
const brokerEndWait = 30 * time.Second

// startBroker listens on a 0600 socket in the sandbox's run directory;
// its children are launched through l, for the processes peers admits.
func startBroker(l *Launcher, id, dir string, peers *sandboxPeers) (*broker, error) {
	path := filepath.Join(dir, "broker.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("%w: broker: %w", policy.ErrCannotSandbox, err)
	}
	var c Cleanup
	defer c.Clean()
	c.Add(func() { ln.Close() })
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, err
	}
	c.Release()
	return &broker{id: id, ln: ln, path: path, l: l, peers: peers, conns: map[*net.UnixConn]bool{}, ended: make(chan struct{})}, nil
}

// serve answers requests until stop; parent must be set first.
func (b *broker) serve(parent *policy.Plan) {
	b.parent = parent
	for {
		c, err := b.ln.AcceptUnix()
		if err != nil {
			return
		}
		if why := b.track(c); why != "" {
			reply(c, nestedReply{Error: why, Code: policy.ExitRefused})
			c.Close()
			continue
		}
		b.wg.Add(1)
		go func() { defer b.wg.Done(); defer b.untrack(c); b.handle(c) }()
	}
}

// track records an open request; it refuses one past the cap or after end.
func (b *broker) track(c *net.UnixConn) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.conns == nil:
		return "nested launch: the requesting sandbox has ended"
	case len(b.conns) >= maxBrokerConns:
		return fmt.Sprintf("nested launch: %d requests are open already; wait for one to end", maxBrokerConns)
	}
	b.conns[c] = true
	return ""
}

func (b *broker) untrack(c *net.UnixConn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.conns, c)
	c.Close()
}

// closeAll closes every open request: once the requester has ended nobody
// reads the replies, and a request still being read (a member that
// promised bytes it never sent, holding the other end itself) must not
// keep end waiting.
func (b *broker) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.conns {
		c.Close()
	}
	if b.conns != nil {
		close(b.ended)
	}
	b.conns = nil
}

// stop closes the socket; children already running end with their
// requester's sandbox, since they share this acbox process as parent.
func (b *broker) stop() {
	if b != nil {
		b.ln.Close()
	}
}

// end stops taking requests, closes the open ones, ends every sandbox
// launched through this broker (deepest first, through its own pid 1)
// and waits until their launches have returned, each with its own checks
// after the run done. Called once the requester's member has exited. It
// never waits past brokerEndWait: a launch that has not returned by then
// is an ErrUnchecked error (what it writes after the requester's checks
// is not checked), and the requester's checks go on.
func (b *broker) end() error {
	if b == nil {
		return nil
	}
	b.ln.Close()
	b.closeAll()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	limit := time.After(brokerEndWait)
	for {
		b.stopChildren()
		select {
		case <-done:
			return nil
		case <-limit:
			return fmt.Errorf("%w: nested launches of sandbox %s did not end within %v after it; "+
				"inspect its write grants for what they wrote after the checks", policy.ErrUnchecked, b.id, brokerEndWait)
		case <-time.After(250 * time.Millisecond):
			// again: a child that registered after the last look
		}
	}
}

// stopChildren stops every sandbox registered below this one.
func (b *broker) stopChildren() {
	reg := b.l.Registry
	if reg == nil {
		return
	}
	for _, k := range descendants(reg, b.id) {
		if k, err := withHelper(reg, k); err == nil {
			stopOne(k, 0, b.l.ender(context.Background(), k))
		}
	}
}

func (b *broker) handle(c *net.UnixConn) {
	// Before reading anything: a process of another sandbox learns no
	// more than that it was refused.
	if err := b.peers.Admit(c, b.ended); err != nil {
		reply(c, errorReply(err))
		return
	}
	req, files, err := recvRequest(c)
	for _, f := range files {
		defer f.Close()
	}
	if err == nil {
		err = b.refuseOwnEnds(files)
	}
	if err != nil {
		reply(c, errorReply(err))
		return
	}
	if len(req.Spec.PassEnv) > 0 {
		// Resolved here it would copy the host's values into the child.
		reply(c, nestedReply{Error: "pass_env in a nested launch: the broker would read the host's environment; send the values in env", Code: policy.ExitUsage})
		return
	}
	// Before resolving: the default /tmp and home sizes follow the limit.
	inheritLimits(&req.Spec.Limits, b.parent.Limits)
	req.Spec.Backend = inheritBackend(req.Spec.Backend, b.parent.Backend)
	req.Spec.Parent, req.Spec.Depth = b.id, b.parent.Depth+1
	child := *b.l
	child.Host.Requester = b.parent // what Resolve reads for the member, it judges by its view
	child.Events = NewEvents(eventRelay{c, b.l.Events})
	// Until the request ends (untrack closes c), the client's signals.
	sigs := make(chan os.Signal, 16)
	go recvSignals(io.MultiReader(bytes.NewReader(req.after), c), sigs) // wire_signals.go
	// The child's checks after the run (afterRun) print their findings on
	// files[2], the requester's standard error.
	r, err := child.Run(context.Background(), Request{Spec: req.Spec, Stdio: Stdio{files[0], files[1], files[2]}, Check: b.check, Report: req.Report, Signals: sigs})
	if req.Report && r != nil && r.Outcome != nil {
		reply(c, nestedReply{Report: r.Report, ExitScan: r.Scan})
	}
	if err != nil {
		reply(c, errorReply(err))
		return
	}
	reply(c, nestedReply{Exit: &r.Code})
}

// refuseOwnEnds refuses a request that passes a connection to this broker
// as one of its streams: holding the other end itself, the broker would
// never see the requester hang up.
func (b *broker) refuseOwnEnds(files []*os.File) error {
	for i, f := range files {
		if peer, err := sys.PeerPath(int(f.Fd())); err == nil && peer == b.path {
			return fmt.Errorf("%w: nested launch: descriptor %d of the request is a connection to the broker itself; pass the standard streams", policy.ErrInvalid, i)
		}
	}
	return nil
}

// check refuses a child wider than the requester or deeper than allowed
// (handle placed it: Parent and Depth came with the spec).
func (b *broker) check(p *policy.Plan) error {
	if p.Parent != b.id || p.Depth != b.parent.Depth+1 {
		return fmt.Errorf("%w: bug: a nested plan not placed under sandbox %s", policy.ErrCannotSandbox, b.id)
	}
	if p.Depth > policy.MaxDelegationDepth || (p.Delegate && p.Depth >= policy.MaxDelegationDepth) {
		return &policy.RefusedError{Subject: "delegate", Why: fmt.Sprintf("nested launches may go %d deep", policy.MaxDelegationDepth), Instead: "launch it from an outer sandbox"}
	}
	return policy.Narrower(p, b.parent)
}

// inheritLimits gives a child that asks for no memory or pids limit its
// requester's, where that is smaller than the default; a limit the child
// asks for is left for Narrower to judge. It edits the spec, not the plan,
// so that what depends on the limit (the default tmpfs sizes) follows it.
func inheritLimits(asked *policy.LimitsSpec, parent policy.Limits) {
	if asked.Memory == "" && parent.Memory < policy.DefaultMemory {
		asked.Memory = strconv.FormatInt(parent.Memory, 10)
	}
	if asked.Pids == 0 && parent.Pids < policy.DefaultPids {
		asked.Pids = parent.Pids
	}
}

// inheritBackend gives a child that names no backend, or auto, its
// requester's: a nested launch runs on its requester's backend, and
// policy.Narrower refuses any other (a docker child of a native requester
// would run without its Landlock and user namespace).
func inheritBackend(asked, parent string) string {
	if asked == "" || asked == "auto" {
		return parent
	}
	return asked
}

func reply(w io.Writer, r nestedReply) {
	b, _ := json.Marshal(r)
	w.Write(append(b, '\n'))
}

// eventRelay passes each of a child's events to the requester, wrapped,
// and to the outer acbox's own event stream.
type eventRelay struct {
	w     io.Writer
	outer *Events
}

func (e eventRelay) Write(line []byte) (int, error) {
	var ev Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return len(line), nil
	}
	reply(e.w, nestedReply{Event: &ev})
	e.outer.Emit(ev)
	return len(line), nil
}

// errorReply is a refusal with its exit status, field and next step, for
// the nested acbox's refused event.
func errorReply(err error) nestedReply {
	return nestedReply{Error: err.Error(), Code: policy.ExitCode(err), Field: policy.FieldOf(err), Remedy: policy.Remedy(err)}
}
