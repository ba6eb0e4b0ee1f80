package policy

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestListedWorktrees: a linked worktree a protected repository lists,
// deeper than the search reaches, has its `.git` file and the hooks
// directory a relative core.hooksPath names in it kept read-only, and is
// checked after the run; one outside every write grant needs nothing.
// Before, only the repository's worktrees/NAME/commondir was protected.
func TestListedWorktrees(t *testing.T) {
	cases := []struct {
		name  string
		wt    string // the worktree's root relative to home/u
		want  string // read-only carve-outs relative to home/u outside g/repo/.git
		repos string // ProtectedRepos roots relative to home/u
	}{
		{name: "four levels down", wt: "g/a/b/c/wt", want: "g/a/b/c/wt/.git g/a/b/c/wt/.githooks g/repo/.githooks", repos: "g/a/b/c/wt g/repo"},
		{name: "within the search", wt: "g/wt", want: "g/repo/.githooks g/wt/.git g/wt/.githooks", repos: "g/repo g/wt"},
		{name: "outside every grant", wt: "other/wt", want: "g/repo/.githooks", repos: "g/repo"},
	}
	defer func(s string) { systemGitConfig = s }(systemGitConfig)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			home := f.host.Home
			systemGitConfig = filepath.Join(f.root, "etc", "gitconfig")
			repo, wt := filepath.Join(home, "g", "repo"), filepath.Join(home, c.wt)
			repoTree(t, repo, plainRepo...)
			repoTree(t, repo, ".git/config = [core]\n\thooksPath = .githooks\n", ".githooks/", ".git/refs/",
				".git/worktrees/wt/HEAD = ref: refs/heads/wt\n", ".git/worktrees/wt/commondir = ../..\n",
				".git/worktrees/wt/gitdir = "+filepath.Join(wt, ".git")+"\n")
			repoTree(t, wt, ".git = gitdir: "+filepath.Join(repo, ".git/worktrees/wt")+"\n", ".githooks/")
			p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{filepath.Join(home, "g")}}}, f.host)
			checkErr(t, err, "")
			var got, repos []string
			for _, co := range p.Protected {
				if co.Mode == CarveReadOnly && !strings.Contains(co.Path, "/repo/.git/") {
					got = append(got, strings.TrimPrefix(co.Path, home+"/"))
				}
			}
			for _, r := range p.ProtectedRepos() {
				repos = append(repos, strings.TrimPrefix(r.Root, home+"/"))
			}
			sort.Strings(got)
			sort.Strings(repos)
			if strings.Join(got, " ") != c.want || strings.Join(repos, " ") != c.repos {
				t.Errorf("read-only %q, repositories %q; want %q, %q", strings.Join(got, " "), strings.Join(repos, " "), c.want, c.repos)
			}
		})
	}
}
