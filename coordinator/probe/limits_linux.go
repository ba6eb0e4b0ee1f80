package probe

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The member's RLIMIT_DATA is --memory where no cgroup caps memory, and
// acbox's init sets it as a soft limit only (it must get its own back after
// the fork). The native filter refuses setting it; a raised limit would let
// the member allocate past --memory (the attack of 2026-12-01, repro-1).

func dataLimitProbe() Probe {
	return Probe{ID: "res.data-limit-raise", Category: Resources, Source: "acbox design; attack repro-1 (2026-12-01)",
		Expect: "raising RLIMIT_DATA (setrlimit, and prlimit64 on itself) fails with EPERM and the limit stays finite; reading it works",
		Run:    dataLimitRaise}
}

func dataLimitRaise(*Env) Outcome {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err != nil {
		return errorf("getrlimit(RLIMIT_DATA): %v", err)
	}
	if cur.Cur == unix.RLIM_INFINITY {
		return failf("RLIMIT_DATA is unlimited: no memory limit is in force")
	}
	raised := unix.Rlimit{Cur: cur.Max, Max: cur.Max}
	if cur.Cur == cur.Max {
		raised = unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	}
	_, _, e1 := unix.RawSyscall(unix.SYS_SETRLIMIT, unix.RLIMIT_DATA, uintptr(unsafe.Pointer(&raised)), 0)
	_, _, e2 := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_DATA, uintptr(unsafe.Pointer(&raised)), 0, 0, 0)
	var after unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &after); err != nil {
		return errorf("getrlimit(RLIMIT_DATA) after: %v", err)
	}
	seen := fmt.Sprintf("RLIMIT_DATA %s/%s, raising to %s: setrlimit %s, prlimit64 %s; now %s",
		limitString(cur.Cur), limitString(cur.Max), limitString(raised.Cur), errnoOrOK(e1), errnoOrOK(e2), limitString(after.Cur))
	if e1 != unix.EPERM || e2 != unix.EPERM || after.Cur != cur.Cur {
		return failf("%s", seen)
	}
	return passf("%s", seen)
}

// dataLimitDocker: the init sets the limit; raising it is not refused
// there (the init itself sets it under the same profile).
func dataLimitDocker(*Env) Outcome {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err != nil {
		return errorf("getrlimit(RLIMIT_DATA): %v", err)
	}
	if cur.Cur == unix.RLIM_INFINITY {
		return failf("RLIMIT_DATA is unlimited: acbox's init did not set it")
	}
	return passf("RLIMIT_DATA %s/%s (the memory cgroup is the cap)", limitString(cur.Cur), limitString(cur.Max))
}

func errnoOrOK(e unix.Errno) string {
	if e == 0 {
		return "succeeded"
	}
	return errnoName(e)
}

// userCountersProbe: the /proc/sys/user caps pid 1 wrote in the sandbox's
// user namespace are the other limits a member might raise back; writing
// them needs CAP_SYS_RESOURCE there, which the member never holds.
func userCountersProbe() Probe {
	return Probe{ID: "res.user-counters-raise", Category: Resources, Source: "acbox design (issue 11); audit of 2026-12-01",
		Expect: "the /proc/sys/user caps cannot be opened for writing, and none reads INT_MAX (unlimited)", Run: userCountersRaise}
}

func userCountersRaise(*Env) Outcome {
	var outs []Outcome
	for _, n := range []string{"max_inotify_instances", "max_inotify_watches", "max_user_namespaces"} {
		p := "/proc/sys/user/" + n
		b, err := os.ReadFile(p)
		if err != nil {
			return skipf("%s: %v", p, err)
		}
		if v := strings.TrimSpace(string(b)); v == "2147483647" {
			outs = append(outs, failf("%s is %s: not capped", p, v))
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		outs = append(outs, expectDenied("open "+p+" O_WRONLY", err))
	}
	return worst(outs...)
}

// stackMemoryProbe: stacks are the private memory the data limit does not
// count (VM_STACK). A MAP_GROWSDOWN mapping is one; the native and docker
// filters refuse it. The main stack is the other, bounded by RLIMIT_STACK,
// which acbox's native pid 1 sets with soft = hard so that the member
// cannot raise it (attack repro-1 of 2026-12-01, second round).
func stackMemoryProbe() Probe {
	return Probe{ID: "res.stack-outside-data", Category: Resources, Source: "acbox design; attack repro-1 (2026-12-01, second round)",
		Expect: "mmap with MAP_GROWSDOWN fails with EPERM; RLIMIT_STACK is finite with soft = hard, and raising it fails with EPERM",
		Run:    stackMemory}
}

func stackMemory(*Env) Outcome {
	return worst(growsdownRefused(), stackLimitFixed())
}

func growsdownRefused() Outcome {
	r, _, e := unix.RawSyscall6(unix.SYS_MMAP, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_GROWSDOWN, ^uintptr(0), 0)
	if e == 0 {
		unix.RawSyscall(unix.SYS_MUNMAP, r, 1<<20, 0)
		return failf("mmap(MAP_GROWSDOWN) succeeded: a stack mapping past the data limit")
	}
	if e != unix.EPERM {
		return failf("mmap(MAP_GROWSDOWN): %s, want EPERM (the filter's answer)", errnoName(e))
	}
	return passf("mmap(MAP_GROWSDOWN): EPERM")
}

func stackLimitFixed() Outcome {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &cur); err != nil {
		return errorf("getrlimit(RLIMIT_STACK): %v", err)
	}
	seen := fmt.Sprintf("RLIMIT_STACK %s/%s", limitString(cur.Cur), limitString(cur.Max))
	if cur.Cur == unix.RLIM_INFINITY || cur.Cur != cur.Max {
		return failf("%s: the member can raise its stack past the data limit", seen)
	}
	raised := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	_, _, e := unix.RawSyscall(unix.SYS_SETRLIMIT, unix.RLIMIT_STACK, uintptr(unsafe.Pointer(&raised)), 0)
	if e != unix.EPERM {
		return failf("%s, raising it to unlimited: %s, want EPERM", seen, errnoOrOK(e))
	}
	return passf("%s, raising it: EPERM", seen)
}

// stackMemoryDocker: the profile refuses MAP_GROWSDOWN as the native
// filter does; the stack limit is docker's (the memory cgroup is the cap).
func stackMemoryDocker(*Env) Outcome {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &cur); err != nil {
		return errorf("getrlimit(RLIMIT_STACK): %v", err)
	}
	g := growsdownRefused()
	if g.Result != Pass {
		return g
	}
	return passf("%s; RLIMIT_STACK %s/%s (the memory cgroup is the cap)", g.Detail, limitString(cur.Cur), limitString(cur.Max))
}
