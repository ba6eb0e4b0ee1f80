package docker

import (
	"bytes"
	"testing"

	"github.com/acbox/acbox/coordinator/docker/profile"
)

// TestProfileIsGenerated: the embedded profile is what package profile
// builds from docker's default and the native policy now. A policy edit (or
// a moby update) without a regenerated file fails here. Linux only: moby
// builds its default profile there only.
func TestProfileIsGenerated(t *testing.T) {
	want, err := profile.Indented()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(profileFile, want) {
		t.Fatal("seccomp_profile.json is not the profile the policy gives now; regenerate it from the module root with\n\tgo generate ./coordinator/docker/")
	}
	compact, err := profile.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if profileJSON() != string(compact) {
		t.Error("the profile passed to docker is not json.Marshal's form of the built profile")
	}
}
