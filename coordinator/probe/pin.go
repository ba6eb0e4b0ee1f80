package probe

import "github.com/acbox/acbox/coordinator/policy"

// PolicyPin is the suite's line for the policy digest: the digest this
// binary reports (written down, not computed, on amd64) must be the one
// its built-in policy computes. It runs outside any sandbox.
func PolicyPin() Line { return pinLine(policy.CheckPolicyDigest()) }

// pinLine judges the outcome of policy.CheckPolicyDigest.
func pinLine(err error) Line {
	o := passf("the built-in policy computes the digest this binary reports (%s)", policy.PolicyDigest())
	if err != nil {
		o = failf("%s", err)
	}
	return Line{ID: "build.policy-digest", Category: Build, Result: o.Result,
		Expect: "the policy digest in `acbox version --json` and reports is the one the built-in policy computes",
		Detail: o.Detail, Source: "acbox design (the pinned policy digest)"}
}
