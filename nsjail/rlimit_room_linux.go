package nsjail

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Limits pid 1 cannot set. pid 1 holds no privilege over the host's
// limits, so it cannot raise a hard limit it inherits from acbox: a
// --pids above the caller's hard RLIMIT_NPROC, or a --memory above its
// hard RLIMIT_DATA, used to fail in pid 1's setup (exit 126, "setrlimit
// nproc: operation not permitted"). The parent refuses them before
// anything starts, with the figure to ask for instead.

// roomCheck is one rlimit pid 1 sets from a requested limit.
type roomCheck struct {
	flag     string // the option that asks for it
	resource int
	want     uint64
	what     string              // the limit, for the message
	raise    string              // its item in limits.conf
	format   func(uint64) string // a limit, and the most to ask for
	asked    func(uint64) string // the request
}

func roomChecks(l policy.Limits) []roomCheck {
	count := func(n uint64) string { return strconv.FormatUint(n, 10) }
	// Whole MiB, rounded down: the figure offered must be one that passes;
	// a request shown so only when that is exact, else in bytes.
	size := func(n uint64) string { return strconv.FormatUint(n>>20, 10) + "MiB" }
	asked := func(n uint64) string {
		if n%(1<<20) == 0 {
			return size(n)
		}
		return strconv.FormatUint(n, 10) + " bytes"
	}
	return []roomCheck{
		{"--pids", unix.RLIMIT_NPROC, uint64(l.Pids), "processes (RLIMIT_NPROC)", "nproc", count, count},
		{"--memory", unix.RLIMIT_DATA, uint64(l.Memory), "data size (RLIMIT_DATA)", "data", size, asked},
	}
}

// checkRlimitRoom refuses limits above this process's hard rlimits.
func checkRlimitRoom(l policy.Limits) error { return checkRoom(l, sys.Getrlimit) }

func checkRoom(l policy.Limits, getrlimit func(int, *unix.Rlimit) error) error {
	for _, c := range roomChecks(l) {
		var r unix.Rlimit
		if err := getrlimit(c.resource, &r); err != nil {
			return fmt.Errorf("%w: reading the hard limit on %s: %w", policy.ErrCannotSandbox, c.what, err)
		}
		if r.Max != unix.RLIM_INFINITY && c.want > r.Max {
			return policy.Refuse(c.flag+" "+c.asked(c.want),
				fmt.Sprintf("above acbox's hard limit on %s, %s, which nothing in the sandbox can raise", c.what, c.format(r.Max)),
				fmt.Sprintf("ask for at most %s %s, or have root raise the hard %q limit for the user that runs acbox (limits.conf, then log in again)", c.flag, c.format(r.Max), c.raise))
		}
	}
	return nil
}
