package nsjail

import (
	"errors"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestCapIPCLimitsFailsClosed: a cap pid 1 cannot write refuses the
// launch, naming the control and --best-effort; with --best-effort the
// report says the control is not in force.
func TestCapIPCLimitsFailsClosed(t *testing.T) {
	caps := ipcLimitCaps(hostIPC, 128<<20, 1024)
	fail := func(string, string) error { return errors.New("EROFS") }
	for _, best := range []bool{false, true} {
		rep := &policy.Report{Limits: map[string]string{}}
		err := capIPCLimits(caps, &policy.Plan{BestEffort: best}, rep, fail)
		if best != (err == nil) || (err != nil && !strings.Contains(err.Error(), "--best-effort")) {
			t.Errorf("best effort %v: %v", best, err)
		}
		if c := rep.Controls[len(rep.Controls)-1]; c.Name != "ipc_limits" || c.Enforced || !c.Requested {
			t.Errorf("best effort %v: control %+v", best, c)
		}
	}
}

// TestCapIPCLimitsAll: every planned cap is written and recorded; a plan
// missing one (the host's file unreadable) refuses.
func TestCapIPCLimitsAll(t *testing.T) {
	caps := ipcLimitCaps(hostIPC, 128<<20, 1024)
	got := map[string]string{}
	write := func(n, v string) error { got[n] = v; return nil }
	rep := &policy.Report{Limits: map[string]string{}}
	if err := capIPCLimits(caps, &policy.Plan{}, rep, write); err != nil || len(got) != len(ipcLimitNames) {
		t.Fatalf("capIPCLimits = %v, wrote %v", err, got)
	}
	if rep.Limits["ipc.msgmni"] == "" || !rep.Controls[0].Enforced {
		t.Errorf("report: %v %+v", rep.Limits, rep.Controls)
	}
	if err := capIPCLimits(caps[1:], &policy.Plan{}, &policy.Report{Limits: map[string]string{}}, write); err == nil {
		t.Errorf("a plan without msgmnb was accepted")
	}
}
