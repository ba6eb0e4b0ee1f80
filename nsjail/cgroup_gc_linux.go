package nsjail

import (
	"os"
	"path/filepath"
	"strings"

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
		if _, err := os.Stat(d); err == nil && removeUnclaimed(d) {
			out = append(out, d)
		}
	}
	return out
}

// SweepCgroups removes every empty sandbox cgroup (acbox-<id>) beside or
// below this process's cgroups whose id is not live and that no launch
// claims, and returns what it removed. Sandboxes started from another
// cgroup are not seen.
func SweepCgroups(live func(id string) bool) []string {
	var out []string
	for _, l := range sandboxLeaves() {
		if !live(l.id) && removeUnclaimed(l.dir) {
			out = append(out, l.dir)
		}
	}
	return out
}

// leaf is one sandbox cgroup: its directory and the sandbox id.
type leaf struct{ dir, id string }

// sandboxLeaves lists the sandbox cgroups (acbox-<id>) beside or below
// this process's cgroups, live or not.
func sandboxLeaves() []leaf {
	var out []leaf
	for _, p := range hostCgroups.parents() {
		des, _ := os.ReadDir(p)
		for _, de := range des {
			if id, ok := strings.CutPrefix(de.Name(), leafPrefix); ok && de.IsDir() {
				out = append(out, leaf{filepath.Join(p, de.Name()), id})
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

// removeUnclaimed removes the empty cgroup dir unless a launch claims it.
// A launch holds a shared flock(2) on each of its cgroup directories from
// creating it until it removes it (cgroup.leaf): it creates the cgroup
// empty and pid 1 enters it a moment later, and a sweep whose live set
// does not know the sandbox (gc from another state directory of the same
// user) must not take it away in that moment. The sweep takes the lock
// exclusively without waiting; a claimed cgroup is left alone.
func removeUnclaimed(dir string) bool {
	fd, err := sys.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer sys.Close(fd)
	if sys.Flock(fd, dir, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	return rmdirRetry(dir, 0) == nil
}
