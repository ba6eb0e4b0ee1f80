package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// DoctorCmd checks each host requirement; each failure prints its remedy.
type DoctorCmd struct {
	JSON bool `help:"Print JSON (stable: name, ok, detail, remedy)."`
}

// checkTimeout bounds each check: a hung one is reported, not waited for.
const checkTimeout = 10 * time.Second

// Run checks the policy digest this binary reports, then runs, for each
// backend that checks its host requirements one by one, every check and
// then a real launch (its availability), each with a timeout. None touches
// the real root.
func (c *DoctorCmd) Run(s *Streams, bs []backend.Backend) error {
	out := []backend.Check{digestCheck(policy.CheckPolicyDigest())}
	for _, b := range bs {
		hc, ok := b.(backend.HostChecker)
		if !ok {
			continue
		}
		for _, h := range hc.HostChecks() {
			out = append(out, withTimeout(h.Name, h.Run, checkTimeout))
		}
		out = append(out, withTimeout("sandbox launch", func() backend.Check { return launchCheck(b) }, checkTimeout))
	}
	failed := false
	for _, r := range out {
		failed = failed || !r.OK
	}
	if c.JSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(s.Out, string(b))
	} else {
		for _, r := range out {
			printCheck(s, r)
		}
	}
	if failed {
		return fmt.Errorf("%w: some checks failed (see the remedies above)", policy.ErrCannotSandbox)
	}
	return nil
}

// digestCheck reports policy.CheckPolicyDigest: whether the policy digest
// this binary reports is the one its built-in policy computes.
func digestCheck(err error) backend.Check {
	c := backend.Check{Name: "policy digest", OK: err == nil, Detail: "the built-in policy computes the digest this binary reports: " + policy.PolicyDigest()}
	var de *policy.DigestDriftError
	switch {
	case errors.As(err, &de):
		c.Detail = fmt.Sprintf("this binary reports %s, but its built-in policy computes %s (the policy changed without its pin)", de.Reported, de.Computed)
		c.Remedy = policy.DigestPinRemedy
	case err != nil:
		c.Detail, c.Remedy = err.Error(), policy.DigestPinRemedy
	}
	return c
}

// launchCheck is the backend's availability: a real sandbox, the only
// honest answer to "can this host sandbox".
func launchCheck(b backend.Backend) backend.Check {
	a := b.Available(context.Background())
	if a.Available {
		return backend.Check{Name: "sandbox launch", OK: true, Detail: "a real sandbox ran `true` with every control"}
	}
	return backend.Check{Name: "sandbox launch", Detail: reason(a),
		Remedy: "the error above names the step that failed and its remedy; --backend docker needs none of these"}
}

func printCheck(s *Streams, r backend.Check) {
	mark := "ok  "
	if !r.OK {
		mark = "FAIL"
	}
	fmt.Fprintf(s.Out, "%s %-18s %s\n", mark, r.Name, r.Detail)
	if r.Remedy != "" {
		fmt.Fprintf(s.Out, "     remedy: %s\n", strings.ReplaceAll(r.Remedy, "\n", "\n     "))
	}
}

func withTimeout(name string, f func() backend.Check, d time.Duration) backend.Check {
	ch := make(chan backend.Check, 1)
	go func() { ch <- f() }()
	select {
	case r := <-ch:
		return r
	case <-time.After(d):
		return backend.Check{Name: name, Detail: fmt.Sprintf("did not finish in %v", d), Remedy: "run `acbox doctor` again; if it hangs, report it"}
	}
}
