package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/egress"
)

// proxyServer is one sandbox's egress proxy, listening on a Unix socket in
// a private directory (0700, socket 0600) that no other sandbox can reach.
type proxyServer struct {
	dir   string
	path  string
	proxy *egress.Proxy
}

// startProxy starts the proxy for a plan in proxy mode, with its socket in
// the sandbox's private run directory; nil otherwise.
func startProxy(plan *policy.Plan, id, dir string, events *policy.Events) (*proxyServer, error) {
	if plan.Network.Mode != "proxy" {
		return nil, nil
	}
	pol := plan.Network
	ln, path, err := listenPrivate(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: egress proxy: %v", policy.ErrCannotSandbox, err)
	}
	p := egress.New(egress.Config{Policy: pol, OnDecision: func(d egress.Decision) {
		allowed := d.Allowed
		events.Emit(policy.Event{Event: "egress", ID: id, Allowed: &allowed, Host: d.Host, Port: d.Port, Addr: d.Addr, Reason: d.Reason})
	}})
	go p.Serve(ln)
	return &proxyServer{dir: dir, path: path, proxy: p}, nil
}

func (s *proxyServer) socket() string {
	if s == nil {
		return ""
	}
	return s.path
}

func (s *proxyServer) stop() {
	if s == nil {
		return
	}
	s.proxy.Close()
}

// listenPrivate listens on a 0600 socket in the private directory dir.
func listenPrivate(dir string) (net.Listener, string, error) {
	path := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err == nil {
		// The directory is 0700 already; the mode is a second lock.
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		return nil, "", err
	}
	return ln, path, nil
}
