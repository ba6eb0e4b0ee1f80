//go:build integration

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The checks after the run (cmd/acbox launch.go afterRun: nested children
// ended, git quarantine, exit scan) hold against a member that tries to
// leave a set-id program behind or to keep acbox from checking.

// mapWrite rewrites each named file's first bytes through a shared
// mapping, which the kernel does not treat as a write that clears set-id
// bits; then it hard-links the last one.
const mapWrite = `
import mmap, os, sys
for p in sys.argv[1:-1]:
    fd = os.open(p, os.O_RDWR); m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
    s = b"#!/bin/sh\necho pwned as $(id -u)\n"; m[:len(s)] = s; m.flush(); m.close(); os.close(fd)
os.link(sys.argv[-1], sys.argv[-1] + "-link")
print("rewritten")
`

// setidFile makes a 4 KiB set-id file owned by uid, mode perm, and lets
// its ctime age past the exit scan's one-second slack.
func setidFile(t *testing.T, p string, uid, gid int, perm uint32) {
	t.Helper()
	if err := os.WriteFile(p, make([]byte, 4096), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(p, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Chmod(p, perm); err != nil { // after chown, which clears the bits
		t.Fatal(err)
	}
}

func modeOf(t *testing.T, p string) uint32 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Mode & 0o7777
}

// TestSetidRewrittenInPlace: set-id files that were in the write grant
// before the run, rewritten through a shared mapping or hard-linked by the
// member, keep no set-id bit after the run, and each is named. As a user,
// a set-id file acbox may not change (root's, writable by all) is named
// and the run exits 124.
func TestSetidRewrittenInPlace(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		script := f.file("map.py", mapWrite)
		a, b := filepath.Join(w, "a"), filepath.Join(w, "b")
		setidFile(t, a, m.uid, m.gid, 0o4755)
		setidFile(t, b, m.uid, m.gid, 0o6755)
		args := []string{a, b}
		var foreign string
		if m.name == "user" {
			foreign = filepath.Join(w, "roots")
			setidFile(t, foreign, 0, 0, 0o4777)
			args = []string{foreign, a, b}
		}
		time.Sleep(1100 * time.Millisecond)
		res := runBox(t, m, append([]string{"run", "-w", w, "-r", f.root, "--", "python3", script}, args...)...)
		if !strings.Contains(res.stdout, "rewritten") {
			t.Fatalf("the member did not run as planned\n%v", res)
		}
		for _, p := range []string{a, b, b + "-link"} {
			if got := modeOf(t, p); got&0o6000 != 0 {
				t.Errorf("%s is still set-id (%o) after the run\n%v", p, got, res)
			}
			if !strings.Contains(res.stderr, p+"; acbox removed its set-id bits") {
				t.Errorf("%s not named as cleared\n%v", p, res)
			}
		}
		want := 0
		if foreign != "" {
			want = 124
			if !strings.Contains(res.stderr, "not checked after the run: "+foreign+": a set-id file") {
				t.Errorf("the set-id file acbox may not change is not named\n%v", res)
			}
		}
		if res.code != want {
			t.Errorf("exit %d, want %d\n%v", res.code, want, res)
		}
	})
}

// TestExitScanNotBlinded: a set-id file rewritten and then hidden below a
// directory the member made unreadable (chmod 000), or below more levels
// than the scan descends, is still found and cleared, or named as not
// checked with exit 124; never skipped in silence.
func TestExitScanNotBlinded(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		script := f.file("map.py", mapWrite)
		hidden, deep := filepath.Join(w, "hidden"), filepath.Join(w, "deep")
		setidFile(t, hidden, m.uid, m.gid, 0o4755)
		setidFile(t, deep, m.uid, m.gid, 0o4755)
		time.Sleep(1100 * time.Millisecond)
		member := `set -e
python3 ` + script + ` hidden deep
mkdir -p box && mv hidden hidden-link box/ && chmod 000 box
python3 -c '
import os
top = os.open(".", os.O_RDONLY)
for i in range(1100):
    os.mkdir("d"); os.chdir("d")
os.rename("deep", "x", src_dir_fd=top)
os.rename("deep-link", "y", src_dir_fd=top)
print("nested")'`
		res := runBox(t, m, "run", "-w", w, "-r", f.root, "--cwd", w, "--", "sh", "-c", member)
		if !strings.Contains(res.stdout, "nested") {
			t.Fatalf("the member did not run as planned\n%v", res)
		}
		if res.code != 124 || !strings.Contains(res.stderr, "deeper than 1000 levels") {
			t.Errorf("want exit 124 naming the directory too deep to check\n%v", res)
		}
		box := filepath.Join(w, "box")
		if got := modeOf(t, filepath.Join(box, "hidden")); got&0o6000 != 0 {
			t.Errorf("the set-id file under the chmod-000 directory kept its bits (%o)\n%v", got, res)
		}
		if !strings.Contains(res.stderr, filepath.Join(box, "hidden")+"; acbox removed its set-id bits") {
			t.Errorf("the file under the chmod-000 directory is not named\n%v", res)
		}
	})
}

// hangClient connects to the broker, sends a length header promising 100
// bytes and nothing more, and passes the connection's own end as its
// standard input, so that the broker, holding that end, never sees EOF.
const hangClient = `
import os, socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(os.environ["ACBOX_SOCKET"])
socket.send_fds(s, [struct.pack(">I", 100)], [s.fileno(), 1, 2])
print("sent", flush=True)
`

