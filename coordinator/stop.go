package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/coordinator/sys"
)

// killWait bounds the wait for a SIGKILLed owner and its helper to go.
const killWait = 5 * time.Second

// checksWait bounds the wait for an owner whose sandbox was SIGKILLed to
// finish its checks after the run and exit (an exit scan of a large write
// grant takes seconds).
const checksWait = 60 * time.Second

// startWait bounds the wait for a starting nested sandbox's pid 1 to be
// recorded (a test seam).
var startWait = 5 * time.Second

// Stop stops one sandbox and every process in it, with the sandboxes
// launched through its broker or --within it first, and prints each on
// out: SIGTERM to the acbox process that owns it, which passes it on to
// the member; after grace, SIGKILL of the sandbox's pid 1 (the whole pid
// namespace, or the container's init), or, when the entry records no
// pid 1 this process can signal, the backend's own end (backend.Ender:
// the docker backend kills the container through the Engine API), after
// which the owner runs its checks after the run and exits; the owner
// itself is SIGKILLed only if it has not exited checksWait later. Only
// sandboxes of this user's registry, owned by a process of this user, can
// be stopped.
func (l *Launcher) Stop(ctx context.Context, id string, grace time.Duration, out io.Writer) error {
	reg := l.Registry
	l.Reap(ctx) // a failed reap leaves entries for the next one; stop goes on
	e, err := reg.Get(id)
	if errors.Is(err, registry.ErrNoSandbox) {
		return fmt.Errorf("%w: %w", policy.ErrInvalid, err)
	}
	if err != nil {
		return err
	}
	if e.Owner() == registry.OwnerElsewhere {
		return fmt.Errorf("%w: sandbox %s belongs to another pid namespace; stop it from there", policy.ErrRefused, e.ID)
	}
	for _, k := range append(descendants(reg, e.ID), e) {
		k, err := withHelper(reg, k)
		if err != nil {
			return err
		}
		how, err := stopOne(k, grace, l.ender(ctx, k))
		if err != nil {
			return err
		}
		l.cleanAfter(ctx, []registry.Entry{k})
		reg.Remove(k.ID)
		fmt.Fprintf(out, "%s stopped (%s)\n", k.ID, how)
	}
	return nil
}

// descendants lists the sandboxes launched, directly or not, through the
// broker of id, deepest first.
func descendants(reg *registry.Registry, id string) []registry.Entry {
	all, _ := reg.ListOthers(id) // id is not its own descendant
	var out []registry.Entry
	want := map[string]bool{id: true}
	for changed := true; changed; {
		changed = false
		for _, e := range all {
			if want[e.Parent] && !want[e.ID] {
				want[e.ID], changed = true, true
				out = append(out, e)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Depth > out[j].Depth })
	return out
}

// withHelper returns the entry of a nested sandbox once its pid 1 is
// recorded (the registry gets it when pid 1 reports ready). A nested
// sandbox shares its owner with its requester, so stopping it through the
// owner would stop the whole tree: a child still starting is waited for,
// and refused if it never records a pid 1.
func withHelper(reg *registry.Registry, e registry.Entry) (registry.Entry, error) {
	for end := time.Now().Add(startWait); e.Depth > 0 && !e.Within && e.HelperPid <= 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			return e, fmt.Errorf("%w: nested sandbox %s has not started (no pid 1 recorded after %v); try again, or stop its requester %s", policy.ErrCannotSandbox, e.ID, startWait, e.Parent)
		}
		next, err := reg.Get(e.ID)
		if errors.Is(err, registry.ErrNoSandbox) {
			return e, nil // ended meanwhile: stopOne finds no pid 1 and says so
		}
		if err != nil {
			return e, err
		}
		e = next
	}
	return e, nil
}

