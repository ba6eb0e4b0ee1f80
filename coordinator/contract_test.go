package coordinator

import (
	"os"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestStartedBeforeEgress: an egress decision the proxy makes before the
// backend reports pid 1 (the member connects at once) is written after
// started, not before (contract 1: started is a launch's first event);
// without a started event (the launch failed first) it is still written.
func TestStartedBeforeEgress(t *testing.T) {
	for _, c := range []struct {
		name  string
		ready bool
		fail  error
		want  []string
	}{
		{"ready", true, nil, []string{"started", "egress", "exited"}},
		{"never ready", false, os.ErrClosed, []string{"egress"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.native.ready, r.native.launchErr = false, c.fail
			r.native.during = func(p *policy.Plan, io backend.LaunchIO) {
				allowed := false
				r.proxies.events.Emit(Event{Event: "egress", ID: io.ID, Allowed: &allowed, Host: "denied.invalid", Port: 80})
				if c.ready {
					io.OnReady(backend.Started{ID: io.ID, Pid: os.Getpid(), Report: &policy.Report{}})
				}
			}
			r.run(t, policy.Spec{Access: policy.Access{Network: policy.NetworkSpec{Mode: "proxy"}}})
			var got []string
			for _, e := range events(t, r) {
				got = append(got, e.Event)
			}
			if len(got) != len(c.want) {
				t.Fatalf("events %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("events %q, want %q", got, c.want)
				}
			}
		})
	}
}
