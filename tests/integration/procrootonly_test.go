//go:build integration

package integration

import (
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// hostRootOnlyProcFiles lists the host's top-level /proc regular files that
// others may not read and policy.ProcMaskFiles does not name: what only a
// mode-based rule hides (on the test kernel program_cpu, and kmsg).
func hostRootOnlyProcFiles(t *testing.T) []string {
	des, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		var st unix.Stat_t
		if !d.Type().IsRegular() || slices.Contains(policy.ProcMaskFiles(), d.Name()) || unix.Lstat("/proc/"+d.Name(), &st) != nil {
			continue
		}
		if st.Mode&0o004 == 0 {
			out = append(out, d.Name())
		}
	}
	return out
}

// TestRootOnlyProcFilesHidden: a top-level /proc file only root may read
// reads nothing in a sandbox even when no list names it, for a root caller
// (whose member is that root) and a user alike. Attack 2026-12-02
// (repro-3): a root caller's member read /proc/program_cpu, a custom
// kernel's 0400 per-program CPU accounting of the whole host.
func TestRootOnlyProcFilesHidden(t *testing.T) {
	files := hostRootOnlyProcFiles(t)
	if len(files) == 0 {
		t.Skip("this kernel's /proc has no top-level file others may not read that policy.ProcMaskFiles does not name")
	}
	var script strings.Builder
	for _, n := range files {
		// nonblock: kmsg, were it readable, would wait for a message.
		script.WriteString("if [ -n \"$(dd if=/proc/" + n + " bs=64 count=1 iflag=nonblock status=none 2>/dev/null | od -An -c | head -1)\" ]; then echo /proc/" + n + "; fi\n")
	}
	script.WriteString("echo done\n")
	forEachMode(t, func(t *testing.T, m mode) {
		r := runBox(t, m, "run", "--", "sh", "-c", script.String())
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		out := strings.Fields(r.stdout)
		if len(out) == 0 || out[len(out)-1] != "done" {
			t.Fatalf("the script did not finish:\n%v", r)
		}
		if shown := out[:len(out)-1]; len(shown) > 0 {
			t.Errorf("top-level /proc files only root may read are readable inside (of %v): %v", files, shown)
		}
	})
}
