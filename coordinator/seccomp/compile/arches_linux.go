//go:build linux && cgo

package compile

import (
	"fmt"
	"slices"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// A rule is compiled only for the architectures it lists: libseccomp adds a
// rule to every architecture of its filter, so each architecture gets a
// filter of its own, and they are merged before export (seccomp_merge,
// which keeps each architecture's rules apart, as one filter with several
// architectures does). That is what lets x86's old mmap be refused
// outright while x86_64's mmap is refused only with MAP_GROWSDOWN.

// archFilter is the filter of one architecture of the policy.
type archFilter struct {
	arch string
	f    *libseccomp.ScmpFilter
}

// newFilters returns an empty filter for each architecture, in the order
// given (the native one first), with the policy's default and bad-arch
// actions, which seccomp_merge requires to be equal, and layout l (the
// merged filter keeps the first one's). The caller releases them, also on
// error.
func newFilters(arches []string, l layout) ([]archFilter, error) {
	native := libseccompArch[arches[0]]
	var fs []archFilter
	for _, a := range arches {
		// NewFilter turns on TSYNC and the no_new_privs attribute, which
		// only matter to libseccomp's own Load; the program is exported and
		// loaded by seccomp's LoadThread on one thread instead.
		f, err := libseccomp.NewFilter(libseccomp.ActAllow)
		if err != nil {
			return fs, fmt.Errorf("seccomp: new filter for %s: %w", a, err)
		}
		fs = append(fs, archFilter{a, f})
		if arch := libseccompArch[a]; arch != native {
			// A new filter holds the native architecture; swap it out.
			if err := f.AddArch(arch); err != nil {
				return fs, fmt.Errorf("seccomp: add arch %s: %w", a, err)
			}
			if err := f.RemoveArch(native); err != nil {
				return fs, fmt.Errorf("seccomp: remove arch %s from the %s filter: %w", arches[0], a, err)
			}
		}
		// The default, KILL_THREAD, would leave the rest of a threaded
		// process running after one thread made an x32 call.
		if err := f.SetBadArchAction(libseccomp.ActKillProcess); err != nil {
			return fs, fmt.Errorf("seccomp: bad-arch action: %w", err)
		}
		if err := f.SetOptimize(int(l)); err != nil {
			return fs, fmt.Errorf("seccomp: layout %d (SCMP_FLTATR_CTL_OPTIMIZE): %w", l, err)
		}
	}
	return fs, nil
}

// merge merges every filter into the first, in order, and returns it.
func merge(fs []archFilter) (*libseccomp.ScmpFilter, error) {
	for _, af := range fs[1:] {
		if err := fs[0].f.Merge(af.f); err != nil {
			return nil, fmt.Errorf("seccomp: merge the %s filter into the %s one: %w", af.arch, fs[0].arch, err)
		}
	}
	return fs[0].f, nil
}

// release frees the filters; a merged one is already gone, and Release
// skips it.
func release(fs []archFilter) {
	for _, af := range fs {
		af.f.Release()
	}
}

// pseudoSyscallBase is libseccomp's __PNR base: names that do not exist on
// an architecture resolve below it.
const pseudoSyscallBase = -10000

// exists reports whether libseccomp's table has the syscall on arch.
// Numbers from -10000 down are libseccomp's "not on this arch"; socket and
// the like on x86 resolve to small negative numbers (multiplexed through
// socketcall) and compile to their direct syscalls.
func exists(name, arch string) bool {
	a, ok := libseccompArch[arch]
	if !ok {
		return false
	}
	nr, err := libseccomp.GetSyscallFromNameByArch(name, a)
	return err == nil && nr > pseudoSyscallBase
}

// splitArches are the syscalls whose rules may differ by architecture, and
// why. Any other syscall's every rule lists every architecture that has the
// syscall, as before rules could be split: otherwise one conditional rule
// of many (one of clone's flags, one of personality's) could leave x86 out
// with nothing noticing, since the syscall still has x86 rules.
var splitArches = map[string]string{
	"mmap": "x86's old mmap (90) has its flags in memory and is refused outright; x86_64's mmap on MAP_GROWSDOWN",
}

// checkArches holds a rule to libseccomp's syscall table: its syscall
// exists on every architecture it lists (libseccomp would skip the others
// silently: it compiles a never-matching pseudo number, so the
// documentation would promise a rule the filter lacks), and, unless the
// syscall is in splitArches, the rule lists every architecture that has it.
func checkArches(r seccomp.Rule) error {
	for _, a := range r.Arch {
		if !exists(r.Syscall, a) {
			return fmt.Errorf("syscall %s does not exist on %s, which the rule lists (arches %v) (bug)",
				r.Syscall, a, r.Arch)
		}
	}
	if _, ok := splitArches[r.Syscall]; ok {
		return nil
	}
	for _, a := range seccomp.Arches() {
		if exists(r.Syscall, a) && !slices.Contains(r.Arch, a) {
			return fmt.Errorf("syscall %s exists on %s, which the rule leaves out (arches %v): list it, "+
				"or, if the syscall's rules must differ by architecture, add it to splitArches (compile/arches_linux.go) with why (bug)",
				r.Syscall, a, r.Arch)
		}
	}
	return nil
}

// checkCovered: every architecture where a refused syscall exists has a
// rule for it. A rule of a syscall in splitArches may list fewer
// architectures than its syscall has (x86's old mmap gets a rule of its
// own), but a syscall left out on one architecture would be a refusal
// that 32-bit code, or int 0x80, walks around. Syscalls libseccomp does not know are compiled by number, on
// every architecture ([byNumber]).
func checkCovered(rules []seccomp.Rule) error {
	covered := map[string][]string{}
	var names []string
	for _, r := range rules {
		if _, ok := covered[r.Syscall]; !ok {
			names = append(names, r.Syscall)
		}
		covered[r.Syscall] = append(covered[r.Syscall], r.Arch...)
	}
	for _, n := range names {
		if _, err := libseccomp.GetSyscallFromName(n); err != nil {
			continue
		}
		for _, a := range seccomp.Arches() {
			if exists(n, a) && !slices.Contains(covered[n], a) {
				return fmt.Errorf("syscall %s exists on %s, but no rule for it lists %s (rules list %v) (bug)",
					n, a, a, covered[n])
			}
		}
	}
	return nil
}
