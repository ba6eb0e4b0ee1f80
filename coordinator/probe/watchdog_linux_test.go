package probe

import (
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
)

// TestWatchdog: a sandbox that outlives the watchdog is ended through its
// pid 1 when the backend reported one, and through the backend's kill when
// it reported none (docker, the daemon's pid not verified): pid 0 is never
// signalled (kill(0) would reach this process's group, and this test).
func TestWatchdog(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pid       bool
		wantKills int32
	}{{"pid 1", true, 0}, {"no pid 1", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			c := exec.Command("sleep", "60")
			if err := c.Start(); err != nil {
				t.Skip(err)
			}
			defer c.Process.Kill()
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			var kills atomic.Int32
			st := backend.Started{Kill: func() error { kills.Add(1); return nil }}
			if tc.pid {
				st.Pid = c.Process.Pid
			}
			r := &Runner{Watchdog: 50 * time.Millisecond}
			onReady, stop := r.watchdog()
			onReady(st)
			time.Sleep(300 * time.Millisecond)
			stop()
			if got := kills.Load(); got != tc.wantKills {
				t.Errorf("backend kills %d, want %d", got, tc.wantKills)
			}
			select {
			case <-done:
				if !tc.pid || !strings.Contains(c.ProcessState.String(), "killed") {
					t.Errorf("pid 1 ended: %v; want it killed only when reported", c.ProcessState)
				}
			case <-time.After(time.Second):
				if tc.pid {
					t.Error("the reported pid 1 was not killed")
				}
			}
		})
	}
}
