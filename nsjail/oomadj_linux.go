package nsjail

import (
	"io"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// What pid 1 does around the member's fork (restrictAndExec): the fork
// message, and the OOM killer's preference for the member.

// forking is pid 1's status pipe and its oom_score_adj.
type forking struct {
	status io.Writer
	adj    oomAdj
}

// before runs right before the fork. The fork message: from here the
// member may run, so a pid 1 that dies without a later message (the
// memory cgroup's OOM killer, a stop) has the parent report the member
// as killed, never as a launch that ran nothing (supervise_linux.go,
// diedAs). In the pipe before the fork, so no death of pid 1 after the
// member's first instruction can lose it. Then pid 1 raises its own
// oom_score_adj for the member to inherit.
func (f *forking) before(rep *policy.Report) {
	f.status.Write(encodeMsg(helperMsg{Kind: "fork", Report: rep}))
	f.adj.set(memberOOMScoreAdj)
}

// after runs once the fork (and exec) returned: pid 1 takes its own
// value back.
func (f *forking) after() { f.adj.set(f.adj.own) }

// memberOOMScoreAdj has the kernel's OOM killer, the memory cgroup's and
// the host's, take the member, and all it forks, first.
var memberOOMScoreAdj = []byte("1000")

// oomAdj is pid 1's /proc/self/oom_score_adj and the value pid 1
// inherited. Opened before pid 1 makes itself not dumpable (then its
// /proc files belong to its user namespace's root, which a rootless
// sandbox does not map) and before the member's thread enters its
// Landlock domain (which gives no write to /proc).
//
// The value is per process and syscall.ForkExec runs nothing of ours in
// the child, so pid 1 sets it on itself around the fork: the member
// inherits 1000 from its first instruction (set on the member after its
// exec, a shell's first children kept 0). Without it the memory cgroup's
// OOM killer picks pid 1 when the member's memory is the kernel's (socket
// or pipe buffers, charged to the cgroup but to no process): pid 1, a Go
// program, has the most resident memory. Raising needs no privilege, nor
// does taking the inherited value back (the kernel refuses only a value
// below the least a privileged process set, oom_score_adj_min, and the
// inherited value is not below it). The member cannot lower its own: it
// may not write to /proc. Best effort: a pid 1 that cannot set it (no
// /proc/self, a kernel without the file) is still reported as the
// member's death when the OOM killer takes it (diedAs); one that cannot
// take its own value back keeps 1000 and is then the one taken, with
// the member.
type oomAdj struct {
	fd  int
	own []byte
}

func openOOMAdj() oomAdj {
	const path = "/proc/self/oom_score_adj"
	fd, err := sys.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return oomAdj{fd: -1}
	}
	b := make([]byte, 16)
	n, err := sys.Read(fd, path, b)
	if err != nil || n == 0 {
		sys.Close(fd)
		return oomAdj{fd: -1}
	}
	return oomAdj{fd: fd, own: b[:n]}
}

func (o oomAdj) set(v []byte) {
	if o.fd >= 0 {
		unix.Pwrite(o.fd, v, 0)
	}
}

func (o oomAdj) close() {
	if o.fd >= 0 {
		sys.Close(o.fd)
	}
}
