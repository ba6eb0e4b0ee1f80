// Package profile builds the docker backend's seccomp profile: docker's
// default (github.com/moby/profiles/seccomp v0.3.0) narrowed so that it
// refuses at least what acbox's native filter refuses
// (coordinator/seccomp.Policy, read here as data):
//
//   - a syscall the native policy refuses outright is taken out of every
//     allow rule, and refused with the native errno (EPERM, the profile's
//     default, needs no rule);
//   - a syscall the native policy refuses under conditions (ioctl's
//     TIOCSTI and TIOCLINUX, socket families, netlink protocols, MPTCP,
//     socketcall, personality, set-id mode bits, 20- and 24-byte xattr
//     values) keeps only the part of docker's allow rules that no native
//     rule refuses, computed as disjoint cubes, and the refused part gets
//     the native errno where that is not EPERM.
//
// It runs at development time only, like package
// coordinator/seccomp/compile for the native filter:
//
//	go generate ./coordinator/docker/
//
// writes coordinator/docker/seccomp_profile.json ([Indented]), which the
// acbox binary embeds; package docker's golden test fails until the file
// matches [Build]. The binary never links this package: moby's default
// profile is 10 KB of code and the OCI runtime-spec types run fmt.Sprintf
// in their package init, and the binary is every sandbox's pid 1, where Go
// runs every linked package's init (cmd/acbox's TestDeps forbids them).
//
// # Platform notes
//
// moby builds its default profile on Linux only; elsewhere [Build] is a
// stand-in that allows nothing, and the generator refuses to run.
package profile
