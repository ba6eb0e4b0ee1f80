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
