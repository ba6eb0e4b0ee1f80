package exitscan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExitScanListed: with --report on a resolved plan, the walk before
// the run takes the names the repository search read (three levels) and
// reads deeper ones itself; either way what was there before is not
// reported and what appeared during the run is, at every depth.
func TestExitScanListed(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, w := filepath.Join(root, "home"), filepath.Join(root, "home", "w")
	deep := filepath.Join(w, "a", "b", "c", "d")
	os.MkdirAll(deep, 0o755)
	os.MkdirAll(filepath.Join(root, "state"), 0o700)
	for _, d := range []string{w, filepath.Join(w, "a"), deep} {
		old := filepath.Join(d, "old-suid")
		os.WriteFile(old, nil, 0o755)
		syscall.Chmod(old, 0o4755)
		syscall.Mkfifo(filepath.Join(d, "old-fifo"), 0o644)
		os.Symlink("/etc", filepath.Join(d, "old-link"))
	}
	age(t)
	p, err := policy.Resolve(policy.Spec{Command: []string{"true"}, Access: policy.Access{Write: []string{w}}},
		policy.Host{UID: os.Getuid(), GID: os.Getgid(), User: "u", Home: home, Cwd: w, Memory: 1 << 30, StateDir: filepath.Join(root, "state")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.TakeListings().Dir(w); !ok {
		t.Fatal("the repository search kept no listing: this test would not walk what it is about")
	}
	p, _ = policy.Resolve(policy.Spec{Command: []string{"true"}, Access: policy.Access{Write: []string{w}}},
		policy.Host{UID: os.Getuid(), GID: os.Getgid(), User: "u", Home: home, Cwd: w, Memory: 1 << 30, StateDir: filepath.Join(root, "state")})
	s := Begin(p, true)
	if p.TakeListings() != nil {
		t.Error("Begin left the listings in the plan")
	}
	var want []string
	for _, d := range []string{deep, filepath.Join(w, "a", "b")} { // the report sorts
		made := filepath.Join(d, "new-fifo")
		syscall.Mkfifo(made, 0o644)
		want = append(want, made)
	}
	got, err := s.Finish(&strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.NewFifos, want) || len(got.NewSetuid) != 0 || len(got.OutsideSymlinks) != 0 || len(got.Unchecked) != 0 {
		t.Errorf("exit scan: %+v, want only the new fifos %q", got, want)
	}
}
