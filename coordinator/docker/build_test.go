package docker

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err := checkStatic(bb); err == nil || !strings.Contains(err.Error(), "busybox-static") {
		t.Errorf("not ELF: %v", err)
	}
	r, err := buildContext(bb)
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
