package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// In the host view the sandbox has its own /tmp: acbox's state and the
// private paths there (which no grant or mount may show) need no mask and,
// above all, no snapshot of the whole shared /tmp, which the host changes
// all the time. What a grant or mount can still show under /tmp (an
// --exclude) keeps its snapshot, and a private path that is a symlink out
// of /tmp still masks its real target.
func TestHostViewSkipsPrivateTmp(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil || !strings.HasPrefix(tmp, "/tmp/") {
		t.Skip("needs a temporary directory under /tmp")
	}
	f := viewFixture(t)
	h := f.host
	state, prot, ex := filepath.Join(tmp, "acbox-1000"), filepath.Join(tmp, "prot"), filepath.Join(tmp, "ex")
	out := filepath.Join(f.root, "outside")
	for _, d := range []string{state, prot, ex, out} {
		os.MkdirAll(d, 0o700)
	}
	link := filepath.Join(tmp, "link")
	os.Symlink(out, link)
	h.StateDir = state
	h.Protect = append(h.Protect, prot, link)
	p, err := Resolve(Spec{Command: []string{"x"}, View: ViewHost, Exclude: []string{ex}}, h)
	if err != nil {
		t.Fatal(err)
	}
	ms := maskPaths(p)
	for _, gone := range []string{state, prot, link} {
		if m, ok := ms[gone]; ok {
			t.Errorf("%s is masked (%+v) although the host view never shows the host's /tmp", gone, m)
		}
	}
	if m := ms[out]; m.Held != HeldView || m.Via != link {
		t.Errorf("the real target of a private symlink under /tmp: %+v, want held by a view via %s", m, link)
	}
	if m := ms[ex]; m.Held != HeldView {
		t.Errorf("--exclude under /tmp: %+v, want held by a view (a mount may show it)", m)
	}
	for _, v := range p.Views {
		if within(v.Path, tmp) && !within(ex, v.Path) {
			t.Errorf("view %s under /tmp holds nothing a grant or mount could show", v.Path)
		}
	}
	// The grants view: unchanged (nothing under /tmp is visible there).
	if p, err = Resolve(Spec{Command: []string{"x"}}, h); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Views {
		if within(v.Path, "/tmp") {
			t.Errorf("grants view: view %s under /tmp", v.Path)
		}
	}
}
