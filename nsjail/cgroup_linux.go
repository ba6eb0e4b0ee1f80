package nsjail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Cgroups. Where the host lets acbox create a cgroup (root, or a delegated
// cgroup v2 subtree), each sandbox gets its own, named acbox-<id>, that caps
// memory (swap off) and the number of tasks for the sandbox as a whole,
// helper included. It is created BELOW this process's own cgroup (v1), or
// beside it under the same parent (v2, whose "no internal processes" rule
// forbids children of a cgroup that holds processes), so a sandbox never
// escapes the limits its caller runs under. cgroup v2 is tried first and the
// helper is cloned straight into it (CLONE_INTO_CGROUP); on cgroup v1 the
// parent passes the leaves to the helper, which moves every thread of its
// own in as soon as it has read its config (cgroup_enter_linux.go), so
// nothing of the member runs outside. The directories are removed once
// the helper is dead; after a SIGKILL of the parent, `acbox gc` and the
// next launch remove them. There is no shared
// acbox parent directory: nothing outlives the sandbox, and concurrent
// launches never race over a common parent.
//
// Cost: writing a pid to a v1 cgroup.procs takes the kernel's threadgroup
// lock for writing, which waits for an RCU grace period: 0.2 to 18 ms per
// launch on a 2-vCPU test VM. A thread that writes "0" (itself) to a v1
// tasks file skips that lock, and so does CLONE_INTO_CGROUP (v2).
//
// Elsewhere the rlimits of limits_linux.go stay the only limits, and the
// report says so and why.

// cgroupFS names the files that describe this process's cgroups; tests
// point them at fixtures.
type cgroupFS struct {
	mountinfo, self string
}

var hostCgroups = cgroupFS{mountinfo: "/proc/self/mountinfo", self: "/proc/self/cgroup"}

// cgroup is a sandbox's own cgroup, or none (mode "") and why not.
type cgroup struct {
	id     string
	mode   string // "cgroup v2", "cgroup v1" or ""
	why    string
	dirs   []string          // created leaves, removed at exit
	values map[string]string // limit files, as read back
	// claims: each leaf, open, with a shared flock held until it is
	// removed (see removeUnclaimed). The same descriptor is what the helper
	// is cloned into (v2, CLONE_INTO_CGROUP) or enters (v1, passLeaves):
	// a lock belongs to the open file, so the helper's copy, closed once
	// it is inside, takes nothing away.
	claims []*os.File
}

// newCgroup creates the sandbox's cgroup, or explains in the result why
// there is none. It never fails the launch: without a cgroup the rlimits
// apply and the report says which mechanism is in force.
func newCgroup(id string, l policy.Limits) *cgroup {
	return hostCgroups.create(id, l)
}

func (fs cgroupFS) create(id string, l policy.Limits) *cgroup {
	hs, err := fs.hierarchies()
	if err != nil {
		return &cgroup{id: id, why: err.Error()}
	}
	var why []string
	if h := findV2(hs); h != nil {
		cg, err := createV2(*h, id, l)
		if err == nil {
			return cg
		}
		why = append(why, "cgroup v2: "+err.Error())
	}
	mem, pids := findV1(hs, "memory"), findV1(hs, "pids")
	if mem != nil && pids != nil {
		cg, err := createV1(*mem, *pids, id, l)
		if err == nil {
			return cg
		}
		why = append(why, "cgroup v1: "+err.Error())
	}
	if len(why) == 0 {
		why = append(why, "no cgroup hierarchy with the memory and pids controllers")
	}
	return &cgroup{id: id, why: strings.Join(why, "; ")}
}

func createV2(h hierarchy, id string, l policy.Limits) (*cgroup, error) {
	base := v2Base(h)
	if !hasWords(filepath.Join(base, "cgroup.controllers"), "memory", "pids") {
		return nil, fmt.Errorf("the memory and pids controllers are not available in %s (on a hybrid host they are bound to cgroup v1)", base)
	}
	if !hasWords(filepath.Join(base, "cgroup.subtree_control"), "memory", "pids") {
		if base != h.mount {
			return nil, fmt.Errorf("memory and pids are not delegated below %s", base)
		}
		if err := writeFile(filepath.Join(base, "cgroup.subtree_control"), "+memory +pids"); err != nil {
			return nil, err
		}
	}
	cg := &cgroup{id: id, mode: "cgroup v2", values: map[string]string{}}
	err := cg.leaf(leafDir(base, id), []limitFile{
		{"memory.max", l.Memory, true}, {"memory.swap.max", 0, false}, {"pids.max", int64(l.Pids), true}})
	if err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

func createV1(mem, pids hierarchy, id string, l policy.Limits) (*cgroup, error) {
	cg := &cgroup{id: id, mode: "cgroup v1", values: map[string]string{}}
	// memsw after the plain limit: the kernel requires memsw >= limit.
	// Equal values mean no swap.
	// kmem.tcp before any task joins: v1 charges a socket's buffers only
	// if its cgroup had a TCP limit when the socket was made.
	err := cg.leaf(leafDir(mem.own, id), []limitFile{
		{"memory.limit_in_bytes", l.Memory, true}, {"memory.memsw.limit_in_bytes", l.Memory, false},
		{"memory.kmem.tcp.limit_in_bytes", tcpShare(l.Memory), false}})
	if err == nil {
		err = cg.leaf(leafDir(pids.own, id), []limitFile{{"pids.max", int64(l.Pids), true}})
	}
	if err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

// tcpShare is a v1 sandbox's TCP buffer limit (memory.kmem.tcp): cgroup
// v1 charges socket buffers to a counter of their own, outside
// memory.limit_in_bytes, and only where this limit was set (by default it
// charges nothing, and a member held 300 MiB of TCP buffers under
// --memory 128MiB: attack repro-4 of 2026-12-02). A quarter of --memory
// keeps a sandbox's total at 1.25 x --memory, so the sandboxes admission
// lets run at once (three quarters of host memory by --memory) stay
// within the host's memory; at the smallest --memory it is 32 MiB, room
// for many connections at full speed (docs/benchmarks.md). Past it the
// kernel shrinks the sandbox's sockets to their minimum buffers, as at
// the host's tcp_mem limit, for that sandbox alone. cgroup v2 needs no
// such file: it charges socket memory to memory.max.
func tcpShare(memory int64) int64 { return memory / 4 }

// limitFile is one limit to write; an optional file may be absent (no
// swap accounting).
type limitFile struct {
	name     string
	value    int64
	required bool
}

// leafPrefix starts the name of every sandbox cgroup.
const leafPrefix = "acbox-"

func leafDir(parent, id string) string { return filepath.Join(parent, leafPrefix+id) }

// leaf makes one cgroup directory, claims it, and writes its limits
// through that descriptor, reading each back on the descriptor it was
// written with (a root launch makes two or three of these files: a stat,
// a second open and a whole-file read each cost more than the write).
func (c *cgroup) leaf(dir string, files []limitFile) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	c.dirs = append(c.dirs, dir)
	fd, err := sys.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	c.claims = append(c.claims, os.NewFile(uintptr(fd), dir))
	if err := sys.Flock(fd, dir, unix.LOCK_SH); err != nil {
		return err
	}
	for _, f := range files {
		got, err := writeLimit(fd, dir, f)
		if errors.Is(err, errAbsent) {
			continue
		}
		if err != nil {
			return err
		}
		c.values[f.name] = got
	}
	return nil
}

// errAbsent: an optional limit file this host does not have.
var errAbsent = errors.New("absent")

// writeLimit writes f beneath the leaf open at dir and returns what the
// file reads back (the kernel may round a limit).
func writeLimit(dir int, dirPath string, f limitFile) (string, error) {
	path := filepath.Join(dirPath, f.name)
	fd, err := sys.Openat(dir, f.name, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) && !f.required {
		return "", errAbsent
	}
	if err != nil {
		return "", err
	}
	defer sys.Close(fd)
	return writeBack(fd, path, strconv.FormatInt(f.value, 10))
}

// cloneInto makes the helper start inside the cgroup (cgroup v2).
func (c *cgroup) cloneInto(attr *syscall.SysProcAttr) {
	if c.mode == "cgroup v2" && len(c.claims) > 0 {
		attr.UseCgroupFD, attr.CgroupFD = true, int(c.claims[0].Fd())
	}
}

// passLeaves hands each v1 leaf to the helper, which enters its cgroup
// through them (enterCgroups) and closes them; it returns their
// descriptor numbers in the helper, counting from next.
func (c *cgroup) passLeaves(extra []*os.File, next int) ([]*os.File, []int) {
	if c == nil || c.mode != "cgroup v1" {
		return extra, nil
	}
	var fds []int
	for _, f := range c.claims {
		fds = append(fds, next+len(fds))
		extra = append(extra, f)
	}
	return extra, fds
}

// place checks, from /proc/<pid>/cgroup, that the helper cloned into its
// cgroup v2 is inside. On cgroup v1 the helper enters and checks itself.
func (c *cgroup) place(pid int) error {
	if c.mode != "cgroup v2" {
		return nil
	}
	b, err := sys.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return fmt.Errorf("%w: checking the helper's cgroup: %w", policy.ErrCannotSandbox, err)
	}
	if !inLeaves(b, c.id, len(c.dirs)) {
		return fmt.Errorf("%w: the helper is not in its cgroup %s:\n%s", policy.ErrCannotSandbox, leafPrefix+c.id, b)
	}
	return nil
}

// inLeaves reports whether a /proc/<pid>/cgroup text puts the process in
// at least n leaves named for the sandbox id.
func inLeaves(procCgroup []byte, id string, n int) bool {
	want := "/" + leafPrefix + id
	for _, line := range strings.Split(string(procCgroup), "\n") {
		if strings.HasSuffix(line, want) {
			n--
		}
	}
	return n <= 0
}

// remove deletes the cgroup once its processes are gone; an emptied cgroup
// can stay busy for a moment while the last tasks are released.
func (c *cgroup) remove() {
	for i := len(c.dirs) - 1; i >= 0; i-- {
		rmdirRetry(c.dirs[i], 2*time.Second)
	}
	c.dirs = nil
	for _, f := range c.claims {
		f.Close()
	}
	c.claims = nil
}

func rmdirRetry(dir string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := sys.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return nil
}

func hasWords(path string, want ...string) bool {
	b, err := sys.ReadFile(path)
	if err != nil {
		return false
	}
	have := strings.Fields(string(b))
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
