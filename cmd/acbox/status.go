package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// StatusCmd reports per backend whether it can run here.
type StatusCmd struct {
	JSON bool `help:"Print JSON."`
}

type backendStatus struct {
	Backend   string `json:"backend"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// Remedy is the next step, apart from Reason so that a client can show
	// it on its own (contract 1); the text form joins them.
	Remedy string `json:"remedy,omitempty"`
}

// Run asks each backend whether it can run here, in the wired order. It
// fails with ErrCannotSandbox (exit 126, "this host cannot sandbox") when
// none can, so that a script can ask `acbox status >/dev/null` first.
func (c *StatusCmd) Run(s *Streams, bs []backend.Backend) error {
	var st []backendStatus
	avail := false
	for _, b := range bs {
		a := b.Available(context.Background())
		avail = avail || a.Available
		st = append(st, statusOf(a))
	}
	if err := c.print(s, st); err != nil {
		return err
	}
	if !avail {
		return fmt.Errorf("%w: no backend can run sandboxes on this host; acbox doctor names each missing requirement and its remedy", policy.ErrCannotSandbox)
	}
	return nil
}

func (c *StatusCmd) print(s *Streams, st []backendStatus) error {
	if c.JSON {
		b, _ := json.MarshalIndent(st, "", "  ")
		_, err := fmt.Fprintln(s.Out, string(b))
		return err
	}
	for _, b := range st {
		if b.Available {
			fmt.Fprintf(s.Out, "%s: available\n", b.Backend)
		} else {
			fmt.Fprintf(s.Out, "%s: unavailable: %s\n", b.Backend, joinRemedy(b.Reason, b.Remedy))
		}
	}
	return nil
}

// statusOf is one backend's line. An unavailable backend always has a
// remedy: when it names none, the generic next step (doctor) stands in, so
// a client never has to find the remedy inside the reason.
func statusOf(a backend.Availability) backendStatus {
	st := backendStatus{Backend: a.Backend, Available: a.Available}
	if a.Available {
		return st
	}
	st.Reason, st.Remedy = a.Why, a.Remedy
	if st.Remedy == "" {
		st.Remedy = "run `acbox doctor` for the failing step and its remedy"
	}
	return st
}

// reason is why a backend is unavailable, with the remedy when it gives
// one apart.
func reason(a backend.Availability) string {
	if a.Available || a.Remedy == "" {
		return a.Why
	}
	return joinRemedy(a.Why, a.Remedy)
}

func joinRemedy(why, remedy string) string {
	if remedy == "" {
		return why
	}
	return why + "; " + remedy
}
