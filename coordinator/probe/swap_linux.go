package probe

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// symlinkGrantCLI: a grant named through a symlink is refused at resolve.
func (r *Runner) symlinkGrantCLI() Line {
	expect := "a write grant given as a symlink is refused with exit status 125"
	link := filepath.Join(r.Fixture.Base, "link-"+randHex(4))
	if err := os.Symlink(r.Fixture.Write, link); err != nil {
		return life("life.grant-symlink", expect, design, errorf("%v", err))
	}
	defer os.Remove(link)
	c := exec.Command(r.Exe, append(r.runFlags(), "--write", link, "--cwd", r.Fixture.Write, "--", "true")...)
	return life("life.grant-symlink", expect, design, wantStatus(c, policy.ExitRefused))
}

// swapped resolves a plan for a fresh grant directory, lets swap replace
// that directory, and launches the stale plan.
func (r *Runner) swapped(swap func(dir string) error) (error, error) {
	dir := filepath.Join(r.Fixture.Base, "swap-"+randHex(4))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	h, err := policy.HostFromEnv()
	if err != nil {
		return nil, err
	}
	plan, err := policy.Resolve(policy.Spec{Backend: r.backend().Name(), Image: r.Image, Command: []string{"true"}, Cwd: dir,
		Access: policy.Access{Write: []string{dir}}}, h)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(dir, dir+".old"); err != nil {
		return nil, err
	}
	if err := swap(dir); err != nil {
		return nil, err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	_, lerr := r.backend().Launch(plan, backend.LaunchIO{Stdin: null, Stdout: null, Stderr: null})
	return lerr, nil
}

func (r *Runner) swappedBeforeLaunch() Line {
	expect := "a grant replaced by a symlink between plan and launch is refused (exit status 125)"
	lerr, err := r.swapped(func(dir string) error { return os.Symlink(r.Fixture.Write, dir) })
	if err != nil {
		return life("life.grant-swapped-symlink", expect, "docs/kernel-facts.md 2", errorf("%v", err))
	}
	if lerr == nil {
		return life("life.grant-swapped-symlink", expect, "docs/kernel-facts.md 2", failf("the stale plan launched through the symlink"))
	}
	if code := policy.ExitCode(lerr); code != policy.ExitRefused {
		return life("life.grant-swapped-symlink", expect, "docs/kernel-facts.md 2", failf("refused with status %d, want 125: %v", code, lerr))
	}
	return life("life.grant-swapped-symlink", expect, "docs/kernel-facts.md 2", passf("%v", lerr))
}

// dirSwappedBeforeLaunch: a grant replaced by another directory between
// plan and launch is refused: the plan carries the directory's dev/ino,
// and the backend checks what it opened against it.
func (r *Runner) dirSwappedBeforeLaunch() Line {
	const id, src = "life.grant-swapped-dir", "docs/kernel-facts.md 2; acbox design (dev/ino in the plan)"
	expect := "a grant replaced by another directory between plan and launch is refused (exit status 125)"
	lerr, err := r.swapped(func(dir string) error { return os.Mkdir(dir, 0o700) })
	switch {
	case err != nil:
		return life(id, expect, src, errorf("%v", err))
	case lerr == nil:
		return life(id, expect, src, failf("the stale plan launched with the replacement directory"))
	case policy.ExitCode(lerr) != policy.ExitRefused:
		return life(id, expect, src, failf("refused with status %d, want 125: %v", policy.ExitCode(lerr), lerr))
	}
	return life(id, expect, src, passf("refused: %v", lerr))
}
