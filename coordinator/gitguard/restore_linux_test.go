package gitguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestRestoreOnEACCES: a member that takes the permissions off a directory
// it owns to hide a git directory planted below does not hide it: the walk
// meets EACCES, gives the owner its permissions back and looks again. Only
// an unprivileged process meets EACCES there (root's DAC override reads
// through mode 0), so as root the test runs itself as nobody.
func TestRestoreOnEACCES(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "^TestRestoreOnEACCES$")
		return
	}
	cases := []struct {
		name string
		hide func(root string) string // what to chmod 0
	}{
		{"a subdirectory", func(r string) string { return filepath.Join(r, "src") }},
		{"the work tree's root", func(r string) string { return r }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			grant := t.TempDir()
			root := filepath.Join(grant, "p")
			tree(t, root, repo...)
			g, err := Watch([]Repo{{Root: root, Grant: grant, OwnGitDir: true}}, []string{filepath.Join(root, ".git")})
			if err != nil {
				t.Fatal(err)
			}
			tree(t, root, "src/deep/.git/HEAD = ref: refs/heads/main\n")
			hidden := c.hide(root)
			if err := os.Chmod(hidden, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(hidden, 0o755) }) // before TempDir's removal
			res := g.Check()
			if !slices.Contains(res.Paths(), filepath.Join(root, "src/deep/.git")) {
				t.Errorf("the git directory under a mode-0 directory was not found: %v", res.Findings)
			}
		})
	}
}

// runAsNobody re-runs the tests matching run as nobody (65534), from a copy
// of the test binary that user can read, and fails with their output.
func runAsNobody(t *testing.T, run string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "acbox-gitguard") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	src, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "gitguard.test")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run="+run, "-test.v", "-test.count=1")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/", "TMPDIR=" + os.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
