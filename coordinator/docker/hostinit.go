package docker

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/sys"
)

// The daemon reports the container's pid 1 (State.Pid) in its own pid
// namespace. A daemon in another one (in a container, in Docker Desktop's
// VM, under rootlesskit's --pidns) gives a number that names an unrelated
// process here, or none: signalled, or read through /proc, it would be
// that process's. So the backend takes the number as a host pid (for the
// host-side checks, the report's namespaces, and the pid 1 a stop kills)
// only once it has seen, from here, that the process is pid 1 of the pid
// namespace the init reported through the start gate.

// hostInit is the container's pid 1 as this process sees it, held by a
// pidfd opened before it was verified. pid 0: not verified, why says why.
type hostInit struct {
	pid, fd int
	why     string
}

// pinInit opens a pidfd on pid, then requires that the process is pid 1
// of its pid namespace (the last NSpid of its status) and that the
// namespace is want. The namespace is read last and the pidfd's process
// checked not reaped after it, so both reads were of the process the
// pidfd holds, whatever became of pid since.
func pinInit(pid int, want gate.NS) hostInit {
	if want == (gate.NS{}) {
		return hostInit{why: "the container's init did not report its pid namespace"}
	}
	foreign := hostInit{why: fmt.Sprintf("pid %d, the container's pid 1 as the Docker daemon numbers it, is not that process here: the daemon runs in another pid namespace", pid)}
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return foreign
	}
	if !isNSInit(pid) {
		sys.Close(fd)
		return foreign
	}
	ns, err := sys.PidNSOfPidfd(pid, fd)
	if err == nil && ns == (sys.NSID{Dev: want.Dev, Ino: want.Ino}) {
		return hostInit{pid: pid, fd: fd}
	}
	sys.Close(fd)
	if errors.Is(err, os.ErrPermission) {
		return hostInit{why: fmt.Sprintf("this process may not look at the container's pid 1 (pid %d)", pid)}
	}
	return foreign
}

// exited tells whether the verified pid 1 has exited (or there is none):
// reads through /proc/<pid> made before a false answer were its own.
func (h *hostInit) exited() bool {
	if h.fd <= 0 {
		return true
	}
	gone, err := sys.WaitReadable(h.fd, 0)
	return gone || err != nil
}

func (h *hostInit) close() {
	if h.fd > 0 {
		sys.Close(h.fd)
		h.fd = 0
	}
}

// isNSInit tells whether pid is pid 1 of its own pid namespace.
func isNSInit(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	n, ok := lastNSpid(b)
	return ok && n == 1
}

// lastNSpid is the last number of the NSpid line of a /proc/<pid>/status
// (the pid in the process's own namespace).
func lastNSpid(status []byte) (int, bool) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("NSpid:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.Atoi(string(f[len(f)-1]))
		return n, err == nil && n > 0
	}
	return 0, false
}
