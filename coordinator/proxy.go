package coordinator

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/egress"
)

// ProxyFactory starts the egress proxy of one sandbox.
type ProxyFactory interface {
	// Start starts the proxy for a plan in proxy mode, listening in the
	// sandbox's private run directory dir, with each decision emitted on
	// events; nil, nil for a plan that needs none. It must serve only the
	// connections peers admits (nil: every one).
	Start(plan *policy.Plan, id, dir string, events *Events, peers Peers) (Proxy, error)
}

// Proxy is a running egress proxy.
type Proxy interface {
	Socket() string // the Unix socket the backend connects the member to
	Stop()
}

// EgressProxies is the ProxyFactory of package egress: one proxy per
// sandbox on a 0600 Unix socket in its 0700 run directory, answering only
// the sandbox's own pid 1 and its processes (peers.go).
type EgressProxies struct{}

// Start implements ProxyFactory.
func (EgressProxies) Start(plan *policy.Plan, id, dir string, events *Events, peers Peers) (Proxy, error) {
	if plan.Network.Mode != "proxy" {
		return nil, nil
	}
	ln, path, err := listenPrivate(filepath.Join(dir, "proxy.sock"))
	if err != nil {
		return nil, fmt.Errorf("%w: egress proxy: %w", policy.ErrCannotSandbox, err)
	}
	if peers != nil {
		ln = &admittedListener{Listener: ln, peers: peers, stop: make(chan struct{})}
	}
	p := egress.New(egress.Config{Policy: plan.Network, OnDecision: decisions(events, id)})
	go p.Serve(ln)
	return &egressProxy{path: path, proxy: p}, nil
}

type egressProxy struct {
	path  string
	proxy *egress.Proxy
}

func (s *egressProxy) Socket() string { return s.path }
func (s *egressProxy) Stop()          { s.proxy.Close() }

// decisions emits each of the proxy's decisions as an egress event.
func decisions(events *Events, id string) func(egress.Decision) {
	return func(d egress.Decision) {
		allowed := d.Allowed
		events.Emit(Event{Event: "egress", ID: id, Allowed: &allowed, Host: d.Host, Port: d.Port, Addr: d.Addr, Reason: d.Reason})
	}
}

// listenPrivate listens on a 0600 socket at path, in a private directory.
func listenPrivate(path string) (net.Listener, string, error) {
	ln, err := net.Listen("unix", path)
	if err == nil {
		// The directory is 0700 already; the mode is a second lock.
		if err = os.Chmod(path, 0o600); err != nil {
			ln.Close()
		}
	}
	if err != nil {
		return nil, "", err
	}
	return ln, path, nil
}

// ServeProxy runs the egress proxy on its own (acbox proxy) on socket,
// allowing allow (none given: any public destination), until SIGINT or
// SIGTERM.
func ServeProxy(socket string, allow []string, events *Events, errw io.Writer) error {
	pol := egress.Policy{Mode: egress.ModeProxy, AllowAny: allow == nil}
	for _, a := range allow {
		r, err := egress.ParseRule(a)
		if err != nil {
			return fmt.Errorf("%w: %w", policy.ErrInvalid, err)
		}
		pol.Allow = append(pol.Allow, r)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("%w: listen on %s: %w", policy.ErrCannotSandbox, socket, err)
	}
	defer os.Remove(socket)
	if err := os.Chmod(socket, 0o600); err != nil {
		return err
	}
	p := egress.New(egress.Config{Policy: pol, OnDecision: decisions(events, "")})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM)
	go func() { <-sigs; p.Close() }()
	fmt.Fprintf(errw, "acbox proxy: listening on %s\n", socket)
	return p.Serve(ln)
}
