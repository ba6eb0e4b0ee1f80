package nsjail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

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

// TestKernelSysctlNeedsItsDescriptor: without the descriptor opened before
// /proc/sys was made read-only, no IPC cap is written by another path (a
// root test run would otherwise change the host's own limit).
func TestKernelSysctlNeedsItsDescriptor(t *testing.T) {
	r := &rootfs{}
	r.closeKernelSysctl()
	if err := r.writeKernelSysctl("acbox_test_no_such_limit", "1"); err == nil || !strings.Contains(err.Error(), "made read-only") {
		t.Fatalf("writeKernelSysctl without the directory = %v, want an error naming it", err)
	}
}

// TestKernelSysctlWritesBeneathItsDescriptor: a cap is written to the file
// of that name beneath the kept directory and compared by fields on read
// back (kernel.sem reads back separated by tabs).
func TestKernelSysctlWritesBeneathItsDescriptor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sem"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &rootfs{kernelSysctl: sysctlDir{name: "kernel", fd: fd}}
	defer r.closeKernelSysctl()
	if err := r.writeKernelSysctl("sem", "1 2 3 4"); err != nil {
		t.Fatalf("writeKernelSysctl beneath its descriptor: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sem")); string(b) != "1 2 3 4" {
		t.Fatalf("the file reads %q", b)
	}
}

// TestNoIPCNamespaceIsANoOp: a rootfs that made none (root, or a test's
// zero value) joins and closes nothing, descriptor 0 included.
func TestNoIPCNamespaceIsANoOp(t *testing.T) {
	var n ipcNamespace
	if err := n.join(); err != nil {
		t.Fatal(err)
	}
	n.close()
	if _, err := unix.FcntlInt(0, unix.F_GETFD, 0); err != nil {
		t.Fatalf("descriptor 0 after closing no namespace: %v", err)
	}
}
