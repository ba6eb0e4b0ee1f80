package nsjail

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// The helper is cloned with CLONE_VFORK|CLONE_VM: it borrows the parent's
// address space until its exec, so the parent's page tables are neither
// copied nor write-protected (after a plain fork, every page the parent
// writes later faults once). Go's os/exec will not vfork a child in a new
// user namespace, because its child waits, before the exec, for the parent
// to write the id maps. So the helper is exec'd with no maps yet, holding
// its setup capabilities as ambient ones (which do not depend on its ids),
// and the parent writes the maps right after the exec, before it sends the
// configuration; the helper does nothing before it has read that. The maps
// are written before the helper is waited for: once reaped, its pid could
// be taken by another process, and a parent running as root may map uid 0
// into any user namespace.

// ambientCaps are the helper's capabilities at its exec. Its ids are not
// mapped then, so the kernel does not treat uid 0 as root in the new
// namespace: root's helper would hold helperCaps only, where it used to
// hold every capability (uid 0 was mapped at its exec), and its setup
// needs more than those four: CAP_DAC_READ_SEARCH opens a grant beneath a
// root-owned directory without search permission. Root's helper gets every
// capability the kernel knows, as ambient ones; a user's helper gets
// helperCaps, as before (a user's uid was never root in the namespace),
// and in host mode CAP_SYS_PTRACE too, which pid 1 keeps for the listen
// guard (pid1Keeps). The member's thread drops them all before its first
// instruction.
func ambientCaps(uid int, hostNet bool) []uintptr {
	if uid != 0 {
		if hostNet {
			return append(slices.Clip(helperCaps), unix.CAP_SYS_PTRACE)
		}
		return helperCaps
	}
	all := make([]uintptr, lastCap()+1)
	for c := range all {
		all[c] = uintptr(c)
	}
	return all
}

// lastCap is the kernel's highest capability number: PR_CAPBSET_READ
// refuses (EINVAL) exactly the numbers above it, so a bisection over
// 0-63 finds it in six calls where counting up took 41 (a system call
// costs 2-8 us on the test VM, more under load: about 0.3 ms of a loaded
// root launch, before pid 1 is cloned).
func lastCap() int {
	lo, hi := 0, 64 // [0, lo) known to the kernel; [hi, 64) refused
	for lo < hi {
		mid := (lo + hi) / 2
		if errors.Is(sys.Prctl("PR_CAPBSET_READ", unix.PR_CAPBSET_READ, uintptr(mid), 0, 0, 0), unix.EINVAL) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo - 1
}

// mapIDs writes the helper's id maps; the caller has not waited for it.
func (l *launch) mapIDs(uid, gid int) error {
	if l.opt.beforeMaps != nil {
		l.opt.beforeMaps(l.child.pid)
	}
	return writeIDMaps(l.child.pid, uid, gid)
}

// writeIDMaps gives the helper (a child not yet waited for, so its pid
// cannot have been reused) its id maps: the caller's uid and gid mapped to
// themselves, setgroups denied, and for root one more group
// (gidMappings). A map the kernel refuses ends the launch.
func writeIDMaps(pid, uid, gid int) error {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	files := [...]struct{ name, value string }{
		{"setgroups", "deny"},
		{"gid_map", formatIDMap(gidMappings(gid))},
		{"uid_map", formatIDMap([]syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}})},
	}
	for _, f := range files {
		if err := writeFile(dir+f.name, f.value); err != nil {
			return &startError{why: "the kernel refused the sandbox's id maps",
				remedy: "run `acbox doctor` for the failing check, or use --backend docker", err: err}
		}
	}
	return nil
}

// formatIDMap renders maps the way /proc/PID/uid_map takes them: one line
// each, written in one write(2).
func formatIDMap(maps []syscall.SysProcIDMap) string {
	var b strings.Builder
	for _, m := range maps {
		b.WriteString(strconv.Itoa(m.ContainerID) + " " + strconv.Itoa(m.HostID) + " " + strconv.Itoa(m.Size) + "\n")
	}
	return b.String()
}
