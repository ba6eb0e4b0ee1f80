package nsjail

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

const kernelSysctlDir = "/proc/sys/kernel/"

// hostIPCLimits reads the parent's System V IPC limits (those of the IPC
// namespace acbox runs in: the sandbox's caps never pass them).
func hostIPCLimits() map[string]string {
	out := map[string]string{}
	for _, n := range ipcLimitNames {
		if b, err := sys.ReadFile(kernelSysctlDir + n); err == nil {
			out[n] = strings.Join(strings.Fields(string(b)), " ")
		}
	}
	return out
}

// planIPCLimits is the parent's side: the caps for this plan's memory and
// process limits.
func planIPCLimits(p *policy.Plan) []ipcLimit {
	mem, pids := p.Limits.Memory, p.Limits.Pids
	if mem <= 0 {
		mem = policy.DefaultMemory
	}
	if pids <= 0 {
		pids = policy.DefaultPids
	}
	return ipcLimitCaps(hostIPCLimits(), mem, pids)
}

// capIPCLimits is pid 1's side: it writes each cap into the sandbox's IPC
// namespace, reads it back and records it. A cap that cannot be set (or
// a plan without every one of them) refuses the launch unless the plan
// asked for best effort. write is rootfs.writeKernelSysctl (a seam for
// tests).
//
// A user's pid 1 has them written by a child in an IPC namespace of its
// own (ipcns_linux.go); write then returns that child's result.
func capIPCLimits(caps []ipcLimit, p *policy.Plan, rep *policy.Report, write func(string, string) error) error {
	var set, failed []string
	var errs []error
	done := map[string]bool{}
	for _, c := range caps {
		err := errors.New("the parent could not read or parse the host's value")
		if c.Cap != "" {
			err = write(c.Name, c.Cap)
		}
		if err != nil {
			failed = append(failed, c.Name)
			errs = appendDistinct(errs, err)
			continue
		}
		done[c.Name] = true
		rep.Limits["ipc."+c.Name] = fmt.Sprintf("%s (host %s)", c.Cap, c.Host)
		set = append(set, fmt.Sprintf("%s=%s", c.Name, c.Cap))
	}
	for _, n := range ipcLimitNames {
		if !done[n] && !containsStr(failed, n) {
			failed = append(failed, n)
			errs = appendDistinct(errs, errors.New("the host's /proc/sys/kernel/"+n+" could not be read"))
		}
	}
	ctl := policy.Control{Name: "ipc_limits", Requested: true, Enforced: len(failed) == 0,
		Why: "System V IPC capped in the sandbox's IPC namespace to a quarter of --memory each for messages, shared memory and semaphores: " + strings.Join(set, ", ")}
	if len(failed) > 0 {
		ctl.Why = "could not cap kernel." + strings.Join(failed, ", kernel.") + " in the sandbox's IPC namespace: " + errors.Join(errs...).Error()
	}
	rep.Controls = append(rep.Controls, ctl)
	if !ctl.Enforced && !p.BestEffort {
		return &stepError{step: "cap System V IPC limits (/proc/sys/kernel)",
			err: fmt.Errorf("%w; without them a member holds message queues and shared memory beyond --memory; pass --best-effort to run without these caps", errors.Join(errs...))}
	}
	return nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// openKernelSysctl opens the new /proc's sys/kernel directory (O_PATH)
// before /proc/sys is bound read-only, as openUserSysctl does for
// sys/user: pid 1 writes the IPC caps through it after pivot_root.
func (r *rootfs) openKernelSysctl() {
	r.kernelSysctl, r.kernelSysctlErr = openNoFollow(r.root, "proc/sys/kernel", true, true)
	if r.kernelSysctlErr != nil {
		r.kernelSysctl = -1
	}
}

// closeKernelSysctl closes it before the member starts.
func (r *rootfs) closeKernelSysctl() {
	if r.kernelSysctl > 0 {
		sys.Close(r.kernelSysctl)
	}
	r.kernelSysctl, r.kernelSysctlErr = -1, errors.New("the sandbox's /proc/sys/kernel was closed")
}

// writeKernelSysctl writes v to /proc/sys/kernel/name beneath the kept
// descriptor and checks that it reads back (fields compared: kernel.sem
// reads back separated by tabs).
func (r *rootfs) writeKernelSysctl(name, v string) error {
	path := kernelSysctlDir + name
	if r.kernelSysctlErr != nil || r.kernelSysctl <= 0 {
		why := "it was never opened"
		if r.kernelSysctlErr != nil {
			why = r.kernelSysctlErr.Error()
		}
		return fmt.Errorf("pid 1 holds no descriptor of /proc/sys/kernel from before /proc/sys was made read-only: %s", why)
	}
	fd, err := sys.Openat(r.kernelSysctl, name, unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer sys.Close(fd)
	got, err := writeBack(fd, path, v)
	if err == nil && strings.Join(strings.Fields(got), " ") != v {
		err = fmt.Errorf("%s reads %q after writing %q", path, got, v)
	}
	return err
}
