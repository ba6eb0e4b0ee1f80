// Package compile turns the seccomp policy, which package seccomp holds as
// data, into classic BPF with libseccomp. It runs at development time only:
// `go generate ./coordinator/seccomp/` calls it through
// coordinator/seccomp/internal/gen and commits the result, which package seccomp
// embeds, and the golden test here keeps the committed bytes equal to a
// fresh compile. Nothing that runs inside a sandbox imports it.
//
//	bpf, err := compile.Compile(seccomp.Policy())
//
// # Platform notes
//
// Compile needs Linux, cgo and libseccomp 2.5 or later (libseccomp-dev) on
// an x86_64 host; other builds return [seccomp.ErrUnsupported]. Another
// libseccomp version may lay out the same policy differently: the filter is
// then just as valid, but the golden test asks for it to be regenerated and
// reviewed.
package compile
