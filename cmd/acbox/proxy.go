package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/egress"
)

// ProxyCmd runs the egress proxy on its own, on a Unix socket.
type ProxyCmd struct {
	Socket   string   `required:"" placeholder:"PATH" help:"Unix socket to listen on (created 0600; its directory should be private)."`
	Allow    []string `placeholder:"HOST[:PORT]" help:"Allowed destinations; none given: any public destination."`
	StatusFd int      `default:"-1" placeholder:"N" help:"Write one JSON decision event per request to file descriptor N."`
}

// Run serves until SIGINT or SIGTERM.
func (c *ProxyCmd) Run(s *Streams) error {
	pol := egress.Policy{Mode: egress.ModeProxy, AllowAny: c.Allow == nil}
	for _, a := range c.Allow {
		r, err := egress.ParseRule(a)
		if err != nil {
			return fmt.Errorf("%w: %v", policy.ErrInvalid, err)
		}
		pol.Allow = append(pol.Allow, r)
	}
	events, err := openEvents(c.StatusFd)
	if err != nil {
		return err
	}
	ln, err := net.Listen("unix", c.Socket)
	if err != nil {
		return fmt.Errorf("%w: listen on %s: %v", policy.ErrCannotSandbox, c.Socket, err)
	}
	defer os.Remove(c.Socket)
	if err := os.Chmod(c.Socket, 0o600); err != nil {
		return err
	}
	p := egress.New(egress.Config{Policy: pol, OnDecision: func(d egress.Decision) {
		allowed := d.Allowed
		events.Emit(policy.Event{Event: "egress", Allowed: &allowed, Host: d.Host, Port: d.Port, Addr: d.Addr, Reason: d.Reason})
	}})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM)
	go func() { <-sigs; p.Close() }()
	fmt.Fprintf(s.Err, "acbox proxy: listening on %s\n", c.Socket)
	return p.Serve(ln)
}
