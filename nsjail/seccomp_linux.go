package nsjail

import (
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/seccomp"
)

// buildSeccomp builds the member's filter and records it. The caller
// loads it (loadSeccomp) right before the fork, and refuses the launch if
// that fails, so the control is recorded as enforced here.
func buildSeccomp(rep *policy.Report) (*seccomp.Program, error) {
	prog, err := seccomp.Build(seccomp.Options{BlockMPTCP: true})
	if err != nil {
		return nil, &stepError{step: "seccomp build", err: err}
	}
	rep.Seccomp = &policy.SeccompRecord{Digest: prog.Digest, Arch: prog.Arch, Insns: prog.Insns}
	rep.Controls = append(rep.Controls, policy.Control{Name: "seccomp", Requested: true, Enforced: true})
	return prog, nil
}

// loadSeccomp lowers RLIMIT_DATA to the member's limit, the last call the
// filter refuses, and loads the filter on the calling thread only. It runs
// right before the member's fork: until pid 1 restores its own limit after
// the fork (startMember), every thread of pid 1 allocates under the
// member's limit, and pid 1's heap growing past it would kill it.
func loadSeccomp(prog *seccomp.Program, memory int64, rep *policy.Report) error {
	t := time.Now()
	if err := setMemberData(uint64(memory)); err != nil {
		return err
	}
	if err := prog.LoadThread(); err != nil {
		return &stepError{step: "seccomp load", err: err}
	}
	rep.PhasesMS["seccomp"] = ms(time.Since(t))
	return nil
}
