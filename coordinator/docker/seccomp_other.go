//go:build !linux

package docker

import (
	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// defaultProfile: moby builds docker's default profile on Linux only.
// Elsewhere the backend never launches (see hostSupport); the stand-in
// allows nothing, so that even a launch that got this far would fail closed.
func defaultProfile() *mobyseccomp.Seccomp {
	return &mobyseccomp.Seccomp{LinuxSeccomp: specs.LinuxSeccomp{DefaultAction: specs.ActErrno}}
}
