package nsjail

import (
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/seccomp"
)

// applySeccomp builds the member's filter and loads it on the calling
// thread only. It comes last: it refuses calls the earlier steps make.
func applySeccomp(cfg *helperConfig, rep *policy.Report) error {
	prog, err := seccomp.Build(seccomp.Options{BlockMPTCP: true})
	if err != nil {
		return &stepError{step: "seccomp build", err: err}
	}
	if err := prog.LoadThread(); err != nil {
		return &stepError{step: "seccomp load", err: err}
	}
	rep.Seccomp = &policy.SeccompRecord{Digest: prog.Digest, Arch: prog.Arch, Insns: prog.Insns}
	rep.Controls = append(rep.Controls, policy.Control{Name: "seccomp", Requested: true, Enforced: true})
	return nil
}
