package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// release runs the start gate: it takes the init's token, checks the
// running container again (network, ports), compares the identity of
// every mounted bind with the source held open since before create, checks
// what the init holds (ids, groups, capabilities, no_new_privs), and only
// then lets the member run. Any failure refuses the gate; the container is
// then removed by close.
func (l *launch) release(ctx context.Context) (*policy.Report, error) {
	conn, err := l.accept()
	if err != nil {
		return nil, err
	}
	// Kept open for the member's life: its closing tells the init that the
	// parent is gone (see gate.Ask). close() closes it.
	l.conn = conn
	sess, err := l.gate.hello(conn)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	rep, err := l.verify(ctx, sess)
	if err != nil {
		sess.refuse(err.Error())
		return nil, err
	}
	if err := sess.release(l.s.env()); err != nil {
		return nil, fmt.Errorf("%w: release the member: %w", policy.ErrCannotSandbox, err)
	}
	if err := sess.found(); err != nil {
		return nil, err
	}
	l.execFail = sess.execFailure()
	return rep, nil
}

func (l *launch) verify(ctx context.Context, sess *session) (*policy.Report, error) {
	in, err := l.inspect(ctx, true)
	if err != nil {
		return nil, err
	}
	got, err := sess.stat(l.s.bindTargets())
	if err != nil {
		return nil, fmt.Errorf("%w: start gate: %w", policy.ErrCannotSandbox, err)
	}
	l.init = pinInit(l.daemonPid(in.State.Pid), got.Self.PidNS) // hostinit.go
	host, err := l.checkIdents(l.init.pid, got.Idents)
	if err == nil && host {
		err = l.checkReadOnly(l.init.pid)
	}
	if err == nil && host && l.init.exited() {
		// Its pid may name another process by now: what was read through
		// /proc/<pid> may be that process's.
		err = fmt.Errorf("%w: container %s ended during the checks from the host", policy.ErrCannotSandbox, l.s.name())
	}
	if err != nil {
		return nil, err
	}
	if err := l.checkSelf(got.Self); err != nil {
		return nil, err
	}
	return l.report(in, got, host), nil
}

// daemonPid is the container's pid 1 as the daemon numbers it (a test
// seam may stand in another process, as a daemon in another pid namespace
// would).
func (l *launch) daemonPid(pid int) int {
	if l.b.Hooks.DaemonPid != nil {
		return l.b.Hooks.DaemonPid(pid)
	}
	return pid
}

// checkIdents compares each bind target's identity, as the init sees it
// and, where this process may look, as /proc/<pid>/root shows it from the
// host, with what the parent holds. pid is the container's pid 1 verified
// here (pinInit), 0 when there is none: the host side is then not looked
// at. It returns whether the host-side check ran; the in-container one
// always does.
func (l *launch) checkIdents(pid int, got []gate.Ident) (bool, error) {
	seen := map[string]gate.Ident{}
	for _, id := range got {
		seen[id.Path] = id
	}
	hostSide := pid > 0
	for target, want := range l.held.idents {
		in, ok := seen[target]
		if !ok || in.Err != "" || in.Dev != want.Dev || in.Ino != want.Ino {
			return false, swapped(target, want.Source, in.Err)
		}
		if !hostSide {
			continue
		}
		h, err := hostIdent(pid, target)
		if errors.Is(err, os.ErrPermission) {
			hostSide = false
			continue
		}
		if err != nil || h.Dev != want.Dev || h.Ino != want.Ino {
			return false, swapped(target, want.Source, "seen from the host")
		}
	}
	return hostSide, nil
}

// checkReadOnly requires, from the host, that every bind made read-only
// is read-only where the member will see it, and that every pin is
// writable, as the native backend's verifyCarved does. The identity checks
// cannot tell the order of mounts: had the pin of .git been mounted over
// .git/hooks, .git/hooks would show the same inode, writable. Runs only
// where the host-side identity check could.
func (l *launch) checkReadOnly(pid int) error {
	pins := map[string]bool{}
	for _, c := range l.s.plan.Protected {
		pins[c.Path] = c.Mode == policy.CarvePin
	}
	for _, m := range l.s.binds {
		if !m.ReadOnly && !pins[m.Target] {
			continue
		}
		ro, err := hostReadOnly(pid, m.Target)
		if err == nil && ro != m.ReadOnly {
			err = fmt.Errorf("read-only %v, want %v", ro, m.ReadOnly)
		}
		if err != nil {
			return fmt.Errorf("%w: %s is not mounted as planned in container %s (%w); the container was removed",
				policy.ErrCannotSandbox, m.Target, l.s.name(), err)
		}
	}
	return nil
}

func swapped(target, source, detail string) error {
	why := "is not the one that was checked and held open (swapped for a symlink or replaced between the checks and start)"
	if detail != "" {
		why += ": " + detail
	}
	return fmt.Errorf("%w: %s mounted at %s %s; the container was removed", policy.ErrCannotSandbox, policy.Quote(source), policy.Quote(target), why)
}

// checkSelf requires that the init, and so the member, runs as the plan's
// user with no supplementary groups beyond its own, no capabilities and
// no_new_privs set.
func (l *launch) checkSelf(s gate.SelfStatus) error {
	var p []string
	uid, gid := strconv.Itoa(l.s.plan.UID), strconv.Itoa(l.s.plan.GID)
	if f := strings.Fields(s.UID); len(f) != 4 || slices.ContainsFunc(f, func(v string) bool { return v != uid }) {
		p = append(p, "uids are "+s.UID)
	}
	if f := strings.Fields(s.GID); len(f) != 4 || slices.ContainsFunc(f, func(v string) bool { return v != gid }) {
		p = append(p, "gids are "+s.GID)
	}
	if slices.ContainsFunc(s.Groups, func(g int) bool { return g != l.s.plan.GID }) {
		p = append(p, fmt.Sprintf("supplementary groups %v", s.Groups))
	}
	if !noCaps(s.Caps) {
		p = append(p, fmt.Sprintf("capabilities %v", s.Caps))
	}
	if !s.NoNewPrivs {
		p = append(p, "no_new_privs is not set")
	}
	if len(p) > 0 {
		return fmt.Errorf("%w: inside container %s: %s", policy.ErrCannotSandbox, l.s.name(), strings.Join(p, "; "))
	}
	return nil
}

func noCaps(caps map[string]string) bool {
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if caps[k] != "0000000000000000" {
			return false
		}
	}
	return true
}
