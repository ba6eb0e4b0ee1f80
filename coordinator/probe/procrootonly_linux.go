package probe

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// rootOnlyProcProbe: no top-level entry of /proc that only root may read
// yields anything, whatever its name. A root caller's member is that root,
// and a kernel can add such a file the named lists do not know (attack
// 2026-12-02, repro-3: a custom kernel's /proc/program_cpu, 0400, lists
// the programs run on the whole host). Masks (/dev/null's device, an empty
// tmpfs) are checked alike: they must read nothing.
func rootOnlyProcProbe() Probe {
	return Probe{ID: "fs.proc-root-only", Category: Filesystem, Source: "attack 2026-12-02 (repro-3); runc/Docker masked paths",
		Expect: "every top-level /proc file others may not read (and every mask there) reads nothing or is refused, and every such directory lists nothing, whatever its name",
		Run:    rootOnlyProc}
}

func rootOnlyProc(*Env) Outcome {
	des, err := os.ReadDir("/proc")
	if err != nil {
		return errorf("list /proc: %v", err)
	}
	var got []string
	checked := 0
	for _, d := range des {
		n := d.Name()
		if policy.ProcPidEntry(n) {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat("/proc/"+n, &st) != nil {
			continue // gone, or refused
		}
		t := st.Mode & unix.S_IFMT
		switch {
		case t == unix.S_IFLNK || ((t == unix.S_IFREG || t == unix.S_IFDIR) && !policy.ProcRootOnly(st.Mode)):
			continue
		case t == unix.S_IFDIR:
			checked++
			if des, err := os.ReadDir("/proc/" + n); err == nil && len(des) > 0 {
				got = append(got, "/proc/"+n)
			}
		default:
			checked++
			if readsNonBlocking("/proc/" + n) {
				got = append(got, "/proc/"+n)
			}
		}
	}
	if len(got) > 0 {
		return failf("readable: %s", strings.Join(got, ", "))
	}
	return passf("%d entries only root may read, or masks, checked: empty or refused", checked)
}

// readsNonBlocking is readsSomething with O_NONBLOCK, so that a file like
// kmsg, were it readable, returns at once instead of waiting for data.
func readsNonBlocking(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	b := make([]byte, 64)
	n, _ := unix.Read(fd, b)
	return n > 0
}
