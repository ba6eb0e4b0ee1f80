package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/probe"
)

// SelftestCmd runs the escape suite against this host: probes inside a
// sandbox whose member is this binary, oracles outside, the lifecycle
// scenarios, and the check that the policy digest this binary reports is
// the one its policy computes. It exits 1 when anything fails or errs. Under docker the
// member is the same binary, bound by the backend as the container's init;
// docs/backends.md lists where the expectations differ, and why.
type SelftestCmd struct {
	All     bool   `help:"Also run the destructive probes (fork bomb, memory, tmpfs fill, descriptors, output flood), each in its own sandbox."`
	JSON    bool   `help:"Print one JSON line per probe; the summary goes to stderr."`
	Backend string `default:"native" enum:"native,docker" help:"Backend to test: native or docker."`
	Image   string `placeholder:"IMAGE" help:"Docker image of the probe sandboxes (--backend docker; default acbox-busybox:1)."`
}

// Run sets up the fixture, runs everything and prints the results.
func (c *SelftestCmd) Run(s *Streams) error {
	exe, err := selfExe()
	if err != nil {
		return err
	}
	r := &probe.Runner{Exe: exe, Stderr: stderrFile(s)}
	if err := c.backend(r); err != nil {
		return err
	}
	snap := probe.TakeSnapshot()
	fx, err := probe.NewFixture()
	if err != nil {
		return fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	r.Fixture = fx
	lines, err := c.suite(r)
	fx.Close()
	if err != nil {
		return err
	}
	lines = append(lines, snap.Leftovers(), probe.PolicyPin())
	return c.print(s, lines)
}

func (c *SelftestCmd) suite(r *probe.Runner) ([]probe.Line, error) {
	lines, err := r.Inside()
	if err != nil {
		return nil, err
	}
	if c.All {
		d, err := r.Destructive()
		if err != nil {
			return nil, err
		}
		lines = append(lines, d...)
	}
	h, err := r.HostMode()
	if err != nil {
		return nil, err
	}
	lines = append(lines, h...)
	px, err := r.ProxyMode()
	if err != nil {
		return nil, err
	}
	lines = append(lines, px...)
	lines = append(lines, r.Lifecycle()...)
	return probe.JoinOracles(append(lines, r.Fixture.Oracles()...)), nil
}

// backend sets the runner's backend. Under docker it checks, before any
// fixture exists, that the daemon and image can run the suite; the member
// is this binary at docker.InitPath, which must be where probes expect it.
func (c *SelftestCmd) backend(r *probe.Runner) error {
	if c.Backend != probe.Docker {
		if c.Image != "" {
			return fmt.Errorf("%w: --image is for --backend docker", policy.ErrInvalid)
		}
		return nil
	}
	if docker.InitPath != probe.MemberPath {
		return fmt.Errorf("%w: bug: the docker init path %s is not the probe member path %s", policy.ErrCannotSandbox, docker.InitPath, probe.MemberPath)
	}
	if st := docker.Probe(context.Background(), c.Image); !st.Available {
		return fmt.Errorf("%w: docker backend: %s", policy.ErrCannotSandbox, st.Reason)
	}
	r.Backend, r.Image = docker.Backend{Exe: r.Exe}, c.Image
	return nil
}

// selfExe is this binary's canonical path, mounted into the sandbox.
func selfExe() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: cannot find this binary to run it inside: %w", policy.ErrCannotSandbox, err)
	}
	return filepath.EvalSymlinks(exe)
}

func stderrFile(s *Streams) *os.File {
	if f, ok := s.Err.(*os.File); ok {
		return f
	}
	return nil
}

func (c *SelftestCmd) print(s *Streams, lines []probe.Line) error {
	n := map[probe.Result]int{}
	for _, l := range lines {
		n[l.Result]++
		if c.JSON {
			b, _ := json.Marshal(l)
			fmt.Fprintln(s.Out, string(b))
		} else {
			// A probe's detail may quote what a member printed.
			fmt.Fprintln(policy.MessageWriter(s.Out), l.String())
		}
	}
	var sum io.Writer = s.Out
	if c.JSON {
		sum = s.Err
	}
	fmt.Fprintf(sum, "%d passed, %d failed, %d skipped, %d errors, %d info\n", n[probe.Pass], n[probe.Fail], n[probe.Skip], n[probe.Error], n[probe.Info])
	if n[probe.Fail]+n[probe.Error] > 0 {
		return exitError{code: 1}
	}
	return nil
}
