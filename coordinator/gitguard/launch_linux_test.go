package gitguard

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// protects is a plan whose carve-outs keep root's hooks and config
// read-only inside the write grant, as policy.Resolve makes them.
func protects(grant, root string) *policy.Plan {
	return &policy.Plan{Grants: []policy.Grant{{Path: grant, Write: true}}, Protected: []policy.Carveout{
		{Path: filepath.Join(root, ".git", "hooks"), Grant: grant, Mode: policy.CarveReadOnly, Why: "git hooks"},
		{Path: filepath.Join(root, ".git", "config"), Grant: grant, Mode: policy.CarveReadOnly, Why: "git config"},
	}}
}

// TestWatchPlan: the launcher's watch over a plan, before and after.
func TestWatchPlan(t *testing.T) {
	for _, tc := range []struct {
		name    string
		deep    bool     // the work tree is deeper than MaxDepth
		plant   []string // what the member leaves, relative to the repository
		wantErr error    // from WatchPlan
		moved   []string // relative to the repository
	}{
		{name: "nothing planted"},
		{name: "a bare layout in the work tree", plant: []string{"src/HEAD = ref: refs/heads/main\n", "src/objects/", "src/refs/"}, moved: []string{"src/HEAD"}},
		{name: "a new .git file", plant: []string{"src/.git = gitdir: /tmp/elsewhere\n"}, moved: []string{"src/.git"}},
		{name: "too large", deep: true, wantErr: policy.ErrRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grant, _ := filepath.EvalSymlinks(t.TempDir())
			root := filepath.Join(grant, "repo")
			tree(t, root, ".git/HEAD = ref: refs/heads/main\n", ".git/objects/", ".git/refs/", ".git/hooks/", ".git/config", "src/")
			if tc.deep {
				os.MkdirAll(filepath.Join(root, strings.Repeat("d/", MaxDepth+2)), 0o755)
			}
			r, err := WatchPlan(protects(grant, root))
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("WatchPlan: %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			tree(t, root, tc.plant...)
			var b strings.Builder
			got, err := r.Quarantine(&b)
			want := []string{}
			for _, m := range tc.moved {
				want = append(want, filepath.Join(root, m))
			}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Quarantine: %q, %v; want %q", got, err, want)
			}
			if strings.Count(b.String(), "acbox: ") != len(want) {
				t.Errorf("printed %q, want one line per finding", b.String())
			}
		})
	}
}

// TestRedirectsNothingWatched: a plan that protects no repository, and a
// nil watch, have nothing to undo.
func TestRedirectsNothingWatched(t *testing.T) {
	r, err := WatchPlan(&policy.Plan{Grants: []policy.Grant{{Path: t.TempDir(), Write: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []*Redirects{r, nil} {
		var b strings.Builder
		if got, err := w.Quarantine(&b); got != nil || err != nil || b.Len() != 0 {
			t.Errorf("Quarantine: %v, %v, printed %q; want nil, nil, nothing", got, err, b.String())
		}
	}
}
