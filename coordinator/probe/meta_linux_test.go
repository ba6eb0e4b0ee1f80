package probe

import "testing"

func TestParseMountLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want mountPoint
		ok   bool
	}{
		{"36 35 0:6 /null /dev/null ro,nosuid,noexec,relatime - devtmpfs devtmpfs rw,size=1k", mountPoint{"/dev/null", "/null", "devtmpfs", "0:6", false}, true},
		{"40 35 0:40 / /tmp rw,nosuid,nodev shared:1 - tmpfs tmpfs rw,size=4k", mountPoint{"/tmp", "/", "tmpfs", "0:40", true}, true},
		{`41 35 254:0 /a\040b /x\040y rw - ext4 /dev/vda rw`, mountPoint{"/x y", "/a b", "ext4", "254:0", true}, true},
		{"41 35 254:0 / /x rw", mountPoint{}, false},
		{"", mountPoint{}, false},
	} {
		got, ok := parseMountLine(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("%q: got %+v %v, want %+v %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseMountLine(f *testing.F) {
	f.Add("36 35 0:6 /null /dev/null ro,nosuid - devtmpfs devtmpfs rw")
	f.Add(" - ")
	f.Fuzz(func(t *testing.T, line string) {
		if m, ok := parseMountLine(line); ok && m.fstype == "" {
			t.Errorf("%q: parsed without a file system type", line)
		}
	})
}

// TestOwnFS: which mount points the probe leaves out as the member's or
// the sandbox's own.
func TestOwnFS(t *testing.T) {
	const w = "/work/w"
	for _, c := range []struct {
		m    mountPoint
		want bool
	}{
		{mountPoint{path: "/work/w", root: "/w", fstype: "ext4", rw: true}, true},
		{mountPoint{path: "/work/w/.git", root: "/w/.git", fstype: "ext4", rw: true}, true},
		{mountPoint{path: "/work/wx", root: "/wx", fstype: "ext4", rw: true}, false},
		{mountPoint{path: "/proc", root: "/", fstype: "proc", rw: true}, true},
		{mountPoint{path: "/dev/pts", root: "/", fstype: "devpts", rw: true}, true},
		{mountPoint{path: "/tmp", root: "/", fstype: "tmpfs", rw: true}, true},
		{mountPoint{path: "/dev", root: "/", fstype: "tmpfs", rw: false}, false},
		{mountPoint{path: "/dev/null", root: "/null", fstype: "devtmpfs", rw: true}, false},
		{mountPoint{path: "/.acbox/broker.sock", root: "/run/1/broker.sock", fstype: "tmpfs", rw: true}, false},
		{mountPoint{path: "/etc", root: "/etc", fstype: "ext4", rw: false}, false},
	} {
		if got := ownFS(c.m, w); got != c.want {
			t.Errorf("%+v: got %v, want %v", c.m, got, c.want)
		}
	}
}

func TestTopmost(t *testing.T) {
	in := []mountPoint{{path: "/etc/resolv.conf", fstype: "ext4"}, {path: "/dev", fstype: "tmpfs"}, {path: "/etc/resolv.conf", fstype: "tmpfs", root: "/null"}}
	got := topmost(in)
	if len(got) != 2 || got[0].path != "/dev" || got[1].root != "/null" {
		t.Errorf("got %+v", got)
	}
}
