package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/nsjail"
)

// StatusCmd reports per backend whether it can run here.
type StatusCmd struct {
	JSON bool `help:"Print JSON."`
}

type backendStatus struct {
	Backend   string `json:"backend"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Run probes each backend.
func (c *StatusCmd) Run(s *Streams) error {
	st := []backendStatus{nativeStatus(), backendStatus(docker.Probe(context.Background(), ""))}
	if c.JSON {
		b, _ := json.MarshalIndent(st, "", "  ")
		_, err := fmt.Fprintln(s.Out, string(b))
		return err
	}
	for _, b := range st {
		if b.Available {
			fmt.Fprintf(s.Out, "%s: available\n", b.Backend)
		} else {
			fmt.Fprintf(s.Out, "%s: unavailable: %s\n", b.Backend, b.Reason)
		}
	}
	return nil
}

// nativeStatus runs `true` in a real sandbox with every control requested:
// the only honest answer to "can this host sandbox".
func nativeStatus() backendStatus {
	st := backendStatus{Backend: "native"}
	h, err := policy.HostFromEnv()
	if err == nil {
		h.Cwd = "/"
		var plan *policy.Plan
		plan, err = policy.Resolve(policy.Spec{Command: []string{"true"}}, h)
		if err == nil {
			err = probeLaunch(plan)
		}
	}
	if err != nil {
		st.Reason = err.Error()
		return st
	}
	st.Available = true
	return st
}

func probeLaunch(plan *policy.Plan) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	res, err := nsjail.Launch(plan, nsjail.Options{Stdin: null, Stdout: null, Stderr: null})
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("a test sandbox running `true` exited with %d", res.Code)
	}
	return nil
}
