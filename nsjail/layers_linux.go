package nsjail

import (
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/seccomp"
)

// applyLayers drops privileges and applies the kernel layers to the calling
// (locked) thread, in the order the kernel requires: the bounding and
// ambient sets while CAP_SETPCAP is still held, no_new_privs, Landlock,
// then the remaining capability sets. It builds the seccomp filter, which
// the caller loads last, right before the fork (loadSeccomp): the filter
// refuses calls the earlier steps make.
func applyLayers(cfg *helperConfig, rep *policy.Report) (*seccomp.Program, error) {
	if err := dropBoundingAndAmbient(); err != nil {
		return nil, &stepError{step: "drop capabilities", err: err}
	}
	if err := setNoNewPrivs(); err != nil {
		return nil, &stepError{step: "no_new_privs", err: err}
	}
	// pid 1 gives up its capabilities on every thread here, before the
	// member exists: the broadcast is a real-time signal to each thread,
	// which the kernel refuses (EAGAIN) once the user's pending signals
	// in the sandbox are used up, and the Go runtime then waits for that
	// thread forever. A member that queued signals to itself as soon as
	// it started could otherwise leave pid 1 spinning, never ready, never
	// reaping (seen under load with TestSigpendingHeadroom).
	t := time.Now()
	if err := dropAllThreadsCaps(pid1Keeps(rep)); err != nil {
		return nil, &stepError{step: "drop pid 1 capabilities", err: err}
	}
	rep.PhasesMS["drop_pid1_caps"] = ms(time.Since(t))
	t = time.Now()
	if err := applyLandlock(cfg, rep); err != nil {
		return nil, err
	}
	rep.PhasesMS["landlock"] = ms(time.Since(t))
	if err := clearThreadCaps(); err != nil {
		return nil, &stepError{step: "drop capabilities", err: err}
	}
	prog, err := buildSeccomp(rep)
	if err != nil {
		return nil, err
	}
	recordPrivileges(rep)
	return prog, nil
}

// pid1Keeps is what pid 1's threads keep of their capabilities: nothing,
// or with host mode's listen guard, CAP_SYS_PTRACE in the sandbox's user
// namespace. The guard takes the member's socket with pidfd_getfd, which
// needs ptrace access to the member; without the capability, a member
// that made itself non-dumpable (ssh-agent and gpg-agent do, before they
// listen) had every listen refused, Unix sockets too. The capability is
// the namespace's: it reaches only processes whose credentials and memory
// belong to it (the members), never the host's (docs/design.md, "Host
// mode's listen guard"). The member's thread empties its own sets before the
// fork (clearThreadCaps), so the member holds none of it.
func pid1Keeps(rep *policy.Report) uint32 {
	if guardEnforced(rep) {
		return ptraceCap
	}
	return 0
}

// recordPrivileges reads back what the thread (and so the member) holds.
func recordPrivileges(rep *policy.Report) {
	st := threadStatus()
	rep.Caps = map[string]string{}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		rep.Caps[k] = st[k]
	}
	rep.NoNewPrivs = st["NoNewPrivs"] == "1"
	noCaps := true
	for _, v := range rep.Caps {
		if v != "0000000000000000" {
			noCaps = false
		}
	}
	rep.Controls = append(rep.Controls,
		policy.Control{Name: "capabilities", Requested: true, Enforced: noCaps, Why: whyNot(noCaps, "a capability set is not empty")},
		policy.Control{Name: "no_new_privs", Requested: true, Enforced: rep.NoNewPrivs, Why: whyNot(rep.NoNewPrivs, "NoNewPrivs is not set")},
	)
}

func whyNot(ok bool, why string) string {
	if ok {
		return ""
	}
	return why
}
