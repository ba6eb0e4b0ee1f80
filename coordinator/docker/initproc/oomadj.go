package initproc

import "os"

// oomAdj is the init's /proc/self/oom_score_adj, opened before the init
// makes itself not dumpable (then its /proc files are root's), and the
// value it inherited. The init raises it to 1000 around the member's
// start, for the member to inherit, and then takes its own back (as the
// native pid 1 does, nsjail/oomadj_linux.go): the kernel's OOM killer, the
// container's memory cgroup's and the host's, then takes the member, and
// all it forks, before the init, whose death ends the container. Raising
// needs no privilege, nor does going back to the inherited value (the
// kernel refuses only a value below the least a privileged process set,
// which is what the runtime set, or less). Best effort: without /proc
// the member keeps the container's value. The zero value does nothing.
type oomAdj struct {
	f   *os.File
	own []byte
}

var memberOOMScoreAdj = []byte("1000")

func openOOMAdj() oomAdj {
	f, err := os.OpenFile("/proc/self/oom_score_adj", os.O_RDWR, 0)
	if err != nil {
		return oomAdj{}
	}
	b := make([]byte, 16)
	n, err := f.ReadAt(b, 0)
	if n == 0 {
		f.Close()
		return oomAdj{}
	}
	_ = err // io.EOF after the value
	return oomAdj{f: f, own: b[:n]}
}

func (o oomAdj) raise()   { o.set(memberOOMScoreAdj) }
func (o oomAdj) restore() { o.set(o.own) }

func (o oomAdj) set(v []byte) {
	if o.f != nil {
		o.f.WriteAt(v, 0)
	}
}
