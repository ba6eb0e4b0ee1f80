package main

import (
	"regexp"
	"testing"
)

// TestVersionIsSemver: VERSION holds a semantic version, which clients
// compare; a stray line or a "v" would break them.
func TestVersionIsSemver(t *testing.T) {
	semver := regexp.MustCompile(`^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
	if !semver.MatchString(releaseVersion()) {
		t.Fatalf("VERSION %q is not a semantic version", releaseVersion())
	}
}
