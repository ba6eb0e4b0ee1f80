package nsjail

import (
	"bufio"
	"os"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// TestDiedAs: pid 1 dead without the member's exit message is a launch
// that ran nothing (126) only while the member cannot have run: before
// pid 1's fork message and its ready message.
func TestDiedAs(t *testing.T) {
	killed := syscall.WaitStatus(syscall.SIGKILL) // signaled: the low 7 bits
	exited := syscall.WaitStatus(policy.ExitCannotSandbox << 8)
	for _, c := range []struct {
		name          string
		ws            syscall.WaitStatus
		forked, ready bool
		want          int
	}{
		{"killed in setup", killed, false, false, diedBySignal},
		{"exited in setup (its error message says why)", exited, false, false, diedBeforeMember},
		{"killed after the fork message, before ready (the OOM pick)", killed, true, false, diedWithMember},
		{"killed after ready", killed, true, true, diedWithMember},
		{"crashed after the fork message", exited, true, false, diedWithMember},
		{"SIGTERM from outside after ready", syscall.WaitStatus(syscall.SIGTERM), true, true, diedWithMember},
	} {
		if got := diedAs(c.ws, c.forked, c.ready); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

// TestPid1KilledBeforeReady: pid 1 SIGKILLed after it started the member
// but before its ready message (as the memory cgroup's OOM killer does
// when the member's memory is socket buffers, charged to no process) is
// a member killed with its sandbox (137, with a started report), not a
// launch that ran nothing (126: a client would run it again elsewhere).
func TestPid1KilledBeforeReady(t *testing.T) {
	// stallMarker: this test binary's pid 1 waits a minute after the
	// member's start, before its ready message.
	plan := resolveFromRoot(t, policy.Spec{Command: []string{"sh", "-c", "echo ran; exec sleep 30", stallMarker}})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pid1 := make(chan int, 1)
	var started []backend.Started
	cgroupLine := false
	opt := Options{Stdout: w, OnReady: func(st backend.Started) {
		started = append(started, st)
		// pid 1 is reaped by now: a caller that opened a pidfd on its pid
		// could pin another process that took it (review4).
		if st.Pidfd <= 0 {
			t.Errorf("the late started gives pid 1's pid %d without a pidfd: a caller would open one on a reaped pid", st.Pid)
		} else if gone, err := sys.WaitReadable(st.Pidfd, 0); err != nil || !gone {
			t.Errorf("the late started's pidfd does not name the dead pid 1 (exited %v, %v)", gone, err)
		}
		_, cgroupLine = st.Report.Limits["cgroup"]
	}}
	opt.SetBeforeMaps(func(pid int) { pid1 <- pid })
	type result struct {
		out *backend.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := Launch(plan, opt)
		w.Close()
		done <- result{out, err}
	}()
	line, _ := bufio.NewReader(r).ReadString('\n')
	if line != "ran\n" {
		t.Fatalf("the member said %q before pid 1 was killed", line)
	}
	syscall.Kill(<-pid1, syscall.SIGKILL)
	res := <-done
	if res.err != nil {
		t.Fatalf("pid 1 killed while the member ran: %v (want the member reported killed, 137)", res.err)
	}
	if res.out.Code != 137 || res.out.Signal != int(syscall.SIGKILL) || res.out.Report == nil {
		t.Errorf("outcome %+v, want 137 by SIGKILL with the report", *res.out)
	}
	if len(started) != 1 || started[0].Report == nil {
		t.Errorf("OnReady called %d times (%+v), want once with the report", len(started), started)
	}
	if !cgroupLine {
		t.Errorf("the late started's report has no cgroup line: the limits in force are not the parent's (limits %v)", started[0].Report.Limits)
	}
}