// TestBrokerHangDoesNotSkipChecks: a member that leaves a broker request
// hanging (see hangClient) and plants a git directory with an fsmonitor
// in its protected repository cannot keep acbox from ending, nor, with a
// SIGINT to acbox on top, from moving the planted git directory aside.
func TestBrokerHangDoesNotSkipChecks(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		repo := f.dir("repo")
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		if out, err := exec.Command("chown", "-R", strings.Join([]string{itoa(m.uid), itoa(m.gid)}, ":"), repo).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
		client := f.file("hang.py", hangClient)
		member := `mkdir -p sub/.git/objects sub/.git/refs && echo 'ref: refs/heads/main' > sub/.git/HEAD &&
printf '[core]\n\tfsmonitor = "echo PWNED >&2; false"\n' > sub/.git/config && python3 ` + client
		b := startBox(t, m, "run", "--delegate", "-w", repo, "-r", f.root, "--cwd", repo, "--", "sh", "-c", member)
		b.waitLine(t, "sent")
		time.Sleep(300 * time.Millisecond)
		b.cmd.Process.Signal(syscall.SIGINT)
		code := b.wait(t, 20*time.Second)
		if code == 128+int(syscall.SIGINT) {
			t.Errorf("SIGINT ended acbox before its checks (exit %d)", code)
		}
		if _, err := os.Lstat(filepath.Join(repo, "sub", ".git")); err == nil {
			t.Errorf("the planted sub/.git is still there: the git quarantine did not run (exit %d)", code)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestNestedFindingsPrinted: a nested child's set-id findings are printed
// on the requester's standard error when the child ends, without
// --report, before the requester goes on.
func TestNestedFindingsPrinted(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		script := f.file("map.py", mapWrite)
		a := filepath.Join(w, "a")
		setidFile(t, a, m.uid, m.gid, 0o4755)
		time.Sleep(1100 * time.Millisecond)
		member := `acbox run -w ` + w + ` -r ` + f.root + ` -- python3 ` + script + ` ` + a + ` ` + a + `; echo CHILD-DONE >&2`
		res := runBox(t, m, "run", "--delegate", "-w", w, "-r", f.root, "--", "sh", "-c", member)
		named := strings.Index(res.stderr, a+"; acbox removed its set-id bits")
		done := strings.Index(res.stderr, "CHILD-DONE")
		if named < 0 || done < 0 || named > done {
			t.Errorf("the child's finding is not printed before the requester goes on\n%v", res)
		}
		if got := modeOf(t, a); got&0o6000 != 0 {
			t.Errorf("%s kept its set-id bits (%o)", a, got)
		}
	})
}

// TestNULRefused: a NUL byte in a spec string (an environment value, a
// mount or tmpfs target, the command) is refused at decode time with
// status 2 and the JSON path, before anything runs.
func TestNULRefused(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		cases := map[string]string{
			`{"command":["true"],"mounts":[{"source":"/usr/bin","target":"/x\u0000"}]}`: "mounts[0].target",
			`{"command":["true"],"env":{"A":"1\u0000"}}`:                                "env.A",
			`{"command":["true"],"tmpfs":[{"target":"/x\u0000y"}]}`:                     "tmpfs[0].target",
			`{"command":["tr\u0000ue"]}`:                                                "command[0]",
		}
		i := 0
		for spec, path := range cases {
			i++
			p := f.file("spec"+itoa(i)+".json", spec)
			res := runBox(t, m, "run", "--spec", p)
			if res.code != 2 || !strings.Contains(res.stderr, path+": holds a NUL byte") {
				t.Errorf("%s: want exit 2 naming %s\n%v", spec, path, res)
			}
		}
	})
}

// mmapWriterGo is a static program for images without python: it rewrites
// each named file's first bytes through a shared mapping.
const mmapWriterGo = `package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	for _, p := range os.Args[1:] {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		m, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		copy(m, "#!/bin/sh\necho pwned as $(id -u)\n")
		syscall.Munmap(m)
	}
	fmt.Println("rewritten")
}
`

// TestSetidRewrittenDocker: the same attack as TestSetidRewrittenInPlace
// under the docker backend, where a root member is root without a user
// namespace: the set-id-root file it rewrote loses its bits after the run.
// Root only (the test user has no access to the Docker daemon).
func TestSetidRewrittenDocker(t *testing.T) {
	if setupErr != "" {
		t.Skip(setupErr)
	}
	if os.Geteuid() != 0 {
		t.Skip("the docker case runs as root; run the suite as root")
	}
	const image = "acbox-test-busybox:1" // built by tests/docker
	if out, err := exec.Command("docker", "image", "inspect", image).CombinedOutput(); err != nil {
		t.Skipf("no Docker daemon or no %s (run tests/docker first): %v %s", image, err, out)
	}
	m := rootMode()
	f := newFixture(t, m)
	w := f.dir("w")
	src := f.file("mmw/main.go", mmapWriterGo)
	bin := filepath.Join(f.root, "mmw", "mmw")
	build := exec.Command("go", "build", "-o", bin, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the mmap writer: %v\n%s", err, out)
	}
	a := filepath.Join(w, "a")
	setidFile(t, a, 0, 0, 0o4755)
	time.Sleep(1100 * time.Millisecond)
	res := runBox(t, m, "run", "--backend", "docker", "--image", image, "-w", w, "-r", f.root, "--", bin, a)
	if !strings.Contains(res.stdout, "rewritten") {
		t.Fatalf("the member did not run as planned\n%v", res)
	}
	if got := modeOf(t, a); got&0o6000 != 0 || res.code != 0 || !strings.Contains(res.stderr, a+"; acbox removed its set-id bits") {
		t.Errorf("%s: mode %o after the run, want no set-id bit, named, exit 0\n%v", a, got, res)
	}
}
