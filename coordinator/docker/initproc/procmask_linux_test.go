package initproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckProcRootOnly: the init refuses a /proc whose top level holds an
// unmasked entry only root may read that no list names, whatever its name,
// and accepts one where such entries are named (masked by the daemon) or
// readable by others.
func TestCheckProcRootOnly(t *testing.T) {
	proc := t.TempDir()
	for name, mode := range map[string]os.FileMode{"meminfo": 0o444, "kpageflags": 0o400, "1": 0o400} {
		if err := os.WriteFile(filepath.Join(proc, name), nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("1", filepath.Join(proc, "self")); err != nil {
		t.Fatal(err)
	}
	if err := checkProcRootOnly(proc); err != nil {
		t.Fatalf("checkProcRootOnly = %v, want nil", err)
	}
	if err := os.WriteFile(filepath.Join(proc, "program_cpu"), nil, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := checkProcRootOnly(proc); err == nil || !strings.Contains(err.Error(), "/proc/program_cpu (mode 400) is readable only by root") {
		t.Fatalf("checkProcRootOnly with an unmasked 0400 file = %v, want a refusal naming it", err)
	}
}
