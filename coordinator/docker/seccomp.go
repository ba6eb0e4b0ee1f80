package docker

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"sync"
)

// The container's seccomp profile is docker's default (moby/profiles
// v0.3.0) narrowed so that it refuses at least what acbox's native filter
// refuses; package profile builds it (its doc says how) at development
// time, and the binary embeds the result, as it embeds the native BPF.
//go:generate go run ./profile/internal/gen

// profileFile is written by `go generate ./coordinator/docker/`, indented
// for review; the golden test fails when it no longer matches the policy.
//
//go:embed seccomp_profile.json
var profileFile []byte

// profileJSON is the profile as passed in SecurityOpt "seccomp=<json>":
// profileFile compacted, which is json.Marshal's form. The inspect check
// compares it byte for byte.
var profileJSON = sync.OnceValue(func() string {
	var b bytes.Buffer
	if err := json.Compact(&b, profileFile); err != nil {
		panic("bug: the embedded docker seccomp profile is not JSON (run go generate ./coordinator/docker/): " + err.Error())
	}
	return b.String()
})

// ProfileDigest is the sha256 of the profile acbox gives every container.
func ProfileDigest() string {
	sum := sha256.Sum256([]byte(profileJSON()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func seccompOpt() string { return "seccomp=" + profileJSON() }
