package docker

import (
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestHostRootOnlyProc: every path the parent adds to the masked paths is
// a top-level /proc entry of this host that only root may read and no list
// names, and every such entry of this host (file or directory, whatever
// its name) is among them.
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
		typ := st.Mode & unix.S_IFMT
		if strings.Contains(n, "/") || slices.Contains(named, n) || (!policy.ProcRootOnly(st.Mode) && (typ == unix.S_IFREG || typ == unix.S_IFDIR)) {
			t.Errorf("%s (mode %o) added to the masked paths", p, st.Mode)
		}
	}
	want := unnamedRootOnlyProc(t, named)
	if len(want) == 0 {
		t.Skip("this host's /proc has no top-level entry only root may read that no list names: nothing the parent must add")
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("%s is readable only by root and not among the masked paths %v", p, got)
		}
	}
}

// unnamedRootOnlyProc lists, apart from hostRootOnlyProc, the top-level
// entries of this host's /proc that only root may read and that neither a
// process's directory nor a name in the lists.
func unnamedRootOnlyProc(t *testing.T, named []string) []string {
	des, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		n := d.Name()
		var st unix.Stat_t
		if policy.ProcPidEntry(n) || slices.Contains(named, n) || unix.Lstat("/proc/"+n, &st) != nil {
			continue
		}
		if policy.ProcRootOnly(st.Mode) {
			out = append(out, "/proc/"+n)
		}
	}
	return out
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
