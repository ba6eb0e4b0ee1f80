package main

import "github.com/acbox/acbox/coordinator"

// ProxyCmd runs the egress proxy on its own, on a Unix socket.
type ProxyCmd struct {
	Socket   string   `required:"" placeholder:"PATH" help:"Unix socket to listen on (created 0600; its directory should be private)."`
	Allow    []string `placeholder:"HOST[:PORT]" help:"Allowed destinations; none given: any public destination."`
	StatusFd int      `default:"-1" placeholder:"N" help:"Write one JSON decision event per request to file descriptor N."`
}

// Run serves until SIGINT or SIGTERM.
func (c *ProxyCmd) Run(s *Streams) error {
	events, err := openEvents(c.StatusFd)
	if err != nil {
		return err
	}
	return coordinator.ServeProxy(c.Socket, c.Allow, events, s.Err)
}
