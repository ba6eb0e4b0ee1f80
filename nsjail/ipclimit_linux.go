package nsjail

import (
	"errors"
	"fmt"
	"strings"

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

// openKernelSysctl keeps the new /proc's sys/kernel for the IPC caps,
// as openUserSysctl does sys/user.
func (r *rootfs) openKernelSysctl() { r.kernelSysctl.open(r.root, "kernel") }

// closeKernelSysctl closes it before the member starts.
func (r *rootfs) closeKernelSysctl() { r.kernelSysctl.close("kernel") }

// writeKernelSysctl writes v to /proc/sys/kernel/name beneath the kept
// descriptor and checks that it reads back (fields compared: kernel.sem
// reads back separated by tabs).
func (r *rootfs) writeKernelSysctl(name, v string) error { return r.kernelSysctl.write(name, v) }
