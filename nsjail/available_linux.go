package nsjail

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// probeRemedy is the next step when a probe launch failed for a reason
// without a remedy of its own (the error names the failed step).
const probeRemedy = "run `acbox doctor` for the failing check, or use --backend docker"

// Available implements backend.Backend by running `true` in a real sandbox
// with every control requested (the default spec, from the root
// directory): the only honest answer to "can this host sandbox". It takes
// as long as one launch (tens of milliseconds). Why is the launch's error;
// Remedy the step it names, else a pointer to `acbox doctor`.
func (b Backend) Available(ctx context.Context) backend.Availability {
	a := backend.Availability{Backend: b.Name(), Available: true}
	err := b.probe()
	if err == nil {
		return a
	}
	a.Available, a.Why, a.Remedy = false, err.Error(), probeRemedy
	var se *startError
	if errors.As(err, &se) {
		a.Why, a.Remedy = se.cause(), se.remedy
	}
	return a
}

// probe resolves the default spec for `true` on this host and launches it
// with the standard streams on /dev/null.
func (b Backend) probe() error {
	h, err := policy.HostFromEnv()
	if err != nil {
		return err
	}
	h.Cwd = "/"
	plan, err := policy.Resolve(policy.Spec{Backend: b.Name(), Command: []string{"true"}}, h)
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	defer null.Close()
	out, err := b.Launch(plan, backend.LaunchIO{Stdin: null, Stdout: null, Stderr: null})
	if err != nil {
		return err
	}
	if out.Code != 0 {
		return fmt.Errorf("%w: a test sandbox running `true` exited with %d", policy.ErrCannotSandbox, out.Code)
	}
	return nil
}
