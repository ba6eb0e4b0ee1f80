package nsjail

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestCapUserCountersFailsClosed: a cap that cannot be written refuses the
// launch, unless best effort, when the report says which one and why.
func TestCapUserCountersFailsClosed(t *testing.T) {
	caps := []userCounter{{"max_inotify_instances", 128, 10}, {"max_user_namespaces", 1000, 0}}
	failing := func(name string, _ int64) error {
		if name == "max_user_namespaces" {
			return unix.EACCES
		}
		return nil
	}
	for _, tc := range []struct {
		name       string
		caps       []userCounter
		write      func(string, int64) error
		bestEffort bool
		wantErr    bool
		enforced   bool
	}{
		{"all written", caps, func(string, int64) error { return nil }, false, false, true},
		{"one refused", caps, failing, false, true, false},
		{"one refused, best effort", caps, failing, true, false, false},
		{"host limits unreadable", nil, func(string, int64) error { return nil }, false, true, false},
	} {
		rep := &policy.Report{Limits: map[string]string{}}
		err := capUserCounters(tc.caps, &policy.Plan{BestEffort: tc.bestEffort}, rep, tc.write)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err %v; want error %v", tc.name, err, tc.wantErr)
		}
		if tc.wantErr && tc.caps != nil && !errors.Is(err, unix.EACCES) {
			t.Errorf("%s: %v does not wrap the cause", tc.name, err)
		}
		ctl := rep.Controls[len(rep.Controls)-1]
		if ctl.Name != "user_counters" || ctl.Enforced != tc.enforced {
			t.Errorf("%s: control %+v; want enforced %v", tc.name, ctl, tc.enforced)
		}
		if !tc.enforced && tc.caps != nil && !strings.Contains(ctl.Why, "max_user_namespaces") {
			t.Errorf("%s: the report does not name the counter: %q", tc.name, ctl.Why)
		}
	}
}
