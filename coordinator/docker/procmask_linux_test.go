package docker

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestHostRootOnlyProc: every path the parent adds to the masked paths is
// a top-level /proc entry of this host that only root may read and no list
// names, and every such regular file of this host is among them.
func TestHostRootOnlyProc(t *testing.T) {
	got, err := hostRootOnlyProc()
	if err != nil {
		t.Fatal(err)
	}
	named := append(policy.ProcMaskFiles(), policy.ProcMaskDirs()...)
	for _, p := range got {
		n := strings.TrimPrefix(p, "/proc/")
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(n, "/") || slices.Contains(named, n) || (!policy.ProcRootOnly(st.Mode) && st.Mode&unix.S_IFMT == unix.S_IFREG) {
			t.Errorf("%s (mode %o) added to the masked paths", p, st.Mode)
		}
	}
	for _, n := range []string{"kmsg", "program_cpu"} {
		var st unix.Stat_t
		if unix.Lstat("/proc/"+n, &st) == nil && policy.ProcRootOnly(st.Mode) && !slices.Contains(got, "/proc/"+n) {
			t.Errorf("/proc/%s (mode %o) is not among the masked paths %v", n, st.Mode, got)
		}
	}
}

// TestRootOnlyMaskRequired: the inspection requires the masked paths the
// parent added, not only the fixed ones.
func TestRootOnlyMaskRequired(t *testing.T) {
	s := testSetup()
	s.masked = append(s.masked, "/proc/program_cpu")
	in := asCreated(s)
	in.HostConfig.MaskedPaths = slices.Clone(maskedPaths)
	p := s.problems(in, true)
	if !slices.ContainsFunc(p, func(m string) bool { return strings.Contains(m, "masked paths") }) {
		t.Fatalf("problems = %v, want one about the masked paths", p)
	}
}
