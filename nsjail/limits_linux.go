package nsjail

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// applyLimits sets the rlimits the member inherits. They are per-process
// (RLIMIT_NPROC is per user namespace and uid, which makes it a sandbox-wide
// fork cap), so the report says that memory is capped per process, not for
// the sandbox as a whole. They are set on pid 1 just before the member is
// forked; pid 1 itself starts no further process. RLIMIT_DATA is the
// exception: pid 1 is a Go program that needs room for its heap, so the
// data limit is set only around the fork (setMemberData, restoreData), as
// a soft limit that the member's seccomp filter keeps it from raising.
// pidsCgroup says pid 1 is in a pids cgroup (cloned there, or it entered
// it: cgroup_enter_linux.go); counters are the per-user kernel counter caps
// (ucount.go), set while pid 1 still holds CAP_SYS_RESOURCE, each by
// writeCounter (through a descriptor: /proc/sys is read-only by now).
func applyLimits(p *policy.Plan, rep *policy.Report, pidsCgroup bool, counters []userCounter, writeCounter func(string, int64) error) error {
	nofile := unix.Rlimit{}
	if err := sys.Getrlimit(unix.RLIMIT_NOFILE, &nofile); err != nil {
		return err
	}
	sigpending, err := sigpendingShare(p.Limits.Memory)
	if err != nil {
		return err
	}
	stack, err := stackLimit(p.Limits.Memory)
	if err != nil {
		return err
	}
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"nproc", unix.RLIMIT_NPROC, uint64(p.Limits.Pids)},
		{"nofile", unix.RLIMIT_NOFILE, nofile.Max}, // soft = hard: Go raises its own soft limit anyway
		{"core", unix.RLIMIT_CORE, 0},
		{"sigpending", unix.RLIMIT_SIGPENDING, sigpending},
		{"stack", unix.RLIMIT_STACK, stack},
	}
	rep.Limits = map[string]string{}
	for _, l := range limits {
		if err := sys.Setrlimit(l.resource, &unix.Rlimit{Cur: l.value, Max: l.value}); err != nil {
			return &stepError{step: "setrlimit " + l.name, err: err}
		}
		rep.Limits[l.name] = fmt.Sprint(l.value)
	}
	if err := capUserCounters(counters, p, rep, writeCounter); err != nil {
		return err
	}
	rep.Limits["data"] = fmt.Sprint(p.Limits.Memory)
	rep.Limits["scope"] = "per-process rlimits (no cgroup): memory is capped per process, not for the whole sandbox; nproc counts every process of the sandbox"
	rep.Limits["mechanism"] = "rlimits"
	rep.Controls = append(rep.Controls, policy.Control{Name: "limits", Requested: true, Enforced: true, Why: "rlimits only: memory per process"})
	if p.UID == 0 && !pidsCgroup {
		// The kernel exempts the host's root user from RLIMIT_NPROC: without
		// a pids cgroup, a requested process limit is not in force.
		rep.Limits["nproc"] = "not enforced for uid 0"
		rep.Controls = append(rep.Controls, policy.Control{Name: "pids_limit", Requested: true,
			Why: "RLIMIT_NPROC does not bind the host's root user and no pids cgroup could be made; run acbox as an unprivileged user, give it a writable cgroup, or pass --best-effort"})
	}
	return nil
}

// sigpendingShare is the member's RLIMIT_SIGPENDING: queued signals are
// counted per user across user namespaces, so a member queueing real-time
// signals up to the user's own limit would leave the user's other processes
// none (sigqueue fails with EAGAIN). The limit binds the sandbox's count, so
// it gets the share of the user's limit that the per-user counters get
// (counterShare); an unlimited host value stays unlimited.
func sigpendingShare(memory int64) (uint64, error) {
	var cur unix.Rlimit
	if err := sys.Getrlimit(unix.RLIMIT_SIGPENDING, &cur); err != nil {
		return 0, err
	}
	if cur.Max > math.MaxInt64 {
		return cur.Max, nil
	}
	hostMem, _ := policy.HostMemory()
	return uint64(counterShare(int64(cur.Max), memory, hostMem)), nil
}

