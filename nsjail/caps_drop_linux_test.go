package nsjail

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// dropChildEnv makes the test binary the process that drops its
// capabilities on every thread.
const dropChildEnv = "ACBOX_DROP_CHILD"

// TestDropAllThreadsCaps: dropAllThreadsCaps leaves no capability in the
// inheritable, permitted, effective or ambient set of any thread of the
// process, the threads it started before included, ambient ones it was
// started with among them (root's pid 1 holds every capability as an
// ambient one), but for the one it keeps (host mode's CAP_SYS_PTRACE), in
// the permitted and effective sets only. The process is this test binary,
// started with ambient capabilities and four more locked threads.
func TestDropAllThreadsCaps(t *testing.T) {
	if v := os.Getenv(dropChildEnv); v != "" {
		keep, _ := strconv.ParseUint(v, 10, 32)
		dropChild(uint32(keep))
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the child is started with ambient capabilities")
	}
	for _, keep := range []uint32{0, ptraceCap} {
		t.Run(fmt.Sprintf("keep=%#x", keep), func(t *testing.T) { dropAndCheck(t, keep) })
	}
}

// dropAndCheck starts the child that drops all but keep and checks every
// thread's four sets.
func dropAndCheck(t *testing.T, keep uint32) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestDropAllThreadsCaps$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", dropChildEnv, keep))
	cmd.SysProcAttr = &syscall.SysProcAttr{AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_KILL, unix.CAP_SYS_PTRACE}}
	pid := startReporting(t, cmd, "dropped")
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if len(tasks) < 5 {
		t.Fatalf("the child has %d threads; want at least 5", len(tasks))
	}
	want := map[string]string{"CapInh": "0000000000000000", "CapAmb": "0000000000000000",
		"CapPrm": fmt.Sprintf("%016x", keep), "CapEff": fmt.Sprintf("%016x", keep)}
	for _, p := range tasks {
		for k, v := range readCapSets(t, p) {
			if v != want[k] {
				t.Errorf("%s: %s is %s after the drop; want %s", p, k, v, want[k])
			}
		}
	}
}

// dropChild checks it holds the ambient capabilities it was given, starts
// four locked threads, drops every thread's capabilities but keep, says so
// on stdout and waits to be killed.
func dropChild(keep uint32) {
	if threadStatus()["CapAmb"] == "0000000000000000" {
		fmt.Println("error: started without ambient capabilities")
		os.Exit(1)
	}
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
	if err := dropAllThreadsCaps(keep); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("dropped")
	time.Sleep(time.Minute) // not a channel: all goroutines blocked would end the process
}

// readCapSets reads the four sets dropAllThreadsCaps empties from a
// thread's status file.
func readCapSets(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, ":")
		switch k {
		case "CapInh", "CapPrm", "CapEff", "CapAmb":
			out[k] = strings.TrimSpace(v)
		}
	}
	if len(out) != 4 {
		t.Fatalf("%s: %d of the four capability sets", path, len(out))
	}
	return out
}
