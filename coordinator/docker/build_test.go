package docker

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestBuildCommand: the refusal for a missing default image names
// `acbox image build`; another image gets a pull hint.
func TestBuildCommand(t *testing.T) {
	if c := BuildCommand(DefaultImage); !strings.HasPrefix(c, "acbox image build") || !strings.Contains(c, "busybox-static") {
		t.Errorf("default image: %q", c)
	}
	if c := BuildCommand("x:1"); !strings.HasPrefix(c, "docker pull x:1") {
		t.Errorf("other image: %q", c)
	}
}

// TestBuildContext: the tar holds the Dockerfile and busybox (0755), and
// checkStatic refuses what is not a static ELF binary.
func TestBuildContext(t *testing.T) {
	bb := filepath.Join(t.TempDir(), "busybox")
	os.WriteFile(bb, []byte("not elf"), 0o755)
	if _, err := readBusybox(bb); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "busybox-static") {
		t.Errorf("not ELF: %v", err)
	}
	r, err := buildContext([]byte("not elf"))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(r)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		names = append(names, h.Name)
		if h.Name == "busybox" && (h.Mode != 0o755 || string(b) != "not elf") {
			t.Errorf("busybox entry: mode %o, %q", h.Mode, b)
		}
		if h.Name == "Dockerfile" && !strings.HasPrefix(string(b), "FROM scratch\n") {
			t.Errorf("Dockerfile: %q", b)
		}
	}
	if strings.Join(names, " ") != "Dockerfile busybox" {
		t.Errorf("entries %v", names)
	}
}

// TestReadBusyboxRefuses: what cannot be a busybox is refused at once as
// bad input (exit 2): a FIFO (reading it used to hang, deaf to SIGTERM),
// a directory, a missing file, a dynamically linked binary.
func TestReadBusyboxRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := readBusybox(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, policy.ErrInvalid) {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO as busybox hangs")
	}
	for _, p := range []string{dir, filepath.Join(dir, "missing"), "/bin/sh"} {
		if _, err := readBusybox(p); !errors.Is(err, policy.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", p, err)
		}
	}
}

func TestCheckTag(t *testing.T) {
	for tag, ok := range map[string]bool{"acbox-busybox:1": true, "reg.example/x/y:v1.2-rc": true, "x": true,
		"UPPER:1": false, "a:": false, ":1": false, "a\nb:1": false, "a:b:c": false, "/x": false, "": false} {
		if err := checkTag(tag); (err == nil) != ok || (err != nil && !errors.Is(err, policy.ErrInvalid)) {
			t.Errorf("checkTag(%q) = %v, want ok=%v", tag, err, ok)
		}
	}
}
