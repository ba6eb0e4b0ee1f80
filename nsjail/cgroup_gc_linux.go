package nsjail

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
	"golang.org/x/sys/unix"
)

// RemoveCgroups removes the cgroups of sandbox id, for a sandbox whose
// owner died before it could (SIGKILL). Only empty cgroups can be removed,
// so a live sandbox's cgroup is never taken away. It returns what it removed.
func RemoveCgroups(id string) []string {
	var out []string
	for _, p := range hostCgroups.parents() {
		d := leafDir(p, id)
		if _, err := os.Stat(d); err == nil && rmdirRetry(d, 0) == nil {
			out = append(out, d)
		}
	}
	return out
}

// SweepCgroups removes every empty sandbox cgroup (acbox-<id>) beside or
// below this process's cgroups whose id is not live, and returns what it
// removed. Sandboxes started from another cgroup are not seen.
//
// A cgroup younger than cgroupGrace is spared whatever live says: a launch
// creates its cgroup empty and places its pid 1 a moment later, and live
// only knows the sandboxes of one state directory (a launch of the same
// user with another state directory, say the /tmp fallback, would lose its
// cgroup in that moment and fail). A dead sandbox's cgroup waits one grace.
func SweepCgroups(live func(id string) bool) []string {
	var out []string
	for _, l := range sandboxLeaves() {
		if time.Since(l.born) < cgroupGrace {
			continue
		}
		if !live(l.id) && rmdirRetry(l.dir, 0) == nil {
			out = append(out, l.dir)
		}
	}
	return out
}

// cgroupGrace is how young a sandbox cgroup is spared by the sweep.
const cgroupGrace = time.Minute

// leaf is one sandbox cgroup: its directory, the sandbox id and when the
// directory was made (its ctime: creating or filling it changes that).
type leaf struct {
	dir, id string
	born    time.Time
}

// sandboxLeaves lists the sandbox cgroups (acbox-<id>) beside or below
// this process's cgroups, live or not.
func sandboxLeaves() []leaf {
	var out []leaf
	for _, p := range hostCgroups.parents() {
		des, _ := os.ReadDir(p)
		for _, de := range des {
			if id, ok := strings.CutPrefix(de.Name(), leafPrefix); ok && de.IsDir() {
				l := leaf{dir: filepath.Join(p, de.Name()), id: id}
				var st unix.Stat_t
				if sys.Stat(l.dir, &st) == nil {
					l.born = time.Unix(st.Ctim.Unix())
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// parents lists the cgroups that hold this process's sandbox cgroups.
func (fs cgroupFS) parents() []string {
	hs, err := fs.hierarchies()
	if err != nil {
		return nil
	}
	var out []string
	if h := findV2(hs); h != nil {
		out = append(out, v2Base(*h))
	}
	for _, c := range []string{"memory", "pids"} {
		if h := findV1(hs, c); h != nil {
			out = append(out, h.own)
		}
	}
	return out
}

// ProbeCgroup creates and removes a throwaway sandbox cgroup and says which
// mechanism a launch would get ("cgroup v2", "cgroup v1") or, when none,
// why not. For `acbox doctor`.
func ProbeCgroup() (mode, why string) {
	c := newCgroup("doctor-"+backend.NewID(), policy.Limits{Memory: policy.DefaultMemory, Pids: policy.DefaultPids})
	defer c.remove()
	return c.mode, c.why
}

// CgroupLeaves counts the sandbox cgroups, live or not: the soak test
// checks it does not grow.
func CgroupLeaves() int { return len(sandboxLeaves()) }
