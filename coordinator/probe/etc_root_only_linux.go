package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/acbox/acbox/coordinator/policy"
)

// etcRootOnly: the host's /etc entries that "other" may not read (private
// keys, opasswd, a 0700 directory), and the well-known deeper places, do
// not exist inside a root caller's sandbox and are unreadable inside a
// user's. The runner lists them on the host; nothing is created in /etc.
func (r *Runner) etcRootOnly() Line {
	const id = "life.etc-root-only"
	expect := "entries of the host's /etc that other may not read, and /etc/ssl/private, /etc/docker/key.json, /etc/security/opasswd, are absent inside a root caller's sandbox (unreadable in a user's)"
	src := "attack 2026-12-01 (repro-7)"
	if r.docker() {
		return life(id, expect, src, skipf("under docker /etc is the image's"))
	}
	paths := rootOnlyEntries()
	if len(paths) == 0 {
		return life(id, expect, src, skipf("the host's /etc has no root-only entry"))
	}
	test := `head -c1 "$f" >/dev/null 2>&1` // a user: readable is the finding
	if os.Geteuid() == 0 {
		test = `[ -e "$f" ] || [ -L "$f" ]` // root: even the name is
	}
	script := "for f in '" + strings.Join(paths, "' '") + "'; do if " + test + "; then echo \"$f\"; fi; done"
	c := exec.Command(r.Exe, append(r.runFlags(), "--", "sh", "-c", script)...)
	c.Dir = "/"
	c.Stderr = r.Stderr
	out, err := c.Output()
	if err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	if got := strings.Fields(string(out)); len(got) > 0 {
		return life(id, expect, src, failf("shown inside: %s", strings.Join(got, " ")))
	}
	return life(id, expect, src, passf("%d root-only entries of /etc checked", len(paths)))
}

// rootOnlyEntries lists the host's /etc entries policy.RootOnly hides for
// a root caller, and the well-known deeper places that exist.
func rootOnlyEntries() []string {
	var out []string
	des, _ := os.ReadDir("/etc")
	for _, de := range des {
		p := filepath.Join("/etc", de.Name())
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil && policy.RootOnly(st.Mode) && !strings.ContainsAny(p, "'\n") {
			out = append(out, p)
		}
	}
	for _, p := range []string{"/etc/ssl/private", "/etc/docker/key.json", "/etc/security/opasswd"} {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
