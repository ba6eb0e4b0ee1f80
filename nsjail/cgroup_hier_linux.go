package nsjail

import (
	"bufio"
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acbox/acbox/coordinator/sys"
)

// hierarchy is one mounted cgroup hierarchy and this process's cgroup in it.
type hierarchy struct {
	v2    bool
	ctrls []string // v1: the hierarchy's controllers
	mount string   // mount point
	own   string   // this process's cgroup directory
}

func (fs cgroupFS) hierarchies() ([]hierarchy, error) {
	mi, err := sys.ReadFile(fs.mountinfo)
	if err != nil {
		return nil, err
	}
	self, err := sys.ReadFile(fs.self)
	if err != nil {
		return nil, err
	}
	return parseHierarchies(mi, self), nil
}

// parseHierarchies pairs each cgroup mount of mountinfo with this process's
// line in /proc/self/cgroup ("id:controllers:path"). Named v1 hierarchies
// without controllers are left out. A mount whose root is not an ancestor
// of our cgroup (a bind of another subtree) is skipped.
func parseHierarchies(mountinfo, self []byte) []hierarchy {
	paths := map[string]string{} // controllers ("" for v2) -> path
	for _, line := range strings.Split(string(self), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 {
			paths[f[1]] = f[2]
		}
	}
	var out []hierarchy
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		sep := slices.Index(f, "-")
		if sep < 6 || len(f) < sep+4 || (f[sep+1] != "cgroup" && f[sep+1] != "cgroup2") {
			continue
		}
		h := hierarchy{mount: f[4], v2: f[sep+1] == "cgroup2"}
		key := ""
		if !h.v2 {
			if key, h.ctrls = v1Key(paths, strings.Split(f[sep+3], ",")); key == "" {
				continue
			}
		}
		p, ok := paths[key]
		rel, inside := strings.CutPrefix(p, strings.TrimSuffix(f[3], "/"))
		if !ok || !inside || (rel != "" && rel[0] != '/') {
			continue
		}
		h.own = filepath.Join(h.mount, rel)
		out = append(out, h)
	}
	return out
}

// v1Key finds the /proc/self/cgroup key ("cpu,cpuacct") whose every
// controller is among a v1 mount's super options, and its controllers.
func v1Key(paths map[string]string, opts []string) (string, []string) {
	for key := range paths {
		if key == "" || strings.HasPrefix(key, "name=") {
			continue
		}
		ctrls := strings.Split(key, ",")
		if !slices.ContainsFunc(ctrls, func(c string) bool { return !slices.Contains(opts, c) }) {
			return key, ctrls
		}
	}
	return "", nil
}

func findV2(hs []hierarchy) *hierarchy {
	for i := range hs {
		if hs[i].v2 {
			return &hs[i]
		}
	}
	return nil
}

func findV1(hs []hierarchy, ctrl string) *hierarchy {
	for i := range hs {
		if !hs[i].v2 && slices.Contains(hs[i].ctrls, ctrl) {
			return &hs[i]
		}
	}
	return nil
}

// v2Base is the cgroup under which acbox-<id> is made: the hierarchy's
// root when we are in it, else our cgroup's parent.
func v2Base(h hierarchy) string {
	if h.own == h.mount {
		return h.mount
	}
	return filepath.Dir(h.own)
}
