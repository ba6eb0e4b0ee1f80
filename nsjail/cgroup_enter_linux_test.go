package nsjail

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// enterChildEnv makes the test binary the process that enters the leaves:
// it holds the sandbox id, ACBOX_ENTER_FDS the leaves' descriptors.
const enterChildEnv = "ACBOX_ENTER_CHILD"

// TestEnterCgroups: on cgroup v1 (as root) a process given the leaves
// (passLeaves) enters them itself (enterCgroups), every one of its threads,
// those it started before included. The process is this test binary:
// built without cgo it takes the shipped path (each thread writes "0" to
// tasks), with cgo it moves its whole thread group through cgroup.procs.
func TestEnterCgroups(t *testing.T) {
	if id := os.Getenv(enterChildEnv); id != "" {
		enterChild(id)
		return
	}
	id := fmt.Sprint("enter", os.Getpid())
	cg := newCgroup(id, policy.Limits{Memory: 256 << 20, Pids: 64})
	defer cg.remove()
	if cg.mode != "cgroup v1" {
		t.Skipf("no cgroup v1 leaf here (%q): %s", cg.mode, cg.why)
	}
	extra, fds := cg.passLeaves(nil, 3)
	var fdList []string
	for _, fd := range fds {
		fdList = append(fdList, strconv.Itoa(fd))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnterCgroups$", "-test.count=1")
	cmd.Env = append(os.Environ(), enterChildEnv+"="+id, "ACBOX_ENTER_FDS="+strings.Join(fdList, ","))
	cmd.ExtraFiles = extra
	pid := startReporting(t, cmd, "entered")
	tids, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/cgroup", pid))
	if len(tids) < 5 {
		t.Fatalf("the child has %d threads; want at least 5", len(tids))
	}
	for _, p := range tids {
		if b, err := os.ReadFile(p); err != nil || !inLeaves(b, id, len(cg.dirs)) {
			t.Errorf("%s: not in the %d leaves of %s (%v):\n%s", p, len(cg.dirs), id, err, b)
		}
	}
}

// enterChild starts four threads, enters the leaves, says so on stdout and
// waits to be killed.
func enterChild(id string) {
	block := make(chan struct{})
	for range 4 {
		started := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(started)
			<-block
		}()
		<-started
	}
	var fds []int
	for _, s := range strings.Split(os.Getenv("ACBOX_ENTER_FDS"), ",") {
		fd, _ := strconv.Atoi(s)
		fds = append(fds, fd)
	}
	if err := enterCgroups(fds, id); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("entered")
	time.Sleep(time.Minute) // not a channel: all goroutines blocked would end the process
}
