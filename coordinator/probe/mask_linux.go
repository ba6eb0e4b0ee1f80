package probe

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Masks hold for the whole run: the member waits in its write grant while
// the runner changes the host the ways tools do, then tries to read each
// masked name. A mask that sat on the entry itself would fall off (the
// kernel detaches a mount whose dentry is renamed over or unlinked in
// another namespace), and an absent name would have no entry at all.

const maskSecret = "acbox-mask-secret"

// maskCase is one masked name, and what the host does to it mid-run.
type maskCase struct {
	name, path string
	change     func() error
}

// maskFixture creates under dir a file, a directory and a file below an
// intermediate directory, each to be --exclude'd, and returns the cases.
func maskFixture(dir string) ([]maskCase, error) {
	file, sub, mid := filepath.Join(dir, "exfile"), filepath.Join(dir, "exdir"), filepath.Join(dir, "mid", "secret")
	for _, p := range []string{file, filepath.Join(sub, "s"), mid} {
		if err := writeSecret(p); err != nil {
			return nil, err
		}
	}
	return []maskCase{
		{"file-renamed-over", file, func() error {
			if err := writeSecret(file + ".new"); err != nil {
				return err
			}
			return os.Rename(file+".new", file)
		}},
		{"dir-deleted-recreated", filepath.Join(sub, "s"), func() error {
			if err := os.RemoveAll(sub); err != nil {
				return err
			}
			return writeSecret(filepath.Join(sub, "s"))
		}},
		{"parent-renamed-recreated", mid, func() error {
			if err := os.Rename(filepath.Dir(mid), filepath.Dir(mid)+".moved"); err != nil {
				return err
			}
			return writeSecret(mid)
		}},
	}, nil
}

func writeSecret(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(maskSecret), 0o600)
}

// memberWaits: the member says ready, waits for go (both in the write
// grant), then prints every file it can read among paths.
func memberWaits(w string, paths []string) string {
	s := "echo ready > " + w + "/mask-ready; i=0; while [ ! -e " + w + "/mask-go ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n"
	for _, p := range paths {
		s += "cat '" + p + "' 2>/dev/null; ls -A '" + p + "' 2>/dev/null\n"
	}
	return s + "exit 0\n" // a failed read is the expected outcome, not the status
}

// duringRun starts the sandbox, applies the cases once the member is
// ready, and returns what the member printed and acbox's exit status.
func (r *Runner) duringRun(c *exec.Cmd, cases []maskCase) (string, int, error) {
	var out, errb bytes.Buffer
	c.Stdout = &out
	if c.Stderr == nil {
		c.Stderr = &errb
	}
	os.Remove(filepath.Join(r.Fixture.Write, "mask-ready"))
	os.Remove(filepath.Join(r.Fixture.Write, "mask-go"))
	if err := c.Start(); err != nil {
		return "", -1, err
	}
	if waitFile(filepath.Join(r.Fixture.Write, "mask-ready"), 20*time.Second) {
		for _, mc := range cases {
			if err := mc.change(); err != nil {
				c.Process.Kill()
				c.Wait()
				return "", -1, err
			}
		}
	}
	os.WriteFile(filepath.Join(r.Fixture.Write, "mask-go"), nil, 0o644)
	code, err := status(c, 30*time.Second)
	if code != 0 && err == nil {
		err = fmt.Errorf("acbox exited %d: %s", code, strings.TrimSpace(errb.String()))
	}
	return out.String(), code, err
}

// maskRun judges one scenario: exit 0 and no secret printed.
func maskRun(id, expect string, out string, code int, err error, cases []maskCase) Line {
	switch {
	case err != nil:
		return life(id, expect, design, errorf("%v", err))
	case code != 0:
		return life(id, expect, design, failf("acbox exited %d", code))
	case strings.Contains(out, maskSecret):
		return life(id, expect, design, failf("the member read a masked name changed on the host during the run: %q", out))
	}
	var names []string
	for _, mc := range cases {
		names = append(names, mc.name)
	}
	return life(id, expect, design, passf("nothing read after: %s", strings.Join(names, ", ")))
}

func (r *Runner) maskArgs(run []string, cases []maskCase, paths []string) *exec.Cmd {
	args := append(r.runFlags(), run...)
	for _, mc := range cases {
		args = append(args, "--exclude", exclude(mc))
	}
	args = append(args, "--write", r.Fixture.Write, "--", "sh", "-c", memberWaits(r.Fixture.Write, paths))
	c := exec.Command(r.Exe, args...)
	c.Stderr = r.Stderr
	return c
}

