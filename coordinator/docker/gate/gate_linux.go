package gate

import (
	"bufio"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// StatPaths returns the identity of each path as this process sees it,
// opened O_PATH|O_NOFOLLOW so a symlink at the path is reported as the
// link, never as what it points to, and the process's own privileges.
func StatPaths(paths []string) Idents {
	out := Idents{Idents: make([]Ident, 0, len(paths)), Self: ReadSelf()}
	for _, p := range paths {
		out.Idents = append(out.Idents, statPath(p))
	}
	return out
}

func statPath(p string) Ident {
	id := Ident{Path: p}
	fd, err := sys.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		id.Err = err.Error()
		return id
	}
	defer sys.Close(fd)
	var st unix.Stat_t
	if err := sys.Fstat(fd, p, &st); err != nil {
		id.Err = err.Error()
		return id
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		id.Err = "is a symlink"
	}
	id.Dev, id.Ino = st.Dev, st.Ino
	return id
}

// ReadSelf reads this process's ids, groups, capability sets,
// no_new_privs, seccomp mode, LSM label and pid namespace.
func ReadSelf() SelfStatus {
	st := statusFields()
	s := SelfStatus{UID: st["Uid"], GID: st["Gid"], Caps: map[string]string{},
		NoNewPrivs: st["NoNewPrivs"] == "1", Seccomp: st["Seccomp"]}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		s.Caps[k] = st[k]
	}
	s.Groups, _ = sys.Getgroups()
	if s.Groups == nil {
		s.Groups = []int{}
	}
	if b, err := os.ReadFile("/proc/self/attr/current"); err == nil {
		s.AppArmor = strings.TrimRight(string(b), "\x00\n")
	}
	var ns unix.Stat_t
	if sys.Stat("/proc/self/ns/pid", &ns) == nil {
		s.PidNS = NS{Dev: ns.Dev, Ino: ns.Ino}
	}
	return s
}

func statusFields() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			out[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return out
}
