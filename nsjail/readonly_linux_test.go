package nsjail

import (
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestWantReadOnly: which binds the finished root must show read-only,
// and acbox's own binds (device nodes, the delegation directory) refused
// outright when their record is read-write.
func TestWantReadOnly(t *testing.T) {
	ro, rw := attrNames(roAttrs), attrNames(rwAttrs)
	for _, c := range []struct {
		name string
		rec  policy.MountRecord
		want bool
		err  bool
	}{
		{"device node", policy.MountRecord{Target: "/dev/null", Kind: "dev", Source: "/dev/null", Flags: attrNames(devAttrs)}, true, false},
		{"device node read-write", policy.MountRecord{Target: "/dev/null", Kind: "dev", Source: "/dev/null", Flags: "NOSUID|NOEXEC"}, false, true},
		{"the /dev tmpfs", policy.MountRecord{Target: "/dev", Kind: "dev", Flags: "RDONLY|NOSUID|NOEXEC"}, true, false},
		{"broker socket", policy.MountRecord{Target: policy.DelegateSocket, Kind: "mount", Source: "/s/broker.sock", Flags: ro}, true, false},
		{"broker socket read-write", policy.MountRecord{Target: policy.DelegateSocket, Kind: "mount", Source: "/s/broker.sock", Flags: rw}, false, true},
		{"acbox binary read-write", policy.MountRecord{Target: policy.DelegateBin, Kind: "mount", Source: "/bin/acbox", Flags: rw}, false, true},
		{"probe runner", policy.MountRecord{Target: policy.DelegateDir + "/acbox", Kind: "mount", Source: "/bin/acbox", Flags: ro}, true, false},
		{"beside the delegation directory", policy.MountRecord{Target: policy.DelegateDir + "-probe/acbox", Kind: "mount", Source: "/bin/acbox", Flags: rw}, false, false},
		{"rw runtime mount", policy.MountRecord{Target: "/mnt/x", Kind: "mount", Source: "/x", Flags: rw}, false, false},
		{"persisted home", policy.MountRecord{Target: "/home/u", Kind: "mount", Source: "/s/homes/h", Flags: rw}, false, false},
		{"read grant", policy.MountRecord{Target: "/r", Kind: "grant", Source: "/r", Flags: ro}, true, false},
		{"write grant", policy.MountRecord{Target: "/w", Kind: "grant", Source: "/w", Flags: rw}, false, false},
		{"system", policy.MountRecord{Target: "/usr", Kind: "system", Source: "/usr", Flags: ro}, true, false},
		{"pin", policy.MountRecord{Target: "/w/.git", Kind: "pin", Source: "/w/.git", Flags: rw}, false, false},
		{"tmpfs", policy.MountRecord{Target: "/tmp", Kind: "tmpfs", Flags: "NOSUID|NODEV,size=1"}, false, false},
	} {
		got, err := wantReadOnly(c.rec)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: got %v, %v; want %v, error %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestFlagsReadOnly(t *testing.T) {
	for flags, want := range map[string]bool{
		"RDONLY|NOSUID":                 true,
		"NOSUID|NODEV":                  false,
		"NOSUID|NODEV,size=64k,RDONLY":  false,
		"RDONLY|NOSUID|NODEV,entries=3": true,
		"":                              false,
	} {
		if got := flagsReadOnly(flags); got != want {
			t.Errorf("%q: got %v", flags, got)
		}
	}
}

func TestCovered(t *testing.T) {
	recs := []policy.MountRecord{{Target: "/a", Kind: "tmpfs"}, {Target: "/a", Kind: "grant"}, {Target: "/b", Kind: "grant"}}
	if !covered(recs, 0) || covered(recs, 1) || covered(recs, 2) {
		t.Error("only the first /a is covered")
	}
}
