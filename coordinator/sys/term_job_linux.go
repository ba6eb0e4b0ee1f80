package sys

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// SharedInJob reports whether a process of the caller's process group (a
// shell's job: `acbox run -- cmd | less`) other than the caller and its
// ancestors has the terminal rdev as its controlling terminal: a pager of
// the same pipeline that may have changed the terminal's settings on
// purpose. The caller's ancestors are left out: in one process group they
// are a shell without job control (`sh -c 'acbox run ...'`) that waits for
// it. It reads every /proc/<pid>/stat, so RestoreTerminal asks only when
// termios differs. A /proc it cannot read counts as not shared.
func SharedInJob(rdev uint64) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self, pgrp := os.Getpid(), unix.Getpgrp()
	tty := ttyNr(rdev)
	parent := map[int]int{}
	var holders []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		s, ok := parseStat(b)
		if !ok {
			continue
		}
		parent[pid] = s.ppid
		if s.pgrp == pgrp && s.ttyNr == tty && pid != self {
			holders = append(holders, pid)
		}
	}
	ancestor := map[int]bool{}
	for p := os.Getppid(); p > 0 && !ancestor[p]; p = parent[p] {
		ancestor[p] = true
	}
	for _, pid := range holders {
		if !ancestor[pid] {
			return true
		}
	}
	return false
}

// ttyNr encodes a device number as field 7 of /proc/<pid>/stat does (the
// kernel's new_encode_dev).
func ttyNr(rdev uint64) int {
	major, minor := uint64(unix.Major(rdev)), uint64(unix.Minor(rdev))
	return int(minor&0xff | major<<8 | (minor&^0xff)<<12)
}

type procStat struct{ ppid, pgrp, ttyNr int }

// parseStat reads fields 4 (ppid), 5 (pgrp) and 7 (tty_nr) of a
// /proc/<pid>/stat line, counted from the last ')' (the command name may
// hold spaces and parentheses). A zombie's are of no use: it holds nothing.
func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 5 || f[0][0] == 'Z' || f[0][0] == 'X' {
		return procStat{}, false
	}
	var v [3]int
	for j, k := range []int{1, 2, 4} {
		n, err := strconv.Atoi(string(f[k]))
		if err != nil {
			return procStat{}, false
		}
		v[j] = n
	}
	return procStat{ppid: v[0], pgrp: v[1], ttyNr: v[2]}, true
}
