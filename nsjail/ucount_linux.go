package nsjail

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

const userSysctlDir = "/proc/sys/user/"

// hostUserCounters reads the parent's /proc/sys/user limits (those of the
// user namespace acbox runs in, which is what the sandbox's counters are
// charged against next). A file this kernel lacks is left out.
func hostUserCounters() map[string]int64 {
	out := map[string]int64{}
	for _, n := range append(append([]string{}, sharedCounters...), namespaceLimits...) {
		b, err := sys.ReadFile(userSysctlDir + n)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			out[n] = v
		}
	}
	return out
}

// planCounterCaps is the parent's side: the caps for this plan's memory.
// With no host memory figure the share is three quarters of each limit.
func planCounterCaps(p *policy.Plan) []userCounter {
	mem := p.Limits.Memory
	if mem <= 0 {
		mem = policy.DefaultMemory
	}
	hostMem, _ := policy.HostMemory()
	return userCounterCaps(hostUserCounters(), mem, hostMem)
}

// capUserCounters is pid 1's side: it writes each cap into the sandbox's
// user namespace (pid 1 holds CAP_SYS_RESOURCE there until it drops its
// capabilities; the member never holds it, so it cannot raise them), reads
// it back, and records the values. A cap that cannot be set refuses the
// launch unless the plan asked for best effort. write is
// rootfs.writeUserSysctl (a seam for tests).
func capUserCounters(caps []userCounter, p *policy.Plan, rep *policy.Report, write func(string, int64) error) error {
	var set, failed []string
	var errs []error
	for _, c := range caps {
		if err := write(c.Name, c.Cap); err != nil {
			failed = append(failed, c.Name)
			errs = appendDistinct(errs, err)
			continue
		}
		rep.Limits["user."+c.Name] = fmt.Sprintf("%d (host %d)", c.Cap, c.Host)
		set = append(set, fmt.Sprintf("%s=%d", c.Name, c.Cap))
	}
	ctl := policy.Control{Name: "user_counters", Requested: true, Enforced: len(failed) == 0 && len(caps) > 0,
		Why: "per-user kernel counters capped in the sandbox's user namespace: " + strings.Join(set, ", ")}
	if len(caps) == 0 {
		ctl.Why = "the host's /proc/sys/user limits could not be read"
		errs = append(errs, errors.New(ctl.Why))
	}
	if len(failed) > 0 {
		ctl.Why = "could not cap " + strings.Join(failed, ", ") + " in the sandbox's user namespace: " + errors.Join(errs...).Error()
	}
	rep.Controls = append(rep.Controls, ctl)
	if !ctl.Enforced && !p.BestEffort {
		return &stepError{step: "cap per-user kernel counters (/proc/sys/user)",
			err: fmt.Errorf("%w; pass --best-effort to run without these caps", errors.Join(errs...))}
	}
	return nil
}

// appendDistinct adds err unless an error of the same text is there: a
// cause shared by every counter (no descriptor) is said once.
func appendDistinct(errs []error, err error) []error {
	for _, e := range errs {
		if e.Error() == err.Error() {
			return errs
		}
	}
	return append(errs, err)
}

// openUserSysctl keeps the new /proc's sys/user for the counter caps.
func (r *rootfs) openUserSysctl() { r.userSysctl.open(r.root, "user") }

// closeUserSysctl closes it once the caps are written.
func (r *rootfs) closeUserSysctl() { r.userSysctl.close("user") }

// writeUserSysctl writes v to /proc/sys/user/name beneath the kept
// descriptor and checks it took (pid 1 sets a dozen on every launch).
func (r *rootfs) writeUserSysctl(name string, v int64) error {
	return r.userSysctl.write(name, strconv.FormatInt(v, 10))
}
