//go:build integration

package integration

import (
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestHostProcFilesHidden: the host-wide kernel files of /proc
// (policy.ProcMaskFiles: every physical page's flags, the slab and vmalloc
// allocators, timers, keyrings, kernel symbols) read empty or fail, and the
// hidden directories list nothing, for a root caller (whose member reads
// 0400 root files as host root) and a user alike. Attack 2026-12-01
// (repro-4): a root caller's member read /proc/kpageflags.
func TestHostProcFilesHidden(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		var script strings.Builder
		for _, n := range policy.ProcMaskFiles() {
			script.WriteString("if [ -n \"$(head -c 64 /proc/" + n + " 2>/dev/null | od -An -c | head -1)\" ]; then echo /proc/" + n + "; fi\n")
		}
		for _, n := range policy.ProcMaskDirs() {
			script.WriteString("if [ -n \"$(ls -A /proc/" + n + " 2>/dev/null)\" ]; then echo /proc/" + n + "; fi\n")
		}
		script.WriteString("head -c 1 /proc/meminfo >/dev/null && head -c 1 /proc/stat >/dev/null && echo tools-ok\n")
		r := runBox(t, m, "run", "--", "sh", "-c", script.String())
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		out := strings.Fields(r.stdout)
		if len(out) == 0 || out[len(out)-1] != "tools-ok" {
			t.Fatalf("/proc/meminfo or /proc/stat unreadable, which tools need:\n%v", r)
		}
		if shown := out[:len(out)-1]; len(shown) > 0 {
			t.Errorf("host-wide /proc entries readable inside: %v", shown)
		}
	})
}
