package nsjail_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/nsjail"
)

// A pid 1 that dies before the parent has written its id maps must not be
// reaped until they are written: a reaped pid can be taken by any process,
// and the parent would write the maps into that process's user namespace.
// As root the parent may map uid 0 there, so a user whose fresh user
// namespace got the pid would become the host's uid 0.
func TestIDMapsPinPid1(t *testing.T) {
	plan := planFor(t, t.TempDir(), "echo RAN")
	out, errOut := pipeFile(t), pipeFile(t)
	opt := nsjail.Options{Stdout: out.w, Stderr: errOut.w}
	why := ""
	opt.SetBeforeMaps(func(pid int) {
		syscall.Kill(pid, syscall.SIGKILL)
		why = stillZombie(pid)
	})
	res, err := nsjail.Launch(plan, opt)
	errOut.read()
	if stdout := out.read(); err == nil || strings.Contains(stdout, "RAN") {
		t.Fatalf("launch with a dead pid 1 was not refused (result %+v, stdout %q)", res, stdout)
	}
	if !errors.Is(err, policy.ErrCannotSandbox) || !strings.Contains(err.Error(), "pid 1 ended before it took its configuration") {
		t.Errorf("a dead pid 1's launch failed with %q: want ErrCannotSandbox saying pid 1 ended", err.Error())
	}
	if why != "" {
		t.Fatalf("pid 1 died before its id maps were written and %s: its pid could be reused before the maps are written", why)
	}
}

// stillZombie waits for pid to become a zombie and says how it is not one
// 100 ms later; "" means it still is.
func stillZombie(pid int) string {
	deadline := time.Now().Add(2 * time.Second)
	for procState(pid) != "Z" && procState(pid) != "" && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	switch s := procState(pid); s {
	case "Z":
		return ""
	case "":
		return "was reaped"
	default:
		return "is in state " + s
	}
}

// procState is the state letter in /proc/PID/stat; "" when there is no such
// process.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	state, _, _ := strings.Cut(rest, " ")
	return state
}
