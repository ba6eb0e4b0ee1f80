package initproc

import (
	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// undumpable clears the process's dumpable flag (prctl(PR_SET_DUMPABLE)).
func undumpable() error {
	return sys.Prctl("PR_SET_DUMPABLE", unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

func getData() (unix.Rlimit, error) {
	var r unix.Rlimit
	return r, sys.Getrlimit(unix.RLIMIT_DATA, &r)
}

func setData(cur, max uint64) error {
	return sys.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: cur, Max: max})
}
