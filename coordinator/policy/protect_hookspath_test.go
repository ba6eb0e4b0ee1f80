package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHooksPathResolution: core.hooksPath from the repository's config or
// the user's, pointing into a write grant, makes that directory a required
// read-only carve-out; includes inside a write grant are refused.
func TestHooksPathResolution(t *testing.T) {
	cases := []struct {
		name      string
		tree      []string // under home/u/proj, after plainRepo
		home      []string // under home/u
		xdg       string   // XDG_CONFIG_HOME relative to home/u, "" unset
		unprotect []string
		want      string // carve-outs outside proj/.git, or the error's substring
		wantErr   bool
	}{
		{name: "no hooksPath", want: ""},
		{name: "repo config, relative", tree: []string{".git/config = [core]\n\thooksPath = .husky\n", ".husky/"}, want: "ro:proj/.husky"},
		{name: "nested directory pins its parent", tree: []string{".git/config = [core]\nhooksPath = ci/hooks\n", "ci/hooks/"}, want: "pin:proj/ci ro:proj/ci/hooks"},
		{name: "missing directory refused", tree: []string{".git/config = [core]\nhooksPath = .husky\n"}, want: "mkdir ", wantErr: true},
		{name: "missing directory, unprotected", tree: []string{".git/config = [core]\nhooksPath = .husky\n"}, unprotect: []string{"hookspath"}, want: ""},
		{name: "repo config unprotected: nothing to read", tree: []string{".git/config = [core]\nhooksPath = .husky\n"}, unprotect: []string{".git/config"}, want: ""},
		{name: "global config", home: []string{".gitconfig = [core]\nhooksPath = .githooks\n"}, tree: []string{".githooks/"}, want: "ro:proj/.githooks"},
		{name: "xdg config with ~", home: []string{"cfg/git/config = [core]\nhooksPath = ~/proj/hooks\n"}, xdg: "cfg", tree: []string{"hooks/"}, want: "ro:proj/hooks"},
		{name: "default xdg path", home: []string{".config/git/config = [core]\nhooksPath = ~/proj/hooks\n"}, tree: []string{"hooks/"}, want: "ro:proj/hooks"},
		{name: "outside every grant needs nothing", home: []string{".gitconfig = [core]\nhooksPath = ~/hooks\n", "hooks/"}, want: ""},
		{name: "symlink outside the grant followed", home: []string{".gitconfig = [core]\nhooksPath = ~/link/.husky\n"}, tree: []string{".husky/"}, want: "ro:proj/.husky"},
		{name: "symlink inside the grant refused", tree: []string{".git/config = [core]\nhooksPath = .husky\n", "real/", ".husky -> real"}, want: "is a symlink on the way to git core.hooksPath", wantErr: true},
		{name: "the grant itself refused", tree: []string{".git/config = [core]\nhooksPath = .\n"}, want: "is a write grant and the hooks directory", wantErr: true},
		{name: "local overrides global", home: []string{".gitconfig = [core]\nhooksPath = global\n"}, tree: []string{".git/config = [core]\nhooksPath = local\n", "local/"}, want: "ro:proj/local"},
		{name: "last value wins", tree: []string{".git/config = [core]\nhooksPath = a\n[Core]\nHooksPath = b\n", "b/"}, want: "ro:proj/b"},
		{name: "empty value resets", tree: []string{".git/config = [core]\nhooksPath = a\nhooksPath =\n"}, want: ""},
		{name: "include outside the grant followed", home: []string{".gitconfig = [include]\npath = inc/hooks.cfg\n", "inc/hooks.cfg = [core]\nhooksPath = ~/proj/h\n"}, tree: []string{"h/"}, want: "ro:proj/h"},
		{name: "includeIf may apply: both kept", home: []string{".gitconfig = [core]\nhooksPath = a\n[includeIf \"onbranch:main\"]\npath = ~/b.cfg\n", "b.cfg = [core]\nhooksPath = b\n"},
			tree: []string{"a/", "b/"}, want: "ro:proj/a ro:proj/b"},
		{name: "include inside the grant refused", tree: []string{".git/config = [include]\npath = ../team.gitconfig\n"}, want: "is a git config file inside a write grant", wantErr: true},
		{name: "include through a link into the grant refused", home: []string{".gitconfig = [include]\npath = ~/link/team.gitconfig\n"}, want: "is a git config file inside a write grant", wantErr: true},
		{name: "missing include skipped", home: []string{".gitconfig = [include]\npath = ~/nothing\n"}, want: ""},
		{name: "include loop refused", home: []string{".gitconfig = [include]\npath = ~/.gitconfig\n"}, want: "levels deep", wantErr: true},
		{name: "global config in a write grant refused", xdg: "proj/cfg", want: "is a git config file inside a write grant", wantErr: true},
		{name: "broken config refused", tree: []string{".git/config = [core]\nhooksPath = \"x\n"}, want: "cannot be parsed", wantErr: true},
		{name: "another user's home refused", tree: []string{".git/config = [core]\nhooksPath = ~bob/hooks\n"}, want: "another user's home", wantErr: true},
	}
	defer func(s string, e func(string) (string, bool)) { systemGitConfig, gitLookupEnv = s, e }(systemGitConfig, gitLookupEnv)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			base := f.host.Home
			proj := filepath.Join(base, "proj")
			systemGitConfig = filepath.Join(f.root, "etc", "gitconfig")
			gitLookupEnv = func(k string) (string, bool) {
				if k == "XDG_CONFIG_HOME" && c.xdg != "" {
					return filepath.Join(base, c.xdg), true
				}
				return "", false
			}
			repoTree(t, proj, plainRepo...)
			repoTree(t, proj, c.tree...)
			repoTree(t, base, c.home...)
			p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}, Unprotect: c.unprotect}, f.host)
			if c.wantErr {
				checkErr(t, err, c.want)
				return
			}
			checkErr(t, err, "")
			var got []string
			for _, e := range strings.Fields(carveSummary(p, base)) {
				if !strings.HasSuffix(e, "proj/.git") && !strings.Contains(e, "proj/.git/") {
					got = append(got, e)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("carve-outs\n got: %s\nwant: %s", strings.Join(got, " "), c.want)
			}
		})
	}
}

// TestHooksPathSystemConfig: the system file counts, and the repository's
// value overrides it.
func TestHooksPathSystemConfig(t *testing.T) {
	defer func(s string) { systemGitConfig = s }(systemGitConfig)
	f := newFixture(t)
	proj := filepath.Join(f.host.Home, "proj")
	systemGitConfig = filepath.Join(f.root, "gitconfig")
	os.WriteFile(systemGitConfig, []byte("[core]\nhooksPath = .sys\n"), 0o644)
	repoTree(t, proj, plainRepo...)
	_, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}}, f.host)
	checkErr(t, err, "mkdir "+filepath.Join(proj, ".sys"))
}
