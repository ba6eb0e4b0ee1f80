package profile

import (
	"encoding/json"
	"slices"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// Allow rules are narrowed rather than overlaid with errno rules because
// libseccomp (2.5) merges rules per syscall into one tree: an errno rule
// under an unconditional allow is refused (EACCES/EEXIST) or silently
// dropped, and runc skips a rule whose action equals the default action.
// Narrowing leaves no overlap to resolve.

// Compact is the profile as the docker backend passes it in SecurityOpt
// "seccomp=<json>" (and its inspect check compares it byte for byte).
func Compact() ([]byte, error) { return json.Marshal(Build()) }

// Indented is the file `go generate ./coordinator/docker/` writes: the
// same JSON indented, one rule field a line, so that a change of the
// policy or of moby's default reviews as a short diff. Compacting it gives
// Compact's bytes.
func Indented() ([]byte, error) {
	b, err := json.MarshalIndent(Build(), "", "  ")
	return append(b, '\n'), err
}

// Build builds the narrowed profile.
func Build() *mobyseccomp.Seccomp {
	p := defaultProfile()
	// x86_64 only: calls from any other architecture (x86 through int
	// 0x80, x32) meet runc's bad-architecture action and kill the caller.
	// The native filter also admits x86 under the same rules, but on x86
	// libseccomp turns conditional socket rules into socketcall rules and
	// refuses the narrowed set (EEXIST), so 32-bit programs do not run
	// under the docker backend.
	p.ArchMap = []mobyseccomp.Architecture{{Arch: specs.ArchX86_64}}
	rules := x86_64Rules(seccomp.Policy())
	byName := map[string][]seccomp.Rule{}
	var names []string
	for _, r := range rules {
		if nativeOnly[r.Syscall] {
			continue
		}
		if _, ok := byName[r.Syscall]; !ok {
			names = append(names, r.Syscall)
		}
		byName[r.Syscall] = append(byName[r.Syscall], r)
	}
	var out []*mobyseccomp.Syscall
	for _, s := range p.Syscalls {
		out = append(out, without(s, byName)...)
	}
	for _, n := range names {
		out = append(out, narrowed(n, byName[n], p.Syscalls)...)
	}
	p.Syscalls = out
	return p
}

// nativeOnly are the syscalls whose native rules the profile leaves out.
// The native filter refuses setting RLIMIT_DATA because without a cgroup
// it is the memory cap; a container always has its memory cgroup, and
// acbox's init, which runs under this profile, sets the member's
// RLIMIT_DATA itself (a soft limit the member may raise: the cgroup is the
// cap).
var nativeOnly = map[string]bool{"setrlimit": true, "prlimit64": true}

// x86_64Rules leaves out the rules for x86 alone of a syscall that x86_64
// has rules for too: the profile names syscalls, not numbers, and on
// x86_64 alone such a rule would refuse another call (x86's old mmap,
// refused outright, would refuse x86_64's mmap). Rules for syscalls only
// x86 has (socketcall, mmap2, umount) stay, matching nothing on x86_64,
// as the x86 names in docker's own lists do.
func x86_64Rules(rules []seccomp.Rule) []seccomp.Rule {
	onAMD64 := map[string]bool{}
	for _, r := range rules {
		if slices.Contains(r.Arch, seccomp.ArchAMD64) {
			onAMD64[r.Syscall] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(rules), func(r seccomp.Rule) bool {
		return onAMD64[r.Syscall] && !slices.Contains(r.Arch, seccomp.ArchAMD64)
	})
}

// without returns s minus the syscalls the native policy has rules for.
func without(s *mobyseccomp.Syscall, native map[string][]seccomp.Rule) []*mobyseccomp.Syscall {
	c := *s
	c.Names = slices.DeleteFunc(slices.Clone(s.Names), func(n string) bool { return native[n] != nil })
	if s.Name != "" && native[s.Name] != nil || len(c.Names) == 0 && s.Name == "" {
		return nil
	}
	return []*mobyseccomp.Syscall{&c}
}

// narrowed is the rules for one syscall that the native policy refuses
// (rules, all for name): docker's allow rules for it that apply to this
// container, minus every refusal, and the refusals whose errno is not the
// default's.
func narrowed(name string, rules []seccomp.Rule, docker []*mobyseccomp.Syscall) []*mobyseccomp.Syscall {
	var allowed []cube
	for _, s := range docker {
		if s.Action == specs.ActAllow && applies(s) && (slices.Contains(s.Names, name) || s.Name == name) {
			allowed = append(allowed, fromArgs(s.Args)...)
		}
	}
	var out []*mobyseccomp.Syscall
	for _, r := range rules {
		refused := fromConds(r.Conds)
		for _, rc := range refused {
			allowed = sharpAll(allowed, rc)
		}
		if r.Errno == seccomp.EPERM {
			continue // the profile's default
		}
		errno := uint(r.Errno)
		for _, rc := range refused {
			out = append(out, &mobyseccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{
				Names: []string{name}, Action: specs.ActErrno, ErrnoRet: &errno, Args: rc.args()}, Comment: "acbox: " + r.Why})
		}
	}
	for _, c := range allowed {
		if c.needsHighBits() {
			continue
		}
		out = append(out, &mobyseccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{
			Names: []string{name}, Action: specs.ActAllow, Args: c.args()}, Comment: "acbox: docker's allow rule less acbox's refusals"})
	}
	return out
}

// needsHighBits: on x86 libseccomp compares only the low 32 bits, so an
// allow rule that needs a high bit set would allow its low half outright
// there. Such calls (junk in the high half) are refused instead; refusing
// too much is the safe side.
func (c cube) needsHighBits() bool {
	for _, p := range c {
		if p.value>>32 != 0 {
			return true
		}
	}
	return false
}

// applies reports whether a docker rule applies to acbox's containers:
// no capabilities (Caps includes never match, Caps excludes always pass)
// on x86_64 or x86 (arch includes other than those never match).
func applies(s *mobyseccomp.Syscall) bool {
	if in := s.Includes; in != nil {
		if len(in.Caps) > 0 {
			return false
		}
		if len(in.Arches) > 0 && !slices.ContainsFunc(in.Arches, func(a string) bool { return a == "amd64" || a == "x86" }) {
			return false
		}
	}
	if ex := s.Excludes; ex != nil && len(ex.Arches) > 0 && slices.ContainsFunc(ex.Arches, func(a string) bool { return a == "amd64" || a == "x86" }) {
		return false
	}
	return true
}
