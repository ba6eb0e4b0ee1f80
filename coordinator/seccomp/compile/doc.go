// Package compile turns the seccomp policy, which package seccomp holds as
// data, into classic BPF with libseccomp. It runs at development time only:
// `go generate ./coordinator/seccomp/` calls it through
// coordinator/seccomp/internal/gen and commits the result, which package seccomp
// embeds, and the golden test here keeps the committed bytes equal to a
// fresh compile. Nothing that runs inside a sandbox imports it.
//
//	bpf, err := compile.Compile(seccomp.Policy())
//
// Each architecture gets a libseccomp filter of its own, merged before
// export, so a rule is compiled only for the architectures it lists (x86's
// old mmap is refused outright, x86_64's mmap on a flag); a rule may list
// only architectures that have its syscall, and every architecture that
// has a refused syscall must have a rule for it. Only the syscalls in
// splitArches may have rules that differ by architecture; any other rule
// lists every architecture that has its syscall.
//
// Each architecture's program is libseccomp's binary tree
// (SCMP_FLTATR_CTL_OPTIMIZE = 2): a syscall's rules are found by binary
// search on its number, not after every syscall with rules before it. The
// layout test compiles the linear layout too and checks that both decide
// every call alike.
//
// # Platform notes
//
// Compile needs Linux, cgo and libseccomp 2.5 or later (libseccomp-dev) on
// an x86_64 host; other builds return [seccomp.ErrUnsupported]. Another
// libseccomp version may lay out the same policy differently: the filter is
// then just as valid, but the golden test asks for it to be regenerated and
// reviewed.
package compile
