package coordinator

import (
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Peers decides who may use a sandbox's sockets: Admit waits, if need be,
// until the sandbox's pid 1 is known (or stop closes) and refuses c unless
// the process that connected is inside the sandbox.
type Peers interface {
	Admit(c net.Conn, stop <-chan struct{}) error
}

// sandboxPeers admits a connection to a sandbox's own sockets (its broker
// and, natively, its egress proxy) only from a process inside that
// sandbox: in the pid namespace of its pid 1 or one below it. The masks
// alone could not promise it: a run directory made after another sandbox
// started, somewhere that sandbox sees (a new XDG_RUNTIME_DIR under its
// read grant, or anywhere in the host view), is in no snapshot of its, and
// connect(2) on a socket needs no write access to the mount it is on. The
// socket's mode and SO_PEERCRED cannot tell the sandboxes apart: they all
// run as the same user.
//
// A connection that arrives before pid 1 is known waits for it (the
// member may connect before the launcher has handled pid 1's ready), and
// is refused once the sandbox has ended without one.
type sandboxPeers struct {
	once  sync.Once
	ready chan struct{} // closed by bind or end
	ns    sys.NSID
	err   error // set before ready closes: every peer is refused
}

func newSandboxPeers() *sandboxPeers { return &sandboxPeers{ready: make(chan struct{})} }

// bind records the pid namespace of the sandbox's pid 1 (host pid); a
// pid 1 whose namespace cannot be read leaves every peer refused.
func (s *sandboxPeers) bind(pid int) {
	ns, err := sandboxNS(pid)
	if err != nil {
		err = fmt.Errorf("%w: the sandbox's pid namespace cannot be read, so no process can be admitted to its sockets: %w", policy.ErrCannotSandbox, err)
	}
	s.once.Do(func() { s.ns, s.err = ns, err; close(s.ready) })
}

// sandboxNS is the pid namespace of a sandbox's pid 1, which is never
// acbox's own: were it, every process of the host (and, below it, of every
// other sandbox) would pass. Tests replace it: their fake backends report
// the test itself as pid 1.
var sandboxNS = defaultSandboxNS

func defaultSandboxNS(pid int) (sys.NSID, error) {
	ns, err := sys.PidNSOf(pid)
	if err != nil {
		return ns, err
	}
	if self, err := sys.PidNSOf(os.Getpid()); err != nil || self == ns {
		return sys.NSID{}, fmt.Errorf("process %d is in acbox's own pid namespace, not a sandbox's", pid)
	}
	return ns, nil
}

// end refuses every peer from now on if pid 1 was never bound.
func (s *sandboxPeers) end() {
	s.once.Do(func() {
		s.err = fmt.Errorf("%w: the sandbox ended before its pid 1 was ready", policy.ErrCannotSandbox)
		close(s.ready)
	})
}

// bind binds the peers to the native backend's pid 1, the sandbox's own
// pid namespace, when the launch keeps a socket (a broker or a proxy). A docker sandbox's init is in the daemon's view, which
// need not be acbox's: its peers stay unbound, and its proxy socket is
// kept by the masks alone (its broker is never made: docker refuses
// delegation).
func (so sockets) bind(plan *policy.Plan, st backend.Started) {
	// Only a launch with a socket pays for the reads (a few microseconds).
	if plan.Backend == "native" && (so.br != nil || plan.Network.Mode == "proxy") {
		so.peers.bind(st.Pid)
	}
}

// proxyPeers are the peers the egress proxy admits: nil (any) for docker.
func (so sockets) proxyPeers(plan *policy.Plan) Peers {
	if plan.Backend == "native" {
		return so.peers
	}
	return nil
}

// Admit implements Peers; nil s admits every peer (tests of the broker
// alone).
func (s *sandboxPeers) Admit(c net.Conn, stop <-chan struct{}) error {
	if s == nil {
		return nil
	}
	select {
	case <-s.ready:
	case <-stop:
		return fmt.Errorf("%w: the sandbox has ended", policy.ErrCannotSandbox)
	}
	if s.err != nil {
		return s.err
	}
	in, err := peerIn(c, s.ns)
	if err != nil {
		return fmt.Errorf("%w: the connecting process cannot be placed: %w", policy.ErrRefused, err)
	}
	if !in {
		return fmt.Errorf("%w: this socket serves only the processes of its own sandbox; the connecting process is outside it", policy.ErrRefused)
	}
	return nil
}

// peerIn asks the kernel where c's peer is (sys.PeerInPidNS).
func peerIn(c net.Conn, ns sys.NSID) (bool, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false, fmt.Errorf("not a Unix socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false, err
	}
	var in bool
	var perr error
	if err := raw.Control(func(fd uintptr) { in, perr = sys.PeerInPidNS(int(fd), ns) }); err != nil {
		return false, err
	}
	return in, perr
}

// admittedListener is a listener whose Accept returns only connections
// admit lets through; the others are closed unanswered.
type admittedListener struct {
	net.Listener
	peers Peers
	stop  chan struct{}
	once  sync.Once
}

func (l *admittedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.peers.Admit(c, l.stop) == nil {
			return c, nil
		}
		c.Close()
	}
}

func (l *admittedListener) Close() error {
	l.once.Do(func() { close(l.stop) })
	return l.Listener.Close()
}
