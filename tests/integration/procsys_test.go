//go:build integration

package integration

import (
	"strings"
	"testing"
)

// procSysScript prints the options of the mount /proc/sys is on (the
// mount at /proc/sys, else /proc's, marked "proc:") and the sandbox's
// max_user_namespaces cap.
const procSysScript = `opts=none
while read -r id parent dev root mp o rest; do
  if [ "$mp" = /proc/sys ]; then opts=$o; fi
  if [ "$mp" = /proc ] && [ "$opts" = none ]; then opts=proc:$o; fi
done < /proc/self/mountinfo
echo "mount=$opts"
echo "userns=$(cat /proc/sys/user/max_user_namespaces)"
`

// TestProcSysReadOnlyMount: /proc/sys is a read-only mount in every
// sandbox, so a root caller's member (host root to a sysctl's file mode,
// and most sysctl handlers check nothing more) cannot write a host-wide
// setting even where Landlock is not the layer that refuses; the per-user
// counter caps pid 1 writes there still hold (max_user_namespaces reads 0).
// A reviewer's finding: on the old code /proc/sys was the fresh proc's own
// directory, on its writable mount.
func TestProcSysReadOnlyMount(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		r := runBox(t, m, "run", "--", "sh", "-c", procSysScript)
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		fields := map[string]string{}
		for _, l := range strings.Fields(r.stdout) {
			if k, v, ok := strings.Cut(l, "="); ok {
				fields[k] = v
			}
		}
		if o := fields["mount"]; o != "ro" && !strings.HasPrefix(o, "ro,") {
			t.Errorf("/proc/sys mount options %q, want a read-only mount:\n%v", o, r)
		}
		if fields["userns"] != "0" {
			t.Errorf("max_user_namespaces reads %q inside, want the cap 0:\n%v", fields["userns"], r)
		}
	})
}
