package probe

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func procProbes() []Probe {
	return []Probe{
		{ID: "proc.pids-only-sandbox", Category: Process, Source: "bubblewrap --unshare-pid",
			Expect: "/proc lists only the sandbox's few processes, not the runner", Run: pidsOnlySandbox},
		pid1Probe("proc.pid1-environ", "/proc/1/environ", "reading pid 1's environment", readAll),
		pid1Probe("proc.pid1-fd", "/proc/1/fd", "listing pid 1's descriptors", readDir),
		{ID: "proc.pid1-fd-open", Category: Process, Source: "CVE-2019-5736 (runc); CVE-2024-21626 (leaked fds)",
			Expect: "none of pid 1's descriptors 0-63 can be read through /proc/1/fd (readlink or open)", Run: pid1FdOpen},
		pid1Probe("proc.pid1-mem", "/proc/1/mem", "opening pid 1's memory", readAll),
		pid1Probe("proc.pid1-root", "/proc/1/root", "listing pid 1's root (the way out of pivot_root)", readDir),
		{ID: "proc.ptrace-pid1", Category: Process, Source: "Docker seccomp profile; CVE-2019-5736 family",
			Expect: "ptrace(PTRACE_ATTACH, 1) fails with EPERM", Run: ptracePid1},
		{ID: "proc.vm-readv-pid1", Category: Process, Source: design,
			Expect: "process_vm_readv on pid 1 fails with EPERM", Run: vmReadvPid1},
		{ID: "proc.pidfd-getfd-pid1", Category: Process, Source: design, Needs: "pidfd_getfd",
			Expect: "pidfd_getfd of pid 1's descriptors fails with EPERM", Run: pidfdGetfd},
		{ID: "proc.signal-pid1", Category: Process, Source: "Landlock signal scoping (ABI 6)",
			Expect: "kill(1, 0) fails with EPERM: pid 1 is outside the member's Landlock domain", Run: signalPid1},
		{ID: "proc.kill-pid1", Category: Process, Source: design, Destructive: true,
			Expect: "kill(1, SIGKILL) fails and the sandbox survives", Run: killPid1},
		{ID: "proc.caps-zero", Category: Process, Source: "bubblewrap --cap-drop ALL; nsjail",
			Expect: "every capability set (inheritable, permitted, effective, bounding, ambient) is empty", Run: capsZero},
		{ID: "proc.no-new-privs", Category: Process, Source: "Codex linux-sandbox; nsjail",
			Expect: "NoNewPrivs is 1", Run: statusField("NoNewPrivs", "1")},
		{ID: "proc.seccomp-filter", Category: Process, Source: design,
			Expect: "a seccomp filter is loaded (Seccomp: 2)", Run: statusField("Seccomp", "2")},
		{ID: "proc.setuid-binary", Category: Process, Source: "bubblewrap (no_new_privs); nsjail",
			Expect: "a setuid binary runs with the caller's effective uid", Run: setuidBinary},
		{ID: "proc.setuid-call", Category: Process, Source: design,
			Expect: "setresuid to another uid fails with EPERM", Run: setuidCall},
	}
}

func readAll(p string) error { _, err := os.ReadFile(p); return err }
func readDir(p string) error { _, err := os.ReadDir(p); return err }

func pid1Probe(id, path, what string, op func(string) error) Probe {
	return Probe{ID: id, Category: Process, Source: "docs/kernel-facts.md 4; CVE-2019-5736 (runc /proc/self/exe)",
		Expect: what + " (" + path + ") fails: pid 1 is not dumpable, and hidden (ENOENT) by hidepid=invisible",
		Run: func(*Env) Outcome {
			o := expectErrno(what, op(path), unix.EACCES, unix.EPERM, unix.ENOENT)
			var st unix.Stat_t
			if o.Result == Fail && unix.Stat(path, &st) == nil && int(st.Uid) == os.Getuid() {
				o.Detail += fmt.Sprintf(" (%s is owned by uid %d, the member: a non-dumpable task's /proc entries belong to its user namespace's root, which here is the caller)", path, st.Uid)
			}
			return o
		}}
}

