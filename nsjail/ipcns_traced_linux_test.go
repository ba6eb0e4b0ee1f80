package nsjail

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTracedIPCNamespace: the traced child runs no code, its namespace
// gets the cap written from pid 1's side, the host's limit is untouched,
// and the child is reaped before the namespace is handed over. Root only:
// setns needs CAP_SYS_ADMIN in the test's own user namespace (pid 1 holds
// it in the sandbox's).
func TestTracedIPCNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: joining the child's IPC namespace needs CAP_SYS_ADMIN in the test's user namespace")
	}
	host := readMsgmni(t)
	proc, err := openNoFollow(unix.AT_FDCWD, "/proc", true, false)
	if err != nil {
		t.Fatal(err)
	}
	kernel, err := openNoFollow(unix.AT_FDCWD, "/proc/sys/kernel", true, false)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(kernel)
	m := startIPCMaker([]ipcLimit{{Name: "msgmni", Cap: "7"}}, ipcProc{proc: proc, kernel: kernel})
	ns, err := m.collect()
	if err != nil {
		t.Fatal(err)
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(-1, &ws, unix.WNOHANG|unix.WALL, nil); !errors.Is(err, unix.ECHILD) {
		t.Errorf("a child is left after the namespace was made: wait4 = %v", err)
	}
	got := make(chan string, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends in that namespace
		if err := ns.join(); err != nil {
			got <- err.Error()
			return
		}
		b, err := os.ReadFile("/proc/sys/kernel/msgmni")
		got <- strings.TrimSpace(string(b)) + errString(err)
	}()
	if g := <-got; g != "7" {
		t.Errorf("msgmni in the made namespace reads %q, want 7", g)
	}
	if h := readMsgmni(t); h != host {
		t.Errorf("the host's msgmni changed: %q, was %q", h, host)
	}
}

func readMsgmni(t *testing.T) string {
	b, err := os.ReadFile("/proc/sys/kernel/msgmni")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return " " + err.Error()
}
