package nsjail

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// applyLimits sets the rlimits the member inherits. They are per-process
// (RLIMIT_NPROC is per user namespace and uid, which makes it a sandbox-wide
// fork cap), so the report says that memory is capped per process, not for
// the sandbox as a whole. They are set on pid 1 just before the member is
// forked; pid 1 itself starts no further process.
func applyLimits(p *coordinator.Plan, rep *coordinator.Report) error {
	nofile := unix.Rlimit{}
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &nofile); err != nil {
		return err
	}
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"nproc", unix.RLIMIT_NPROC, uint64(p.Limits.Pids)},
		{"data", unix.RLIMIT_DATA, uint64(p.Limits.Memory)},
		{"nofile", unix.RLIMIT_NOFILE, nofile.Max}, // soft = hard: Go raises its own soft limit anyway
		{"core", unix.RLIMIT_CORE, 0},
	}
	rep.Limits = map[string]string{}
	for _, l := range limits {
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: l.value, Max: l.value}); err != nil {
			return &stepError{step: "setrlimit " + l.name, err: err}
		}
		rep.Limits[l.name] = fmt.Sprint(l.value)
	}
	rep.Limits["scope"] = "per-process rlimits (no cgroup): memory is capped per process, not for the whole sandbox; nproc counts every process of the sandbox"
	rep.Controls = append(rep.Controls, coordinator.Control{Name: "limits", Requested: true, Enforced: true, Why: "rlimits only: memory per process"})
	if p.UID == 0 {
		// The kernel exempts the host's root user from RLIMIT_NPROC.
		rep.Limits["nproc"] = "not enforced for uid 0"
		rep.Controls = append(rep.Controls, coordinator.Control{Name: "pids_limit", Why: "RLIMIT_NPROC does not apply to the host's root user; a pids cgroup is needed"})
	}
	return nil
}