// exclude names what is masked: the file or directory itself.
func exclude(mc maskCase) string {
	if mc.name == "dir-deleted-recreated" {
		return filepath.Dir(mc.path)
	}
	return mc.path
}

func casePaths(cases []maskCase) []string {
	var out []string
	for _, mc := range cases {
		out = append(out, mc.path)
	}
	return out
}

// maskHeldGrants: excludes inside a read grant, whose root anchors the
// snapshot. Docker cannot mask inside a grant and must refuse.
func (r *Runner) maskHeldGrants() Line {
	const id = "life.mask-held-grants"
	expect := "in a read grant, an --exclude'd file renamed over, directory deleted and recreated, or parent renamed and recreated on the host during the run stays unreadable"
	g := filepath.Join(r.Fixture.Base, "mask-g-"+randHex(4))
	cases, err := maskFixture(g)
	if err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	defer os.RemoveAll(g)
	defer os.RemoveAll(filepath.Join(g, "mid.moved"))
	c := r.maskArgs([]string{"--read", g}, cases, casePaths(cases))
	out, code, err := r.duringRun(c, cases)
	if r.docker() {
		expect = "docker: masks inside a grant are refused (125): the backend cannot mask there"
		if code == 125 {
			return life(id, expect, design, passf("refused"))
		}
		return life(id, expect, design, failf("exit %d, %v: %q", code, err, out))
	}
	return maskRun(id, expect, out, code, err, cases)
}

// maskHeldHost: the same in the host view, plus acbox's whole config
// directory (XDG_CONFIG_HOME in the fixture) and a file added to it.
func (r *Runner) maskHeldHost() Line {
	const id = "life.mask-held-host"
	expect := "in --view host, --exclude'd names changed on the host during the run, acbox's config directory and a file created in it stay unreadable"
	if r.docker() {
		return life(id, "docker: the docker backend has no host view", design, passf("not applicable: refused at plan (view host)"))
	}
	for _, d := range []string{"/tmp", "/run", "/var/run"} {
		if r.Fixture.Base == d || strings.HasPrefix(r.Fixture.Base, d+"/") {
			return life(id, expect, design, skipf("the fixture lies in %s, which the host view replaces or masks", d))
		}
	}
	d := filepath.Join(r.Fixture.Base, "mask-h-"+randHex(4))
	cases, err := maskFixture(d)
	if err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	defer os.RemoveAll(d)
	defer os.RemoveAll(filepath.Join(d, "mid.moved"))
	cfg := filepath.Join(d, "xdg", "acbox")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"private": ["/nonexistent-`+maskSecret+`"]}`), 0o600)
	newCfg := maskCase{"config-dir-file-created", filepath.Join(cfg, "new.json"), func() error { return writeSecret(filepath.Join(cfg, "new.json")) }}
	paths := append(casePaths(cases), filepath.Join(cfg, "config.json"), newCfg.path)
	c := r.maskArgs([]string{"--view", "host"}, cases, paths)
	c.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Dir(cfg))
	cases = append(cases, newCfg)
	out, code, err := r.duringRun(c, cases)
	return maskRun(id, expect, out, code, err, cases)
}

// shadowHidden: the host's shadow files are never readable inside, also
// as root. The runner compares with the host's files when it can read
// them; under docker /etc is the image's, which must not be the host's.
func (r *Runner) shadowHidden() Line {
	const id = "life.shadow-hidden"
	expect := "the host's /etc/shadow, /etc/gshadow and their - backups are not readable inside (also as root)"
	files := []string{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"}
	args := append(r.runFlags(), "--", "sh", "-c", "cat "+strings.Join(files, " ")+" 2>/dev/null; true")
	c := exec.Command(r.Exe, args...)
	c.Stderr = r.Stderr
	out, err := c.Output()
	if err != nil {
		return life(id, expect, design, errorf("%v", err))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if bytes.Contains(out, bytes.TrimSpace(b)) {
			return life(id, expect, design, failf("%s of the host was printed inside", f))
		}
	}
	if len(bytes.TrimSpace(out)) > 0 && os.Geteuid() != 0 && !r.docker() {
		return life(id, expect, design, failf("a shadow file was readable inside: %q", out))
	}
	return life(id, expect, design, passf("no host shadow content inside (%d bytes printed)", len(out)))
}
