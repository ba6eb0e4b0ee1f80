package policy

import "fmt"

// CheckPolicyDigest computes this build's policy digest and compares it
// with the one PolicyDigest reports, which on amd64 is written down
// (builtPolicyDigest) rather than computed. A build whose policy moved
// without that line being edited (TestPolicyDigestIsPinned not run) would
// report the reviewed digest for a policy nobody reviewed; this catches it
// where the binary runs. It costs what the launch saves (about 0.4 ms of
// CPU), so `acbox selftest` and `acbox doctor` call it, never a launch.
// The error is a *DigestDriftError.
func CheckPolicyDigest() error {
	return digestMatches(Fingerprint().Digest(), PolicyDigest())
}

// DigestPinRemedy is what to do when CheckPolicyDigest fails.
const DigestPinRemedy = "do not rely on this binary's reports: it was built from a tree whose pinned digest is stale; " +
	"rebuild from a released tree, or report it; to fix the tree, run `go test ./coordinator/policy -run TestPolicyDigestIsPinned`, " +
	"review the policy it prints, set builtPolicyDigest in coordinator/policy/fingerprint.go to the digest it names, and rebuild"

// DigestDriftError is a build that reports one policy digest and enforces
// the policy of another: the built-in policy changed without its pin.
type DigestDriftError struct {
	Reported string // what `acbox version --json` and reports say
	Computed string // what the built-in policy computes
}

func (e *DigestDriftError) Error() string {
	return fmt.Sprintf("bug: this build reports the policy digest %s (acbox version --json, every report), "+
		"but its built-in policy computes %s; %s", e.Reported, e.Computed, DigestPinRemedy)
}

// digestMatches returns nil when computed, the digest of the policy this
// build enforces, is the one it reports.
func digestMatches(computed, reported string) error {
	if computed == reported {
		return nil
	}
	return &DigestDriftError{Reported: reported, Computed: computed}
}
