package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/acbox/acbox/coordinator/policy"
)

// VersionCmd prints the build.
type VersionCmd struct {
	JSON bool `help:"Print JSON."`
}

// Run prints the release version (the VERSION file the build embeds), the
// contract version clients check, the VCS revision, Go and dependency
// versions, and the digest of the built-in policy
// (policy.PolicyFingerprint) with, in --json, every part it covers.
func (c *VersionCmd) Run(s *Streams) error {
	v := versionInfo()
	if c.JSON {
		b, _ := json.MarshalIndent(v, "", "  ")
		_, err := fmt.Fprintln(s.Out, string(b))
		return err
	}
	_, err := fmt.Fprintf(s.Out, "acbox %v (%v) %v\npolicy sha256:%s\n", v["version"], v["vcs.revision"], v["go"], v["policy_digest"])
	return err
}

// versionInfo is `acbox version --json`: "version", "contract", "commit",
// "go", "policy" and "policy_digest" are the contract's; the rest is for
// people.
func versionInfo() map[string]any {
	v := map[string]any{"version": releaseVersion(), "contract": contract, "vcs.revision": "unknown", "go": runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v["go"] = bi.GoVersion
		deps := map[string]string{}
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
		v["deps"] = deps
		for _, st := range bi.Settings {
			if st.Key == "vcs.revision" || st.Key == "vcs.modified" {
				v[st.Key] = st.Value
			}
		}
	}
	v["commit"] = v["vcs.revision"]
	fp := policy.Fingerprint()
	v["policy_digest"] = fp.Digest()
	v["policy"] = fp
	return v
}