// stackLimit is the member's RLIMIT_STACK, set with soft = hard: the main
// stack is a VM_STACK mapping, which the data limit does not count, so a
// member that raised a soft stack limit (the hard one is often unlimited)
// could grow its stack past --memory. It is pid 1's soft limit, or the
// kernel's default where that is unlimited, capped at a quarter of the
// memory limit (memberStack): an unlimited stack would also give the
// member the legacy address-space layout. pid 1 loses its own room to raise it, which
// costs it nothing: the Go runtime runs goroutines and its other threads
// on stacks it allocates itself, and the main thread's stack was sized at
// exec.
func stackLimit(memory int64) (uint64, error) {
	var cur unix.Rlimit
	if err := sys.Getrlimit(unix.RLIMIT_STACK, &cur); err != nil {
		return 0, err
	}
	return memberStack(cur.Cur, memory), nil
}

// defaultStack is the kernel's own default RLIMIT_STACK (8 MiB).
const defaultStack = 8 << 20

// memberStack is the member's stack limit from pid 1's soft limit: an
// unlimited one becomes the kernel's default, and any is capped at a
// quarter of the memory limit. glibc sizes each new thread's stack from
// the soft limit (2 MiB only when it is unlimited) and those stacks count
// against the data limit, which is --memory: a stack limit of --memory
// itself made every glibc program that starts a thread fail (python's
// "can't start new thread", a reviewer's finding).
func memberStack(soft uint64, memory int64) uint64 {
	if soft == unix.RLIM_INFINITY {
		soft = defaultStack
	}
	if memory > 0 {
		soft = min(soft, uint64(memory)/4)
	}
	return soft
}

// setMemberData sets RLIMIT_DATA at limit for the member to inherit, on
// the soft limit only: pid 1 must get its own back (restoreData) after the
// fork, which a lowered hard limit would forbid, since pid 1 holds no
// CAP_SYS_RESOURCE in the initial user namespace. A Go pid 1 kept under
// --memory would run with little room: at the smallest --memory (128 MiB)
// it already maps about 78 MiB of private writable memory (arenas, the page
// allocator's index), and any growth past the limit kills it. The member's
// seccomp filter refuses setting RLIMIT_DATA (coordinator/seccomp,
// rlimitRules), so the member cannot raise the soft limit either. It runs
// on the member's thread just before the filter is loaded there, because
// the filter refuses this call too.
func setMemberData(limit uint64) error {
	var old unix.Rlimit
	if err := sys.Getrlimit(unix.RLIMIT_DATA, &old); err != nil {
		return &stepError{step: "getrlimit data", err: err}
	}
	if err := sys.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: limit, Max: old.Max}); err != nil {
		return &stepError{step: "setrlimit data", err: err}
	}
	return nil
}

// restoreData gives pid 1 its own RLIMIT_DATA back once the member is
// forked (rlimits are per process). It must run on a thread without the
// member's filter. pid 1 left at the member's limit could fail any later
// allocation of its Go runtime mid-supervision: the caller refuses instead.
func restoreData(old unix.Rlimit) error {
	if err := sys.Setrlimit(unix.RLIMIT_DATA, &old); err != nil {
		return &stepError{step: "setrlimit data (restoring pid 1's own)", err: err}
	}
	return nil
}

// report rewrites the limits part of the report, in the parent, once the
// helper is ready: the parent made the cgroup and read its limit files back,
// and the helper is inside (checked from /proc by the parent on cgroup v2,
// by pid 1 itself on v1, enterCgroups). Without a cgroup it
// only records why there is none.
func (c *cgroup) report(rep *policy.Report) {
	if rep == nil {
		return
	}
	if rep.Limits == nil {
		rep.Limits = map[string]string{}
	}
	if c.mode == "" {
		rep.Limits["cgroup"] = "none: " + c.why
		return
	}
	rep.Limits["mechanism"] = c.mode + " + rlimits"
	rep.Limits["scope"] = c.mode + " caps memory (no swap) and tasks for the whole sandbox, pid 1 included; the per-process rlimits apply as well"
	rep.Limits["cgroup"] = strings.Join(c.dirs, " ")
	var set []string
	for k, v := range c.values {
		rep.Limits[k] = v
		set = append(set, k+"="+v)
	}
	sort.Strings(set)
	why := c.mode + " for the whole sandbox: " + strings.Join(set, ", ")
	setControl(rep, policy.Control{Name: "limits", Requested: true, Enforced: true, Why: why})
	pids := c.values["pids.max"]
	setControl(rep, policy.Control{Name: "pids_limit", Requested: true, Enforced: true, Why: "pids cgroup: pids.max=" + pids})
}

// setControl replaces the control of the same name, or adds it.
func setControl(rep *policy.Report, ctl policy.Control) {
	for i := range rep.Controls {
		if rep.Controls[i].Name == ctl.Name {
			rep.Controls[i] = ctl
			return
		}
	}
	rep.Controls = append(rep.Controls, ctl)
}
