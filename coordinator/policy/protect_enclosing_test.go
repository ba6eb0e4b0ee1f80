package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEnclosingRepo: a write grant inside a repository's work tree (or
// its git directory) has that repository found as git finds it from the
// grant, within git's ceilings, and its core.hooksPath kept read-only
// where it falls in the grant. Before, neither: the member could plant a
// .git in the grant, or a hook in the hooks directory.
func TestEnclosingRepo(t *testing.T) {
	cases := []struct {
		name    string
		tree    []string // under the fixture's root (home/u/proj is the grant)
		ceiling string   // GIT_CEILING_DIRECTORIES relative to the root; "" the root itself
		want    string   // the enclosing root relative to the root, "" none; or the error's substring
		carve   string   // carve-outs, relative to home/u
		wantErr bool
	}{
		{name: "none above", want: ""},
		{name: "work tree above", tree: []string{"home/u/.git/HEAD = ref: refs/heads/main\n"}, want: "home/u"},
		{name: "work tree two levels above", tree: []string{"home/.git/HEAD = ref: refs/heads/main\n"}, want: "home"},
		{name: "gitdir file above", tree: []string{"home/u/.git = gitdir: /elsewhere\n"}, want: "home/u"},
		{name: "inside a bare repository", tree: []string{"home/u/HEAD = ref: refs/heads/main\n", "home/u/objects/", "home/u/refs/"}, want: "home/u"},
		{name: "grant has its own repository", tree: append([]string{"home/u/.git/HEAD = ref: refs/heads/main\n"}, nested("home/u/proj")...), want: ""},
		{name: "invalid .git skipped, the next one found", tree: []string{"home/u/.git/", "home/.git/HEAD = ref: refs/heads/main\n"}, want: "home"},
		{name: "ceiling at the repository: git does not look there", tree: []string{"home/u/.git/HEAD = ref: refs/heads/main\n"}, ceiling: "home/u", want: ""},
		{name: "ceiling above the repository", tree: []string{"home/u/.git/HEAD = ref: refs/heads/main\n"}, ceiling: "home", want: "home/u"},
		{name: "hooksPath into the grant kept read-only", tree: []string{"home/u/.git/HEAD = ref: refs/heads/main\n", "home/u/.git/config = [core]\nhooksPath = proj/tools/hooks\n", "home/u/proj/tools/hooks/"},
			want: "home/u", carve: "pin:proj/tools ro:proj/tools/hooks"},
		{name: "hooksPath into the grant missing refused", tree: []string{"home/u/.git/HEAD = ref: refs/heads/main\n", "home/u/.git/config = [core]\nhooksPath = proj/hooks\n"},
			want: "mkdir ", wantErr: true},
		{name: "hooksPath outside the grant needs nothing", tree: []string{"home/u/.git/HEAD = ref: refs/heads/main\n", "home/u/.git/config = [core]\nhooksPath = hooks\n", "home/u/hooks/"}, want: "home/u"},
	}
	defer func(s string, e func(string) (string, bool)) { systemGitConfig, gitLookupEnv = s, e }(systemGitConfig, gitLookupEnv)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			systemGitConfig = filepath.Join(f.root, "etc", "gitconfig")
			gitLookupEnv = func(k string) (string, bool) {
				if k == "GIT_CEILING_DIRECTORIES" {
					return filepath.Join(f.root, c.ceiling), true
				}
				return "", false
			}
			repoTree(t, f.root, c.tree...)
			proj := filepath.Join(f.host.Home, "proj")
			p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}}, f.host)
			if c.wantErr {
				checkErr(t, err, c.want)
				return
			}
			checkErr(t, err, "")
			var got []string
			for _, r := range p.ProtectedRepos() {
				if r.Root == proj {
					continue // the grant's own repository
				}
				if r.Grant != proj || r.OwnGitDir {
					t.Errorf("repository %+v: want the grant %s and no git directory of its own", r, proj)
				}
				got = append(got, strings.TrimPrefix(r.Root, f.root+"/"))
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("enclosing repositories %v, want %q", got, c.want)
			}
			if s := carveSummary(p, f.host.Home); c.carve != "" && s != c.carve {
				t.Errorf("carve-outs\n got: %s\nwant: %s", s, c.carve)
			}
		})
	}
}
