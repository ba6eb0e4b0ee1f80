package policy

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// The digest the binary reports (builtPolicyDigest) is the one this tree's
// policy computes. A change to the seccomp filter, the refused paths, the
// masks or the egress ranges changes it, and this test fails until
// builtPolicyDigest is edited in the same change.
func TestPolicyDigestIsPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the digest is pinned for amd64 builds, the only ones with an embedded seccomp filter")
	}
	if got := Fingerprint().Digest(); got != builtPolicyDigest {
		b, _ := json.MarshalIndent(Fingerprint(), "", "  ")
		t.Fatalf("the built-in policy changed: digest %s, pinned %s.\n"+
			"If the change is intended, review the policy below and set builtPolicyDigest (fingerprint.go) to the new digest:\n%s",
			got, builtPolicyDigest, b)
	}
	if PolicyDigest() != builtPolicyDigest {
		t.Fatalf("PolicyDigest() = %s, want the pinned %s", PolicyDigest(), builtPolicyDigest)
	}
}

// Every part of the fingerprint moves the digest.
func TestFingerprintCoversEveryPart(t *testing.T) {
	base := Fingerprint()
	edits := map[string]func(*PolicyFingerprint){
		"seccomp":       func(f *PolicyFingerprint) { f.Seccomp[runtime.GOARCH] += "x" },
		"seccomp rules": func(f *PolicyFingerprint) { f.SeccompRules = f.SeccompRules[1:] },
		"refused":       func(f *PolicyFingerprint) { f.RefusedPaths = f.RefusedPaths[1:] },
		"system":        func(f *PolicyFingerprint) { f.ReadOnlySystem = f.ReadOnlySystem[1:] },
		"masks":         func(f *PolicyFingerprint) { f.Masks = f.Masks[1:] },
		"carve-outs":    func(f *PolicyFingerprint) { f.Carveouts = f.Carveouts[1:] },
		"egress":        func(f *PolicyFingerprint) { f.EgressRefused = f.EgressRefused[1:] },
	}
	for name, edit := range edits {
		f := Fingerprint()
		edit(&f)
		if f.Digest() == base.Digest() {
			t.Errorf("changing %s does not change the digest", name)
		}
	}
	joined := strings.Join(base.Masks, " ")
	for _, want := range []string{"~/.ssh", "~/.aws", "/etc/ssh/ssh_host_*", "/run/user/$UID", "$STATE"} {
		if !strings.Contains(joined, want) {
			t.Errorf("fingerprint masks lack %s", want)
		}
	}
	if len(base.EgressRefused) < 20 || len(base.SeccompRules) == 0 {
		t.Errorf("fingerprint is missing parts: %+v", base)
	}
}

// The runtime check behind `acbox selftest` and `acbox doctor`: a reported
// digest that is not the computed one fails and names the remedy.
func TestDigestMatches(t *testing.T) {
	const a, b = "47e99360a7ed3613968e55d1877bf4856ffd8ab1788bd8f192e378a9a596a8af", "0000000000000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct {
		name               string
		computed, reported string
		ok                 bool
	}{
		{"pinned and computed agree", a, a, true},
		{"the policy moved, the pin did not", b, a, false},
		{"the pin moved, the policy did not", a, b, false},
		{"nothing pinned", a, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := digestMatches(tc.computed, tc.reported)
			if tc.ok {
				if err != nil {
					t.Fatalf("digestMatches: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("digestMatches passed digests that differ")
			}
			var de *DigestDriftError
			if !errors.As(err, &de) || de.Computed != tc.computed || de.Reported != tc.reported {
				t.Errorf("digestMatches: %#v; want the digests it compared", err)
			}
			for _, want := range []string{"computes " + tc.computed + ";", "digest " + tc.reported + " ", "TestPolicyDigestIsPinned", "fingerprint.go", "rebuild"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
	if err := CheckPolicyDigest(); err != nil {
		t.Errorf("this tree: %v", err)
	}
}
