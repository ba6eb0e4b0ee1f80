package nsjail

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// mountinfo lines of the hosts the cgroup code meets.
const (
	miHybrid = `25 20 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
30 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
31 25 0:28 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
32 25 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
33 25 0:30 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
`
	selfHybrid = `9:name=systemd:/
4:cpu,cpuacct:/
3:pids:/
2:memory:/ci/job1
0::/
`
	miV2        = "30 25 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	selfV2      = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n"
	miContainer = "30 25 0:27 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n" +
		"31 25 0:28 /other /mnt/other rw - cgroup2 cgroup2 rw\n"
	selfContainer = "0::/docker/abc/sub\n"
)

func TestParseHierarchies(t *testing.T) {
	cases := []struct {
		name, mi, self string
		want           []string // "v1 memory -> own" or "v2 -> own"
	}{
		{"hybrid", miHybrid, selfHybrid, []string{
			"v2 -> /sys/fs/cgroup/unified",
			"v1 memory -> /sys/fs/cgroup/memory/ci/job1",
			"v1 pids -> /sys/fs/cgroup/pids",
			"v1 cpu,cpuacct -> /sys/fs/cgroup/cpu,cpuacct"}},
		{"unified", miV2, selfV2, []string{"v2 -> /sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope"}},
		{"container mount root", miContainer, selfContainer, []string{"v2 -> /sys/fs/cgroup/sub"}},
		{"no cgroups", "1 0 0:1 / / rw - ext4 /dev/sda rw\n", selfV2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, h := range parseHierarchies([]byte(c.mi), []byte(c.self)) {
				if h.v2 {
					got = append(got, "v2 -> "+h.own)
				} else {
					got = append(got, fmt.Sprintf("v1 %s -> %s", strings.Join(h.ctrls, ","), h.own))
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestV2Base(t *testing.T) {
	if b := v2Base(hierarchy{mount: "/sys/fs/cgroup", own: "/sys/fs/cgroup"}); b != "/sys/fs/cgroup" {
		t.Errorf("root: %s", b)
	}
	if b := v2Base(hierarchy{mount: "/sys/fs/cgroup", own: "/sys/fs/cgroup/a/b.scope"}); b != "/sys/fs/cgroup/a" {
		t.Errorf("nested: %s", b)
	}
}

// TestNoCgroupExplains: with no cgroup hierarchy the result says why, and
// every operation on it is a no-op.
func TestNoCgroupExplains(t *testing.T) {
	dir := t.TempDir()
	mi, self := filepath.Join(dir, "mi"), filepath.Join(dir, "self")
	os.WriteFile(mi, []byte("1 0 0:1 / / rw - ext4 /dev/sda rw\n"), 0o644)
	os.WriteFile(self, []byte(selfV2), 0o644)
	cg := cgroupFS{mountinfo: mi, self: self}.create("x", policy.Limits{Memory: 1 << 30, Pids: 10})
	if cg.mode != "" || !strings.Contains(cg.why, "no cgroup hierarchy") {
		t.Fatalf("mode %q why %q", cg.mode, cg.why)
	}
	if err := cg.place(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	rep := &policy.Report{}
	cg.report(rep)
	if !strings.HasPrefix(rep.Limits["cgroup"], "none: ") {
		t.Fatalf("report: %+v", rep.Limits)
	}
	cg.remove()
}

// TestHostCgroup creates a real sandbox cgroup on this host (root, or a
// delegated v2 subtree), checks the limits and removes it; on cgroup v2 a
// process is cloned into it and place checks it is there. On v1 place is
// a no-op (pid 1 enters itself: TestEnterCgroups).
func TestHostCgroup(t *testing.T) {
	id := fmt.Sprint("test", os.Getpid())
	cg := newCgroup(id, policy.Limits{Memory: 64 << 20, Pids: 17})
	if cg.mode == "" {
		t.Skipf("no writable cgroup here: %s", cg.why)
	}
	defer cg.remove()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	cg.cloneInto(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cg.place(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if cg.values["pids.max"] != "17" {
		t.Errorf("pids.max read back as %q", cg.values["pids.max"])
	}
	rep := &policy.Report{Controls: []policy.Control{{Name: "pids_limit"}}}
	cg.report(rep)
	if len(rep.Controls) != 2 || !rep.Controls[0].Enforced || !strings.HasPrefix(rep.Limits["mechanism"], cg.mode) {
		t.Errorf("report %+v %+v", rep.Controls, rep.Limits)
	}
	cmd.Process.Kill()
	cmd.Wait()
	dirs := cg.dirs
	cg.remove()
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", d, err)
		}
	}
}

// TestSweepSparesClaimedCgroups: a sandbox cgroup a launch has made and
// not yet removed (maybe not populated yet, maybe from another state
// directory, so no registry knows it) is not swept; once released, it is.
func TestSweepSparesClaimedCgroups(t *testing.T) {
	id := fmt.Sprint("sweep", os.Getpid())
	cg := newCgroup(id, policy.Limits{Memory: 64 << 20, Pids: 17})
	if cg.mode == "" {
		t.Skipf("no writable cgroup here: %s", cg.why)
	}
	defer cg.remove()
	dead := func(string) bool { return false }
	for _, d := range append(SweepCgroups(dead), RemoveCgroups(id)...) {
		if strings.Contains(d, leafPrefix+id) {
			t.Fatalf("a claimed cgroup was swept: %s", d)
		}
	}
	for _, f := range cg.claims {
		f.Close()
	}
	cg.claims = nil
	dirs := cg.dirs
	removed := SweepCgroups(dead)
	for _, d := range dirs {
		if !slices.Contains(removed, d) {
			t.Errorf("released cgroup %s not swept (removed %v)", d, removed)
		}
	}
}
