package exitscan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExitScan: with --report, what appears in a write grant between the
// walk before and the walk after is reported by class; what was there
// before, and links that stay inside the grants, are not; nothing is
// followed; a new set-id file loses its bits.
func TestExitScan(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	w, r := filepath.Join(root, "w"), filepath.Join(root, "r")
	os.MkdirAll(filepath.Join(w, "sub"), 0o755)
	os.MkdirAll(r, 0o755)
	os.WriteFile(filepath.Join(w, "old-suid"), nil, 0o755)
	syscall.Chmod(filepath.Join(w, "old-suid"), 0o4755)
	os.Symlink("/etc", filepath.Join(w, "old-link"))
	age(t)
	p := &policy.Plan{Grants: []policy.Grant{{Path: w, Write: true}, {Path: r}}}
	s := Begin(p, true)
	made := filepath.Join(w, "sub", "suid")
	os.WriteFile(made, nil, 0o755)
	syscall.Chmod(made, 0o6755)
	syscall.Mkfifo(filepath.Join(w, "fifo"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(w, "passwd"))
	os.Symlink("../r/x", filepath.Join(w, "sub", "to-read-grant"))
	os.Symlink("../../..", filepath.Join(w, "sub", "up"))
	os.Symlink(root, filepath.Join(w, "loop")) // never followed
	got, err := s.Finish(&strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	want := &ExitScan{
		NewSetuid:       []string{made},
		NewDevices:      []string{},
		NewFifos:        []string{filepath.Join(w, "fifo")},
		OutsideSymlinks: []string{filepath.Join(w, "loop") + " -> " + root, filepath.Join(w, "passwd") + " -> /etc/passwd", filepath.Join(w, "sub", "up") + " -> ../../.."},
		SetidCleared:    []string{made},
		FilecapsCleared: []string{},
		Unchecked:       []string{},
		GitRedirects:    []string{},
		Cap:             Cap,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exit scan\n got %+v\nwant %+v", got, want)
	}
	wantMode(t, made, 0o755)
	wantMode(t, filepath.Join(w, "old-suid"), 0o4755) // untouched: the member did not change it
}

// TestExitScanWithoutReport: the one-walk scan (no --report) names what was
// made or made set-id during the run, not what was there before, and the
// findings are printed without --report.
func TestExitScanWithoutReport(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	old := filepath.Join(w, "old-suid")
	os.WriteFile(old, nil, 0o755)
	syscall.Chmod(old, 0o4755)
	age(t)
	p := &policy.Plan{Grants: []policy.Grant{{Path: w, Write: true}}}
	s := Begin(p, false)
	os.MkdirAll(filepath.Join(w, "a", "b"), 0o755)
	made := filepath.Join(w, "a", "b", "id")
	os.WriteFile(made, nil, 0o755)
	syscall.Chmod(made, 0o2755)
	syscall.Mkfifo(filepath.Join(w, "fifo"), 0o644) // fifos need --report
	var b strings.Builder
	got, err := s.Finish(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.NewSetuid, []string{made}) || len(got.NewFifos) != 0 {
		t.Errorf("one-walk scan: %+v, want only %s", got, made)
	}
	if !strings.Contains(b.String(), "set-id file appeared or changed in a write grant during the run: "+made+"; acbox removed its set-id bits") {
		t.Errorf("printed %q", b.String())
	}
	wantMode(t, made, 0o755)
	wantMode(t, old, 0o4755)
}

// TestExitScanRewrittenSetid: a set-id file that was in the grant before
// the launch and is rewritten through a shared mapping (the kernel keeps
// its bits) or given a hard link during the run loses its bits after the
// run, with and without --report, and is named.
func TestExitScanRewrittenSetid(t *testing.T) {
	for _, full := range []bool{false, true} {
		w, _ := filepath.EvalSymlinks(t.TempDir())
		mapped, linked := filepath.Join(w, "mapped"), filepath.Join(w, "linked")
		for _, f := range []string{mapped, linked} {
			os.WriteFile(f, make([]byte, 4096), 0o755)
			syscall.Chmod(f, 0o4755)
		}
		age(t)
		p := &policy.Plan{Grants: []policy.Grant{{Path: w, Write: true}}}
		s := Begin(p, full)
		writeMapped(t, mapped, "#!/bin/sh\necho pwned\n")
		wantMode(t, mapped, 0o4755) // the kernel kept the bit: the attack is real
		link := filepath.Join(w, "sub-link")
		if err := os.Link(linked, link); err != nil {
			t.Fatal(err)
		}
		got, err := s.Finish(&strings.Builder{})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{linked, mapped, link}; !sameSet(got.NewSetuid, want) || !sameSet(got.SetidCleared, want) {
			t.Errorf("full=%v: new %v cleared %v, want %v", full, got.NewSetuid, got.SetidCleared, want)
		}
		for _, f := range []string{mapped, linked, link} {
			wantMode(t, f, 0o755)
		}
	}
}

// TestExitScanTooDeep: a directory nested past maxDepth is named as
// not checked and the scan's error is ErrUnchecked (exit 124), instead of
// a silent skip when descriptors run out.
func TestExitScanTooDeep(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	p := &policy.Plan{Grants: []policy.Grant{{Path: w, Write: true}}}
	s := Begin(p, false)
	fd, _ := unix.Open(w, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	for i := 0; i < maxDepth+2; i++ {
		unix.Mkdirat(fd, "d", 0o755)
		next, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	unix.Close(fd)
	var b strings.Builder
	got, err := s.Finish(&b)
	if !errors.Is(err, policy.ErrUnchecked) || policy.ExitCode(err) != 124 {
		t.Fatalf("err %v, want ErrUnchecked (124)", err)
	}
	if len(got.Unchecked) != 1 || !strings.Contains(got.Unchecked[0], "deeper than 1000 levels") {
		t.Errorf("unchecked %q", got.Unchecked)
	}
	if !strings.Contains(b.String(), "acbox: not checked after the run: "+w+"/d/d/") {
		t.Errorf("printed %q", b.String())
	}
	os.RemoveAll(w)
}

// age lets the kernel's clock pass the scan's one-second slack, so that
// what the test made before begin counts as older than the launch.
func age(t *testing.T) {
	t.Helper()
	time.Sleep(1100 * time.Millisecond)
}

func writeMapped(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	copy(m, content)
	unix.Msync(m, unix.MS_SYNC)
	unix.Munmap(m)
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	if got := os.FileMode(st.Mode & 0o7777); got != want {
		t.Errorf("%s: mode %o, want %o", path, got, want)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}
