//go:build !linux

package profile

import (
	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// defaultProfile: moby builds docker's default profile on Linux only.
// Elsewhere the generator refuses to run; the stand-in allows nothing, so
// that even a profile built from it would fail closed.
func defaultProfile() *mobyseccomp.Seccomp {
	return &mobyseccomp.Seccomp{LinuxSeccomp: specs.LinuxSeccomp{DefaultAction: specs.ActErrno}}
}
