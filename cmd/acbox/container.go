package main

import "github.com/acbox/acbox/coordinator/docker/initproc"

// ContainerInitCmd is the docker backend's in-container init: the
// container's process under docker's init (pid 1). It relays the egress
// proxy onto 127.0.0.1:3128 (proxy mode), asks the start gate once, and
// runs the member only when the parent released it. It never runs the
// member on any other path. See package coordinator/docker/initproc.
type ContainerInitCmd struct {
	Gate    string   `required:"" placeholder:"SOCKET" help:"The start gate's Unix socket."`
	Token   string   `required:"" help:"This sandbox's one-time gate token."`
	Proxy   string   `placeholder:"SOCKET" help:"The egress proxy's Unix socket (proxy mode)."`
	Data    uint64   `name:"data-limit" placeholder:"BYTES" help:"RLIMIT_DATA for the member (0: none)."`
	Command []string `arg:"" passthrough:"" help:"The member's command, after --."`
}

// Run runs the init and exits with the member's status.
func (c *ContainerInitCmd) Run(s *Streams) error {
	code, err := initproc.Run(initproc.Config{Gate: c.Gate, Token: c.Token, Proxy: c.Proxy, Data: c.Data, Command: c.Command})
	if err != nil {
		return err
	}
	return exitError{code: code}
}
