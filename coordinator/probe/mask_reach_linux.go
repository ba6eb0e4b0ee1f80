package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// maskOtherState: a host-view sandbox started with XDG_RUNTIME_DIR set
// (so its own state is elsewhere) cannot see the fallback state
// directory, ~/.local/state/acbox, where another launch keeps its
// registry and its sandboxes' broker and proxy sockets. The first landing
// masked only the launch's own choice, and a member asked another
// sandbox's broker for a write grant.
func (r *Runner) maskOtherState() Line {
	const id = "life.mask-other-state"
	expect := "in --view host with XDG_RUNTIME_DIR set, ~/.local/state/acbox (other sandboxes' brokers and proxies) is not visible"
	if r.docker() {
		return life(id, "docker: the docker backend has no host view", design, passf("not applicable: refused at plan (view host)"))
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "/" {
		return life(id, expect, design, skipf("no home directory"))
	}
	for _, d := range []string{"/tmp", "/run", "/var/run"} {
		if underDir(home, d) || underDir(r.Fixture.Base, d) {
			return life(id, expect, design, skipf("the home or the fixture lies in %s, which the host view replaces or masks", d))
		}
	}
	state := filepath.Join(home, ".local", "state", "acbox")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	marker := filepath.Join(state, "probe-marker-"+randHex(6))
	if err := os.WriteFile(marker, []byte(maskSecret), 0o600); err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	defer os.Remove(marker)
	xdg := filepath.Join(r.Fixture.Base, "xdg-"+randHex(4))
	if err := os.MkdirAll(xdg, 0o700); err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	defer os.RemoveAll(xdg)
	args := append(r.runFlags(), "--view", "host", "--", "sh", "-c", "cat '"+marker+"' 2>/dev/null; ls -A '"+state+"' 2>/dev/null; true")
	c := exec.Command(r.Exe, args...)
	c.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+xdg)
	c.Stderr = r.Stderr
	out, err := c.Output()
	switch {
	case err != nil:
		return life(id, expect, design, errorf("%v", err))
	case strings.Contains(string(out), maskSecret) || strings.Contains(string(out), filepath.Base(marker)):
		return life(id, expect, design, failf("the fallback state directory is visible: %q", out))
	}
	return life(id, expect, design, passf("nothing of %s visible", state))
}

func underDir(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
