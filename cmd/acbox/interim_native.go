package main

import (
	"context"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/nsjail"
)

// INTERIM (issue 12): until nsjail.Backend.Available runs the probe launch
// itself (helper "backends" moves it there), this adapter gives the native
// backend that answer, so that status, doctor and --backend auto behave as
// before. At merge: delete this file and wire nsjail.Backend{} instead of
// nativeBackend{} in backends.go.
type nativeBackend struct{ nsjail.Backend }

// Available runs `true` in a real sandbox with every control requested:
// the only honest answer to "can this host sandbox".
func (nativeBackend) Available(ctx context.Context) backend.Availability {
	a := backend.Availability{Backend: "native"}
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
		a.Why = err.Error()
		return a
	}
	a.Available = true
	return a
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

func (nativeBackend) Expect(p *policy.Plan) *policy.Report { return nsjail.Expect(p) }
