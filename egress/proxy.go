package egress

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Decision is the event the proxy emits once per request.
type Decision struct {
	Allowed bool   `json:"allowed"`
	Host    string `json:"host"`   // the requested host, canonical
	Port    int    `json:"port"`   // the requested port
	Addr    string `json:"addr"`   // the address dialed, when allowed
	Reason  string `json:"reason"` // why not, when refused
	Method  string `json:"method"` // CONNECT, GET, ...
}

// Config configures a Proxy. Every zero value has a documented default;
// the function fields are seams for tests and are never set from flags or
// the environment.
type Config struct {
	// Policy decides which names and ports are allowed.
	Policy Policy
	// Resolve looks up a name. nil: net.DefaultResolver.LookupNetIP.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// IsPublic judges a resolved address or an IP literal. nil: Classify,
	// then "not an address of this host" (HostAddrs, refreshed every few
	// seconds; fails closed if the host's addresses cannot be listed).
	IsPublic func(netip.Addr) (bool, string)
	// Dial connects to a checked "ip:port". nil: a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// OnDecision receives one Decision per request, on the connection's
	// goroutine: it should not block. nil: decisions are dropped.
	OnDecision func(Decision)
	// MaxConns caps the client connections served at once. A slot is held
	// until its connection ends: HeaderTimeout and IdleTimeout end
	// connections that stall, so the cap slows a flood down but never
	// wedges. 0: 256.
	MaxConns int
	// MaxQueue bounds the connections that wait, first come first served,
	// for a slot when all MaxConns are taken; each waits without a buffer
	// or a read (an accepted socket and a parked goroutine, about 4 KiB).
	// A connection beyond it, or one still waiting after QueueTimeout, gets
	// a 503 whose body names the limit, and is closed. 0: 1024.
	MaxQueue int
	// QueueTimeout bounds one connection's wait for a slot. 0: 30s.
	QueueTimeout time.Duration
	// HeaderTimeout bounds reading a request head, and separately resolving
	// and dialing its destination. 0: 30s.
	HeaderTimeout time.Duration
	// IdleTimeout closes a tunnel or a plain HTTP exchange when no byte has
	// moved either way for this long. 0: 5 minutes.
	IdleTimeout time.Duration
	// MaxHeaderBytes caps a request head. 0: 32 KiB.
	MaxHeaderBytes int
}

// Proxy is an egress proxy. Create it with New; it is safe for concurrent use.
type Proxy struct {
	cfg    Config
	slots  chan struct{}
	queued atomic.Int64    // connections waiting for a slot
	ctx    context.Context // canceled by Close
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	lns    map[net.Listener]struct{}
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// New returns a proxy with cfg's zero values replaced by their defaults.
func New(cfg Config) *Proxy {
	if cfg.Resolve == nil {
		cfg.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if cfg.IsPublic == nil {
		c := &publicChecker{classify: Classify, list: HostAddrs}
		cfg.IsPublic = c.isPublic
	}
	if cfg.Dial == nil {
		cfg.Dial = (&net.Dialer{}).DialContext
	}
	if cfg.OnDecision == nil {
		cfg.OnDecision = func(Decision) {}
	}
	cfg.MaxConns = orDefault(cfg.MaxConns, 256)
	cfg.MaxQueue = orDefault(cfg.MaxQueue, 1024)
	cfg.QueueTimeout = orDefault(cfg.QueueTimeout, 30*time.Second)
	cfg.HeaderTimeout = orDefault(cfg.HeaderTimeout, 30*time.Second)
	cfg.IdleTimeout = orDefault(cfg.IdleTimeout, 5*time.Minute)
	cfg.MaxHeaderBytes = orDefault(cfg.MaxHeaderBytes, 32<<10)
	p := &Proxy{cfg: cfg, slots: make(chan struct{}, cfg.MaxConns),
		lns: map[net.Listener]struct{}{}, conns: map[net.Conn]struct{}{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Serve accepts connections on ln until ln is closed (then it returns nil)
// or Accept fails for good.
func (p *Proxy) Serve(ln net.Listener) error {
	if !p.addListener(ln) {
		ln.Close()
		return nil
	}
	defer p.dropListener(ln)
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if p.isClosed() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			if backoff = nextBackoff(backoff); !isTemporary(err) {
				return err
			}
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		p.admit(c)
	}
}

// Close closes every listener given to Serve and every open connection, and
// waits for the connection goroutines to finish.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.cancel()
	for ln := range p.lns {
		ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// addConn records a connection so Close can reach it; false when the proxy
// is already closed.
func (p *Proxy) addConn(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) dropConn(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
}

func (p *Proxy) addListener(ln net.Listener) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.lns[ln] = struct{}{}
	return true
}

func (p *Proxy) dropListener(ln net.Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.lns, ln)
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func nextBackoff(d time.Duration) time.Duration {
	if d == 0 {
		return 5 * time.Millisecond
	}
	return min(2*d, time.Second)
}

// isTemporary reports accept errors worth retrying (EMFILE, ECONNABORTED...).
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
