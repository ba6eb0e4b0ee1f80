//go:build linux

package registry

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

func newRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := OpenRegistry(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// selfEntry is an entry owned by this test process (alive).
func selfEntry(t *testing.T, id string) Entry {
	t.Helper()
	e, err := NewEntry(&policy.Plan{Backend: "native", Limits: policy.Limits{Memory: 1 << 30, Pids: 10}}, id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deadEntry is owned by a process that has exited and been reaped.
func deadEntry(t *testing.T, id string) Entry {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start, err := ProcStart(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	e := selfEntry(t, id)
	e.OwnerPid, e.OwnerStart = cmd.Process.Pid, start
	return e
}

func TestOwnerIdentity(t *testing.T) {
	live := selfEntry(t, "a")
	reused := live
	reused.OwnerStart-- // same pid, another start: a reused pid
	other := live
	other.PidNS++
	cases := []struct {
		name string
		e    Entry
		want Owner
	}{
		{"alive", live, OwnerAlive},
		{"exited", deadEntry(t, "b"), OwnerDead},
		{"pid reused", reused, OwnerDead},
		{"no pid", Entry{}, OwnerDead},
		{"other pid namespace", other, OwnerElsewhere},
	}
	for _, c := range cases {
		if got := c.e.Owner(); got != c.want {
			t.Errorf("%s: owner %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseStatStart(t *testing.T) {
	line := "42 (a) b) (c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615"
	if got, err := parseStatStart([]byte(line)); err != nil || got != 987654 {
		t.Fatalf("start %d, %v; want 987654", got, err)
	}
	zombie := "42 (x) Z 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 1"
	if _, err := parseStatStart([]byte(zombie)); err == nil {
		t.Fatal("a zombie was taken for alive")
	}
	if _, err := parseStatStart([]byte("42 (x) S 1")); err == nil {
		t.Fatal("short line accepted")
	}
}

func TestRegistryLifecycle(t *testing.T) {
	r := newRegistry(t)
	if err := r.Register(selfEntry(t, "live1")); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(deadEntry(t, "dead1")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(r.RunDir("dead1"), 0o700)
	os.WriteFile(filepath.Join(r.RunDir("dead1"), "proxy.sock"), nil, 0o600)
	if err := r.Update("live1", func(e *Entry) { e.HelperPid = 7 }); err != nil {
		t.Fatal(err)
	}
	list, err := r.List()
	if err != nil || len(list) != 1 || list[0].ID != "live1" || list[0].HelperPid != 7 {
		t.Fatalf("list %+v, %v: want only live1 with helper 7", list, err)
	}
	dead, err := r.Reap()
	if err != nil || len(dead) != 1 || dead[0].ID != "dead1" {
		t.Fatalf("reaped %+v, %v: want dead1", dead, err)
	}
	if _, err := os.Stat(r.RunDir("dead1")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("runtime dir of the dead sandbox is still there: %v", err)
	}
	if _, err := r.Get("dead1"); !errors.Is(err, ErrNoSandbox) {
		t.Fatalf("dead entry still readable: %v", err)
	}
	if err := r.Remove("live1"); err != nil {
		t.Fatal(err)
	}
	if list, _ := r.List(); len(list) != 0 {
		t.Fatalf("after remove: %+v", list)
	}
}

func TestSweep(t *testing.T) {
	r := newRegistry(t)
	r.Register(selfEntry(t, "live"))
	for _, id := range []string{"live", "orphan"} {
		os.MkdirAll(r.RunDir(id), 0o700)
	}
	tmp := filepath.Join(r.dir(), ".tmp-x-1")
	os.WriteFile(tmp, []byte("{"), 0o600)
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(tmp, old, old)
	got, err := r.Sweep()
	if err != nil || len(got) != 2 {
		t.Fatalf("swept %v, %v: want the orphan dir and the temp file", got, err)
	}
	if _, err := os.Stat(r.RunDir("live")); err != nil {
		t.Fatalf("live runtime dir removed: %v", err)
	}
}

func TestDamagedEntryIsReaped(t *testing.T) {
	r := newRegistry(t)
	os.WriteFile(r.file("broken"), []byte("{not json"), 0o600)
	if list, _ := r.List(); len(list) != 0 {
		t.Fatalf("damaged entry listed as live: %+v", list)
	}
	if dead, err := r.Reap(); err != nil || len(dead) != 1 {
		t.Fatalf("reap %+v %v", dead, err)
	}
}

func TestRegistryRefusals(t *testing.T) {
	r := newRegistry(t)
	for _, id := range []string{"", "../x", "a/b", "..", ".hidden", "a..b"} {
		if _, err := r.Get(id); !errors.Is(err, policy.ErrInvalid) {
			t.Errorf("id %q: %v, want policy.ErrInvalid", id, err)
		}
	}
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	if _, err := OpenRegistry(open); !errors.Is(err, policy.ErrRefused) {
		t.Fatalf("state dir 0755 accepted: %v", err)
	}
	if _, err := OpenRegistry("relative"); err == nil {
		t.Fatal("relative state dir accepted")
	}
}

// TestErrorsKeepTheErrno: a registry error carries both its class and the
// kernel's errno, so callers can tell "cannot sandbox" and, beneath it,
// why (here ELOOP: the lock file was replaced by a symlink, which the
// registry refuses to follow).
func TestErrorsKeepTheErrno(t *testing.T) {
	r := newRegistry(t)
	if err := os.Symlink("/dev/null", r.lockPath()); err != nil {
		t.Fatal(err)
	}
	_, err := r.Reap()
	if !errors.Is(err, policy.ErrCannotSandbox) || !errors.Is(err, unix.ELOOP) {
		t.Fatalf("Reap with a symlinked lock: %v; want ErrCannotSandbox wrapping ELOOP", err)
	}
	if err := os.Remove(r.lockPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(r.dir(), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(r.dir(), 0o700)
	err = r.Register(selfEntry(t, "errno-test"))
	if os.Getuid() != 0 && (!errors.Is(err, policy.ErrCannotSandbox) || !errors.Is(err, unix.EACCES)) {
		t.Fatalf("Register into a read-only directory: %v; want ErrCannotSandbox wrapping EACCES", err)
	}
}

// TestUpdateReplacesInPlace: Update swaps the new entry in for the old
// one and leaves no temp file behind; an entry that is gone meanwhile is
// written anew, as a rename would.
func TestUpdateReplacesInPlace(t *testing.T) {
	r := newRegistry(t)
	if err := r.Register(selfEntry(t, "live1")); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{7, 8} {
		if err := r.Update("live1", func(e *Entry) { e.HelperPid = pid }); err != nil {
			t.Fatal(err)
		}
		if e, err := r.Get("live1"); err != nil || e.HelperPid != pid {
			t.Fatalf("after Update: %+v, %v; want helper %d", e, err, pid)
		}
	}
	names, _ := filepath.Glob(filepath.Join(r.dir(), "*"))
	hidden, _ := filepath.Glob(filepath.Join(r.dir(), ".*"))
	if len(names) != 1 || len(hidden) != 0 {
		t.Errorf("registry holds %q and %q, want only live1's entry", names, hidden)
	}
	if err := replace(filepath.Join(r.dir(), ".tmp-x"), r.file("gone")); err == nil {
		t.Error("replace of a temp file that does not exist succeeded")
	}
	tmp := filepath.Join(r.dir(), ".tmp-gone")
	os.WriteFile(tmp, []byte("{}\n"), 0o600)
	if err := replace(tmp, r.file("gone")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.file("gone")); err != nil {
		t.Errorf("an entry gone meanwhile was not written anew: %v", err)
	}
}
