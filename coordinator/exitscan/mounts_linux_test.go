package exitscan

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExitScanReadWriteMounts: a read-write runtime mount (--mount
// SRC:DST:rw) outlives the run as a write grant does, so the scan after
// the run walks it too: a set-id file there rewritten through a shared
// mapping, and a hard link made to it, lose their bits, and so does a
// set-id file mounted on its own; a read-only mount is not touched.
func TestExitScanReadWriteMounts(t *testing.T) {
	for _, full := range []bool{false, true} {
		root, _ := filepath.EvalSymlinks(t.TempDir())
		dir, ro := filepath.Join(root, "dir"), filepath.Join(root, "ro")
		os.MkdirAll(dir, 0o755)
		os.MkdirAll(ro, 0o755)
		mapped, single, roFile := filepath.Join(dir, "suid"), filepath.Join(root, "single"), filepath.Join(ro, "suid")
		for _, f := range []string{mapped, single, roFile} {
			os.WriteFile(f, make([]byte, 4096), 0o755)
			syscall.Chmod(f, 0o4755)
		}
		age(t)
		p := &policy.Plan{Mounts: []policy.Mount{{Source: dir, Target: "/tmp/rm", Kind: "dir"},
			{Source: single, Target: "/tmp/single", Kind: "file"}, {Source: ro, Target: "/tmp/ro", Kind: "dir", Readonly: true}}}
		s := Begin(p, full)
		writeMapped(t, mapped, "#!/bin/sh\necho pwned\n")
		writeMapped(t, single, "#!/bin/sh\necho pwned\n")
		writeMapped(t, roFile, "#!/bin/sh\necho pwned\n") // the member cannot, being read-only: nothing to clear
		link := filepath.Join(dir, "suid2")
		if err := os.Link(mapped, link); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		got, err := s.Finish(&b)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{mapped, link, single}; !sameSet(got.SetidCleared, want) {
			t.Errorf("full=%v: cleared %v, want %v; printed %q", full, got.SetidCleared, want, b.String())
		}
		for _, f := range []string{mapped, link, single} {
			wantMode(t, f, 0o755)
		}
		wantMode(t, roFile, 0o4755)
	}
}
