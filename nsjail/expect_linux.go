package nsjail

import (
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/seccomp"
	"github.com/acbox/acbox/landlock"
)

// Expect is the enforcement report's shape for a plan before anything
// runs: which controls the native backend would apply on this kernel, for
// `acbox plan`. Mounts, namespaces and capability sets are known only once
// the sandbox exists; the launch measures them and refuses on a shortfall.
func Expect(p *policy.Plan) *policy.Report {
	rep := &policy.Report{Backend: "native", PolicyDigest: policy.PolicyDigest()}
	abi, err := landlock.ABI()
	lr := landlock.Plan(landlockRules(p), abi)
	rep.Landlock = lr.AppendJSON(nil)
	why := ""
	if err != nil {
		why = err.Error()
	} else if len(lr.Missing) > 0 {
		why = "kernel lacks: " + strings.Join(lr.Missing, ", ")
	}
	rep.Controls = append(rep.Controls, policy.Control{Name: "landlock", Requested: true, Enforced: why == "", Why: why})
	if prog, err := seccomp.Build(seccomp.Options{BlockMPTCP: true}); err == nil {
		rep.Seccomp = &policy.SeccompRecord{Digest: prog.Digest, Arch: prog.Arch, Insns: prog.Insns}
		rep.Controls = append(rep.Controls, policy.Control{Name: "seccomp", Requested: true, Enforced: true})
	} else {
		rep.Controls = append(rep.Controls, policy.Control{Name: "seccomp", Requested: true, Why: err.Error()})
	}
	for _, n := range []string{"capabilities", "no_new_privs", "limits"} {
		rep.Controls = append(rep.Controls, policy.Control{Name: n, Requested: true, Enforced: true, Why: "checked at launch"})
	}
	isolated := p.Network.Mode != "host"
	rep.Controls = append(rep.Controls, policy.Control{Name: "network_isolation", Requested: isolated, Enforced: isolated})
	if !isolated {
		listenGuardControl(rep, probeListenGuard)
	}
	return rep
}
