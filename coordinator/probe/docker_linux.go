package probe

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// dockerVariants are the docker expectations of the probes listed in
// Differences (docs/backends.md says why each differs).
func dockerVariants() map[string]*Variant {
	return map[string]*Variant{
		"proc.pid1-environ":      initProbe("/environ", "reading acbox's init's environment", readAll),
		"proc.pid1-fd":           {Expect: "listing acbox's init's descriptors (/proc/<init>/fd) fails, or as uid 0 shows numbers only (none can be read or opened); pid 1 holds no more than the member", Run: initFdList},
		"proc.pid1-mem":          initProbe("/mem", "opening acbox's init's memory", readAll),
		"proc.pid1-root":         initProbe("/root", "listing acbox's init's root", readDir),
		"proc.pid1-fd-open":      {Expect: "none of acbox's init's descriptors 0-63 can be read through /proc; pid 1 holds no more than the member", Run: initFdOpen},
		"proc.ptrace-pid1":       {Expect: "ptrace(PTRACE_ATTACH) of acbox's init fails with EPERM; pid 1 holds no more than the member", Run: ptraceInit},
		"proc.signal-pid1":       {Expect: "pid 1 (docker's init), which the member may signal, holds no more than the member", Run: signalDockerInit},
		"proc.kill-pid1":         {Expect: "kill(1, SIGKILL) does not end the sandbox: the pid namespace protects its init", Run: killDockerInit},
		"kernel.landlock-domain": {Expect: "Landlock is not applied (recorded, not a verdict)", Run: noLandlock},
		"fs.devices":             {Expect: "as native, and /dev/mqueue is docker's, masked: an empty read-only tmpfs", Run: devicesDocker},
		"fs.metadata-non-grant":  {Expect: "as native, except runc's binds of the container's own /dev/null over masked files (/etc/resolv.conf), an inode of its private /dev tmpfs", Run: metadataDocker},
		"info.mountinfo":         {Expect: "every mount point is the plan's or one of docker's own, each masked or minimal: /sys (empty read-only tmpfs), /etc/hosts, /etc/hostname, /etc/resolv.conf (empty)", Run: mountinfoDocker},
		"info.uid-map":           {Expect: "no user namespace; uid and gid are the caller's and no other group is held", Run: dockerIDs},
		"term.new-session":       {Expect: "the member's session is led by pid 1, inside the container", Run: containerSession},
		"res.data-limit-raise":   {Expect: "RLIMIT_DATA is set and finite; the member may raise it, and the container's memory cgroup is the cap", Run: dataLimitDocker},
		"res.stack-outside-data": {Expect: "mmap with MAP_GROWSDOWN fails with EPERM; RLIMIT_STACK is docker's, and the container's memory cgroup is the cap", Run: stackMemoryDocker},
	}
}

// acboxInit returns the pid of acbox's container-init: the member's parent.
func acboxInit() (int, error) {
	pid := os.Getppid()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return 0, err
	}
	args := strings.Split(string(b), "\x00")
	if len(args) < 2 || args[1] != "container-init" {
		return 0, fmt.Errorf("the member's parent (pid %d) is not acbox's container-init: %q", pid, strings.Join(args, " "))
	}
	return pid, nil
}

// statusFields are the lines of /proc/PID/status that say what a process
// may do; pid 1 must equal the member in each.
var statusFields = []string{"Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Seccomp_filters"}

// pid1NoMore passes when pid 1 holds no more than the member: the same
// ids, groups, capability sets, no_new_privs and seccomp filter count.
func pid1NoMore() Outcome {
	mine, err := statusOf("/proc/thread-self/status")
	if err != nil {
		return errorf("status: %v", err)
	}
	theirs, err := statusOf("/proc/1/status")
	if err != nil {
		return passf("/proc/1/status: %s", short(err))
	}
	var diff []string
	for _, k := range statusFields {
		if theirs[k] != mine[k] {
			diff = append(diff, fmt.Sprintf("%s %q (member %q)", k, theirs[k], mine[k]))
		}
	}
	if len(diff) > 0 {
		return failf("pid 1 holds more than the member: %s", strings.Join(diff, ", "))
	}
	return passf("pid 1 (%s) holds no more than the member", commOf(1))
}

func statusOf(p string) (map[string]string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return out, nil
}

func commOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// initProbe is a pid1Probe aimed at acbox's init, plus pid1NoMore.
func initProbe(suffix, what string, op func(string) error) *Variant {
	return &Variant{Expect: what + " (/proc/<init>" + suffix + ") fails: it is not dumpable; pid 1 holds no more than the member",
		Run: func(*Env) Outcome {
			pid, err := acboxInit()
			if err != nil {
				return errorf("%v", err)
			}
			p := "/proc/" + strconv.Itoa(pid) + suffix
			return worst(expectErrno(what+" "+p, op(p), unix.EACCES, unix.EPERM, unix.ENOENT), pid1NoMore())
		}}
}

func initFdOpen(*Env) Outcome {
	pid, err := acboxInit()
	if err != nil {
		return errorf("%v", err)
	}
	var got []string
	for fd := 0; fd < 64; fd++ {
		p := "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd)
		if t, err := os.Readlink(p); err == nil {
			got = append(got, strconv.Itoa(fd)+" -> "+t)
		}
		if f, err := os.Open(p); err == nil {
			f.Close()
			got = append(got, strconv.Itoa(fd)+" opened")
		}
	}
	if len(got) > 0 {
		return failf("acbox's init's descriptors reachable: %s", strings.Join(got, ", "))
	}
	return worst(passf("readlink and open of /proc/%d/fd/0-63 all refused", pid), pid1NoMore())
}

func ptraceInit(*Env) Outcome {
	pid, err := acboxInit()
	if err != nil {
		return errorf("%v", err)
	}
	lockThread(func() {
		err = unix.PtraceAttach(pid)
		if err == nil {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WALL, nil)
			unix.PtraceDetach(pid)
		}
	})
	return worst(expectErrno("ptrace(PTRACE_ATTACH, acbox's init)", err, unix.EPERM), pid1NoMore())
}

func signalDockerInit(*Env) Outcome {
	o := pid1NoMore()
	if err := unix.Kill(1, 0); err != nil {
		o.Detail += "; kill(1, 0): " + short(err)
	} else {
		o.Detail += "; kill(1, 0) succeeded: no Landlock signal scoping"
	}
	return o
}

// killDockerInit is destructive: if pid 1 died, the sandbox ends with it
// and the runner, seeing no line, reports a fail.
func killDockerInit(*Env) Outcome {
	err := unix.Kill(1, unix.SIGKILL)
	time.Sleep(500 * time.Millisecond)
	if err != nil {
		return passf("kill(1, SIGKILL): %s", short(err))
	}
	return passf("kill(1, SIGKILL) returned 0 and the sandbox is still running")
}

func noLandlock(*Env) Outcome {
	err := os.WriteFile("/proc/self/comm", []byte("probe"), 0)
	if err == nil {
		return infof("write /proc/self/comm succeeded: no Landlock domain, as designed")
	}
	return infof("write /proc/self/comm: %s", short(err))
}

func dockerIDs(e *Env) Outcome {
	var outs []Outcome
	if e.UID >= 0 && os.Getuid() != e.UID {
		outs = append(outs, failf("uid inside %d, caller outside %d", os.Getuid(), e.UID))
	} else {
		outs = append(outs, passf("uid %d, gid %d", os.Getuid(), os.Getgid()))
	}
	st, err := statusOf("/proc/thread-self/status")
	if err != nil {
		return errorf("status: %v", err)
	}
	// runc may list the primary group again; the start gate allows that.
	for _, g := range strings.Fields(st["Groups"]) {
		if g != strconv.Itoa(os.Getgid()) {
			outs = append(outs, failf("supplementary groups: %s", st["Groups"]))
			break
		}
	}
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return errorf("%v", err)
	}
	if m := strings.Join(strings.Fields(string(b)), " "); m != "0 0 4294967295" {
		outs = append(outs, failf("uid_map %q: a user namespace, so the daemon remaps users", m))
	}
	return worst(outs...)
}

func containerSession(*Env) Outcome {
	sid, err := unix.Getsid(0)
	switch {
	case err != nil:
		return errorf("getsid: %v", err)
	case sid == os.Getpid():
		return passf("sid %d = pid", sid)
	case sid == 1:
		return passf("session led by pid 1 (%s)", commOf(1))
	}
	// 0: the leader is outside this pid namespace.
	return failf("session %d is led outside the container", sid)
}
