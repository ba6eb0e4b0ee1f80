package docker

import (
	"strings"
	"testing"
)

// TestProfileDigest: the digest the report carries, of the compact profile
// docker is given (the embedded file is indented for review).
func TestProfileDigest(t *testing.T) {
	if d := ProfileDigest(); len(d) != len("sha256:")+64 || !strings.HasPrefix(d, "sha256:") {
		t.Errorf("digest %q", d)
	}
	if strings.Contains(profileJSON(), "\n") || !strings.HasPrefix(seccompOpt(), `seccomp={"defaultAction":`) {
		t.Errorf("the profile passed to docker is not compact JSON: %.60q", seccompOpt())
	}
}
