package probe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Per-user kernel counters (issue 11): a member that takes every inotify
// instance it can must leave the same user able to make one on the host.
// The inside probe exhausts; the lifecycle scenario holds it there and
// checks from outside.

// The files the scenario and the probe exchange in the probe's --fixture
// directory: the scenario creates inotifyHold before the launch, the probe
// writes inotifyHeld once it holds every instance it can, and the scenario
// creates inotifyChecked when it has looked.
const (
	inotifyHold    = "inotify-hold"
	inotifyHeld    = "inotify-held"
	inotifyChecked = "inotify-checked"
	inotifyMax     = 1 << 20 // past any limit a host sets: reaching it means no limit
)

func ucountProbes() []Probe {
	return []Probe{
		{ID: "res.inotify-exhaust", Category: Resources, Destructive: true, Source: "acbox design (issue 11)",
			Expect: "creating inotify instances stops with EMFILE at a finite limit", Run: inotifyExhaust},
	}
}

// inotifyExhaust creates inotify instances until the kernel refuses one.
// Under the lifecycle scenario (inotifyHold present) it then holds them
// until the scenario has checked from outside, at most 10 s.
func inotifyExhaust(e *Env) Outcome {
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	var err error
	for len(fds) < inotifyMax {
		var fd int
		if fd, err = unix.InotifyInit1(unix.IN_CLOEXEC); err != nil {
			break
		}
		fds = append(fds, fd)
	}
	if e.Fixture != "" {
		if _, serr := os.Stat(filepath.Join(e.Fixture, inotifyHold)); serr == nil {
			os.WriteFile(filepath.Join(e.Fixture, inotifyHeld), []byte(fmt.Sprintf("%d %s", len(fds), short(err))), 0o644)
			waitFile(filepath.Join(e.Fixture, inotifyChecked), 10*time.Second)
		}
	}
	switch {
	case err == nil:
		return failf("%d instances and no refusal", len(fds))
	case errors.Is(err, unix.EMFILE):
		return passf("stopped after %d instances: %s", len(fds), short(err))
	}
	return failf("stopped after %d instances with %v, not EMFILE", len(fds), err)
}

// inotifyHeadroom runs res.inotify-exhaust in a sandbox of its own and,
// while the member holds every instance it could make, creates one on the
// host as the same user.
func (r *Runner) inotifyHeadroom() Line {
	id, expect := "life.inotify-headroom", "while the member holds every inotify instance it can, the same user can still create one on the host"
	src := "acbox design (issue 11)"
	dir := filepath.Join(r.Fixture.Write, "inotify-"+randHex(4))
	defer os.RemoveAll(dir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	if err := os.WriteFile(filepath.Join(dir, inotifyHold), nil, 0o644); err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	c := r.cli("--only=res.inotify-exhaust", "--fixture="+dir)
	if err := c.Start(); err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	held := filepath.Join(dir, inotifyHeld)
	if !waitFile(held, 20*time.Second) {
		c.Process.Kill()
		c.Wait()
		return life(id, expect, src, errorf("the member did not report holding its instances"))
	}
	time.Sleep(20 * time.Millisecond) // the probe writes the file in one call; let it land
	what, _ := os.ReadFile(held)
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err == nil {
		unix.Close(fd)
	}
	os.WriteFile(filepath.Join(dir, inotifyChecked), nil, 0o644)
	status(c, 30*time.Second)
	return life(id, expect, src, r.judgeHeadroom(strings.TrimSpace(string(what)), err))
}

func (r *Runner) judgeHeadroom(held string, err error) Outcome {
	seen := fmt.Sprintf("the member held %s; on the host the same user got ", held)
	if err == nil {
		seen += "an instance"
	} else {
		seen += short(err)
	}
	if r.docker() {
		// Documented ceiling (docs/backends.md): under a rootful daemon the
		// container has no user namespace, so its counters are the user's own.
		return skipf("docker: no user namespace to cap the per-user counters in; %s", seen)
	}
	if err != nil {
		return failf("%s", seen)
	}
	return passf("%s", seen)
}
