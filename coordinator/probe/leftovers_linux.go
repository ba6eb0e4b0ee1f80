package probe

import (
	"os"
	"strconv"
	"strings"
)

// Snapshot is the host state the suite must leave as it found it: the
// acbox-named entries of /tmp and the runner's mount table.
type Snapshot struct {
	tmp    map[string]bool
	mounts map[string]bool
}

// TakeSnapshot records the state; take it before the fixture exists.
func TakeSnapshot() Snapshot {
	return Snapshot{tmp: acboxTmp(), mounts: mountLines()}
}

func acboxTmp() map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir("/tmp")
	for _, e := range ents {
		if strings.Contains(e.Name(), "acbox") {
			out[e.Name()] = true
		}
	}
	return out
}

func mountLines() map[string]bool {
	out := map[string]bool{}
	b, _ := os.ReadFile("/proc/self/mountinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !dockerMount(l) {
			out[l] = true
		}
	}
	return out
}

// dockerMount: mounts the Docker daemon and containerd make and remove on
// their own schedule (overlay layers, netns files), whoever started the
// container; the docker backend's own leftovers are checked as containers.
func dockerMount(line string) bool {
	f := strings.Fields(line)
	if len(f) < 5 {
		return false
	}
	for _, p := range []string{"/var/lib/docker/", "/run/docker/", "/run/containerd/", "/var/run/docker/"} {
		if strings.HasPrefix(f[4], p) {
			return true
		}
	}
	return false
}

// Leftovers compares the host with the snapshot once every sandbox has
// ended and the fixture is closed. Other acbox work running at the same
// time on this host can add /tmp entries; the detail names them.
func (s Snapshot) Leftovers() Line {
	var bad []string
	for n := range acboxTmp() {
		if !s.tmp[n] {
			bad = append(bad, "/tmp/"+n)
		}
	}
	for l := range mountLines() {
		if !s.mounts[l] {
			bad = append(bad, "mount: "+l)
		}
	}
	if d := descendants(os.Getpid()); len(d) > 0 {
		bad = append(bad, "processes still running under the runner: "+strings.Join(d, " "))
	}
	expect := "after every run: no new acbox entry in /tmp, no new mount, no process left under the runner"
	o := passf("nothing left behind")
	if len(bad) > 0 {
		o = failf("%s", strings.Join(bad, "; "))
	}
	return Line{ID: "life.no-leftovers", Category: Lifecycle, Result: o.Result, Expect: expect, Detail: o.Detail, Source: "acbox design (end: nothing left behind)"}
}

// descendants lists the pids below pid, from each process's PPid.
func descendants(pid int) []string {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "PPid:"); ok {
				parent[n], _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
	}
	var out []string
	for n := range parent {
		for p := parent[n]; p > 1; p = parent[p] {
			if p == pid {
				out = append(out, strconv.Itoa(n))
				break
			}
		}
	}
	return out
}