// pid1FdOpen tries every low descriptor number without listing, so it
// tests the per-fd check even where the listing is allowed.
func pid1FdOpen(*Env) Outcome {
	var got []string
	for fd := 0; fd < 64; fd++ {
		p := "/proc/1/fd/" + strconv.Itoa(fd)
		if t, err := os.Readlink(p); err == nil {
			got = append(got, strconv.Itoa(fd)+" -> "+t)
		}
		if f, err := os.Open(p); err == nil {
			f.Close()
			got = append(got, strconv.Itoa(fd)+" opened")
		}
	}
	if len(got) > 0 {
		return failf("pid 1's descriptors reachable: %s", strings.Join(got, ", "))
	}
	return passf("readlink and open of /proc/1/fd/0-63 all refused")
}

func pidsOnlySandbox(e *Env) Outcome {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return errorf("read /proc: %v", err)
	}
	var pids []string
	for _, d := range ents {
		if _, err := strconv.Atoi(d.Name()); err == nil {
			pids = append(pids, d.Name())
		}
	}
	if e.RunnerPid > 0 {
		if _, err := os.Stat("/proc/" + strconv.Itoa(e.RunnerPid)); err == nil && e.RunnerPid > len(pids)+16 {
			return failf("the runner's host pid %d is visible", e.RunnerPid)
		}
	}
	if len(pids) > 16 {
		return failf("%d processes visible: %s", len(pids), strings.Join(pids, " "))
	}
	return passf("%d processes: %s", len(pids), strings.Join(pids, " "))
}

func ptracePid1(*Env) Outcome {
	var err error
	lockThread(func() {
		err = unix.PtraceAttach(1)
		if err == nil {
			var ws unix.WaitStatus
			unix.Wait4(1, &ws, unix.WALL, nil)
			unix.PtraceDetach(1)
		}
	})
	return expectErrno("ptrace(PTRACE_ATTACH, 1)", err, unix.EPERM)
}

func vmReadvPid1(*Env) Outcome {
	buf := make([]byte, 8)
	local := []unix.Iovec{{Base: &buf[0], Len: 8}}
	remote := []unix.RemoteIovec{{Base: 0x400000, Len: 8}}
	_, err := unix.ProcessVMReadv(1, local, remote, 0)
	return expectErrno("process_vm_readv(1)", err, unix.EPERM)
}

func pidfdGetfd(*Env) Outcome {
	pfd, err := unix.PidfdOpen(1, 0)
	if err != nil {
		return passf("pidfd_open(1): %s (refused before pidfd_getfd)", short(err))
	}
	defer unix.Close(pfd)
	fd, err := unix.PidfdGetfd(pfd, 0, 0)
	if err == nil {
		unix.Close(fd)
	}
	return expectErrno("pidfd_getfd(pid 1, fd 0)", err, unix.EPERM)
}

func signalPid1(*Env) Outcome {
	return expectErrno("kill(1, 0)", unix.Kill(1, 0), unix.EPERM)
}

// killPid1 is destructive: if it worked the sandbox ends and the runner
// sees no line, which it reports as a fail.
func killPid1(*Env) Outcome {
	err := unix.Kill(1, unix.SIGKILL)
	if err == nil {
		return failf("kill(1, SIGKILL) succeeded (pid 1 ignored it: the pid namespace protects init from its own members)")
	}
	return passf("kill(1, SIGKILL): %s", short(err))
}

// threadStatus reads /proc/thread-self/status into a map.
func threadStatus() (map[string]string, error) {
	f, err := os.Open("/proc/thread-self/status")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out, sc.Err()
}

func capsZero(*Env) Outcome {
	st, err := threadStatus()
	if err != nil {
		return errorf("status: %v", err)
	}
	var bad []string
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if st[k] != "0000000000000000" {
			bad = append(bad, k+"="+st[k])
		}
	}
	if len(bad) > 0 {
		return failf("%s", strings.Join(bad, " "))
	}
	return passf("all five sets are 0")
}

func statusField(k, want string) func(*Env) Outcome {
	return func(*Env) Outcome {
		st, err := threadStatus()
		if err != nil {
			return errorf("status: %v", err)
		}
		if st[k] != want {
			return failf("%s: %q", k, st[k])
		}
		return passf("%s: %s", k, want)
	}
}

func setuidCall(*Env) Outcome {
	other := 0
	if os.Getuid() == 0 {
		other = 65534
	}
	var err error
	lockThread(func() { err = unix.Setresuid(other, other, other) })
	return expectErrno("setresuid("+strconv.Itoa(other)+")", err, unix.EPERM, unix.EINVAL)
}