// stopOne stops a sandbox launched from the host through its owner, and a
// nested one (which shares its owner with its requester) through its own
// pid 1: SIGTERM, which pid 1 forwards to the member, then SIGKILL, which
// ends the whole pid namespace. end is the backend's way to end the
// sandbox without its pid 1 (nil: none).
func stopOne(e registry.Entry, grace time.Duration, end func() error) (string, error) {
	if e.Depth == 0 || e.Within { // a child launched --within has its own owner
		return stopOwner(e, grace, end)
	}
	helper, err := pin(e.HelperPid, e.HelperStart)
	if err != nil {
		return "already gone", nil
	}
	defer sys.Close(helper)
	sys.PidfdSignal(helper, unix.SIGTERM)
	if exited(helper, grace) {
		return "SIGTERM to its pid 1", nil
	}
	sys.PidfdSignal(helper, unix.SIGKILL)
	if !exited(helper, killWait) {
		return "", fmt.Errorf("the pid 1 (%d) of %s survived SIGKILL for %v", e.HelperPid, e.ID, killWait)
	}
	return fmt.Sprintf("SIGKILL to its pid 1 after %v", grace), nil
}

// stopOwner signals the owner through a pidfd, so the signal can only
// reach the process the entry names, never a later holder of its pid.
// The sandbox is killed through its pid 1 when the entry records one this
// process can pin, else by end (the docker backend: through the Engine
// API, when the daemon's pid was not verified as the container's).
func stopOwner(e registry.Entry, grace time.Duration, end func() error) (string, error) {
	owner, err := pin(e.OwnerPid, e.OwnerStart)
	if err != nil {
		return "already gone", nil
	}
	defer sys.Close(owner)
	helper := -1
	if e.HelperPid > 0 {
		if helper, err = pin(e.HelperPid, e.HelperStart); err == nil {
			defer sys.Close(helper)
		}
	}
	how := "SIGTERM"
	sys.PidfdSignal(owner, unix.SIGTERM)
	if !exited(owner, grace) {
		// The sandbox is killed, not its acbox, which then runs the checks
		// after the run: a member that ignores SIGTERM must not choose to
		// end its sandbox unchecked. The owner is killed only if it has
		// not exited checksWait after that (wedged, or no way to end the
		// sandbox).
		how = fmt.Sprintf("SIGKILL to its sandbox after %v; its checks ran", grace)
		if !killSandbox(helper, end) || !exited(owner, checksWait) {
			how = fmt.Sprintf("SIGKILL of its acbox after %v: its checks after the run did not run, inspect its write grants", grace)
			sys.PidfdSignal(owner, unix.SIGKILL)
			if !exited(owner, killWait) {
				return "", fmt.Errorf("owner %d of %s survived SIGKILL for %v", e.OwnerPid, e.ID, killWait)
			}
		}
	}
	if helper >= 0 && !exited(helper, killWait) {
		return "", fmt.Errorf("the sandbox's pid 1 (%d) outlived its owner for %v; kill it with kill -9 %d", e.HelperPid, killWait, e.HelperPid)
	}
	return how, nil
}

// killSandbox SIGKILLs the pinned pid 1 (helper, -1: none), or, without
// one or when that fails, ends the sandbox the backend's way.
func killSandbox(helper int, end func() error) bool {
	if helper >= 0 && sys.PidfdSignal(helper, unix.SIGKILL) == nil {
		return true
	}
	return end != nil && end() == nil
}

// ender is the backend's way to end sandbox e without its pid 1
// (backend.Ender), nil when its backend has none.
func (l *Launcher) ender(ctx context.Context, e registry.Entry) func() error {
	for _, b := range l.Backends {
		if en, ok := b.(backend.Ender); ok && b.Name() == e.Backend {
			return func() error { return en.End(ctx, e.ID, backend.Owner{Pid: e.OwnerPid, Start: e.OwnerStart}) }
		}
	}
	return nil
}

// pin opens a pidfd for pid and then checks that it is still the process
// that started at start and belongs to this user.
func pin(pid int, start uint64) (int, error) {
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return -1, err
	}
	got, err := registry.ProcStart(pid)
	if err == nil && got != start {
		err = errors.New("pid reused")
	}
	if err == nil {
		err = ownedByMe(pid)
	}
	if err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}

func ownedByMe(pid int) error {
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: process %d belongs to another user", policy.ErrRefused, pid)
	}
	return nil
}

// exited waits up to d for the pidfd's process to exit.
func exited(pidfd int, d time.Duration) bool {
	ok, _ := sys.WaitReadable(pidfd, d)
	return ok
}
