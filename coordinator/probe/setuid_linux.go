package probe

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setuidDirs are searched for a setuid binary, best candidates first: they
// are run with --version, which every one of them treats harmlessly.
var (
	setuidDirs  = []string{"/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/lib/openssh", "/usr/lib/dbus-1.0"}
	setuidFirst = []string{"mount", "umount", "newgrp", "su", "passwd", "chsh", "chfn", "gpasswd"}
)

// setuidBinary runs a setuid binary owned by someone else and reads its
// effective uid from /proc while it is alive or a zombie (not yet reaped,
// so its credentials are still there).
func setuidBinary(*Env) Outcome {
	uid := os.Getuid()
	if uid == 0 {
		return skipf("the caller is root: a setuid-root binary cannot show a gain")
	}
	bin, owner := findSetuid(uid)
	if bin == "" {
		return skipf("no setuid binary owned by another user in %s", strings.Join(setuidDirs, " "))
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return errorf("%v", err)
	}
	defer null.Close()
	p, err := os.StartProcess(bin, []string{bin, "--version"}, &os.ProcAttr{Files: []*os.File{null, null, null}})
	if err != nil {
		return passf("exec %s (setuid uid %d) refused: %s", bin, owner, short(err))
	}
	defer p.Wait()
	defer p.Kill()
	euid, err := effectiveUID(p.Pid)
	if err != nil {
		return errorf("reading the euid of %s: %v", bin, err)
	}
	if euid != uid {
		return failf("%s (setuid uid %d) ran with euid %d", bin, owner, euid)
	}
	return passf("%s (setuid uid %d) ran with euid %d, the caller's", bin, owner, euid)
}

// overflowUID is how the user namespace shows an unmapped owner (root).
const overflowUID = 65534

func findSetuid(uid int) (string, int) {
	var found []string
	for _, d := range setuidDirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			found = append(found, filepath.Join(d, e.Name()))
		}
	}
	best, bestRank, owner := "", 3*len(setuidFirst), 0
	for _, p := range found {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil || st.Mode&syscall.S_ISUID == 0 || int(st.Uid) == uid || st.Mode&0o111 == 0 {
			continue
		}
		rank := len(setuidFirst)
		for i, n := range setuidFirst {
			if filepath.Base(p) == n {
				rank = i
			}
		}
		if st.Uid != 0 && st.Uid != overflowUID {
			rank += len(setuidFirst) // prefer the host's root, shown unmapped inside
		}
		if rank < bestRank {
			best, bestRank, owner = p, rank, int(st.Uid)
		}
	}
	return best, owner
}

func effectiveUID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Uid:"); ok {
			f := strings.Fields(v)
			if len(f) >= 2 {
				return strconv.Atoi(f[1])
			}
		}
	}
	return 0, os.ErrNotExist
}
