//go:build integration

package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDelegateBindsReadOnly: as the member (uid 0 in its user namespace),
// chmod, chown, utimensat and setxattr fail with EROFS on every mount point
// of a delegating sandbox that is neither its write grant nor one of its own
// file systems: the device nodes (the host's devtmpfs inodes), the broker
// socket (a file in the caller's state directory), acbox's binary, the read
// grant, the system directories, in both views. A read-write bind of any
// of them fails this test. The member is the acbox binary's own
// fs.metadata-non-grant probe, which walks /proc/self/mountinfo.
func TestDelegateBindsReadOnly(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w, r := f.dir("w"), f.dir("r")
		for _, view := range []string{"grants", "host"} {
			res := runBox(t, m, "run", "--view", view, "--delegate", "-w", w, "-r", r, "--",
				"/.acbox/bin/acbox", "probe", "--only=fs.metadata-non-grant", "--fixture="+w, "--read-grant="+r)
			var line struct{ Result, Detail string }
			if err := json.Unmarshal([]byte(strings.TrimSpace(res.stdout)), &line); err != nil {
				t.Fatalf("view %s: no probe line: %v\n%v", view, err, res)
			}
			if line.Result != "pass" {
				t.Errorf("view %s: %s: %s", view, line.Result, line.Detail)
				continue
			}
			for _, p := range []string{"/dev/null", "/dev/full", "/dev/tty", "/.acbox/broker.sock", "/.acbox/bin/acbox"} {
				if !strings.Contains(line.Detail, p+" ") && !strings.HasSuffix(line.Detail, p) {
					t.Errorf("view %s: %s was not checked: %s", view, p, line.Detail)
				}
			}
		}
	})
}
