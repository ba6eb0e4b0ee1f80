//go:build linux

package landlock

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

	"golang.org/x/sys/unix"
)

// nnpThreads lists the threads of this process that have no_new_privs set.
func nnpThreads(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err == nil && strings.Contains(string(b), "NoNewPrivs:\t1") {
			ids = append(ids, task.Name())
		}
	}
	return ids
}

// TestOnlyCallingThread restricts one thread and shows that the rest of the
// process, including threads started after the restriction and goroutines
// the restricted goroutine starts, keeps writing where the restricted thread
// cannot; and that the restricted thread goes away with its goroutine.
func TestOnlyCallingThread(t *testing.T) {
	requireABI(t, 6)
	inChild(t, func(t *testing.T) {
		if len(nnpThreads(t)) != 0 {
			t.Skip("no_new_privs is already set on this process; cannot tell threads apart")
		}
		out := t.TempDir()
		write := func(name string) error { return os.WriteFile(filepath.Join(out, name), nil, 0o644) }
		ready, release, done := make(chan error), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
			if _, err := RestrictThread(Rules{}, false); err != nil {
				ready <- err
				return
			}
			errs := make(chan error)
			for i := range 4 {
				go func() {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					errs <- write(fmt.Sprintf("spawned-%d", i))
				}()
			}
			for range 4 {
				check(t, "write from a goroutine the restricted one started", <-errs, 0)
			}
			check(t, "write from the restricted thread", write("restricted"), unix.EACCES)
			ready <- nil
			<-release
		}()
		if err := <-ready; err != nil {
			t.Fatalf("RestrictThread: %v", err)
		}
		check(t, "write from another thread", write("main"), 0)
		check(t, "child of another thread writes", exec.Command("/bin/sh", "-c", "echo x > "+out+"/main-child").Run(), 0)
		if ids := nnpThreads(t); len(ids) != 1 {
			t.Errorf("threads %v have no_new_privs, want exactly the restricted one", ids)
		}
		close(release)
		<-done
		// A locked goroutine that ends takes its thread with it, except the
		// process's main thread, which the Go runtime parks for good instead
		// (runtime.mexit throws "locked m0 woke up" if it ever wakes). Either
		// way the thread never runs another goroutine.
		mainTID := strconv.Itoa(os.Getpid())
		ids := nnpThreads(t)
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); ids = nnpThreads(t) {
			if len(ids) == 0 || len(ids) == 1 && ids[0] == mainTID {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		switch {
		case len(ids) == 0:
			t.Log("the restricted thread exited")
		case len(ids) == 1 && ids[0] == mainTID:
			t.Log("the restricted thread was the main thread; the runtime parked it for good")
		default:
			t.Errorf("the restricted thread outlived its goroutine: threads %v have no_new_privs (pid %s)", ids, mainTID)
		}
		errs := make(chan error)
		for i := range 32 {
			go func() { errs <- write(fmt.Sprintf("after-%d", i)) }()
		}
		for range 32 {
			check(t, "write from a new goroutine after the restricted one ended", <-errs, 0)
		}
		check(t, "write after the restricted goroutine ended", write("after"), 0)
	})
}
