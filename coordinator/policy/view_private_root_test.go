package policy

import (
	"slices"
	"testing"
)

// TestRootOnly: the rule a root caller's /etc snapshots hide entries by.
func TestRootOnly(t *testing.T) {
	const reg, dir, link, sock, chr = 0o100000, 0o040000, 0o120000, 0o140000, 0o020000
	cases := []struct {
		name string
		mode uint32
		want bool
	}{
		{"file 0644", reg | 0o644, false},
		{"file 0444", reg | 0o444, false},
		{"file 0600 (docker key.json, opasswd)", reg | 0o600, true},
		{"file 0640 (shadow, ssl-cert keys)", reg | 0o640, true},
		{"file 0440 (sudoers)", reg | 0o440, true},
		{"file 0000", reg, true},
		{"file 0604 (other reads)", reg | 0o604, false},
		{"file 0755", reg | 0o755, false},
		{"file 4755 set-id, readable", reg | 0o4755, false},
		{"dir 0755", dir | 0o755, false},
		{"dir 0700 (wireguard)", dir | 0o700, true},
		{"dir 0710 (ssl/private on Debian)", dir | 0o710, true},
		{"dir 0750 (sudoers.d)", dir | 0o750, true},
		{"dir 0711 (enter, not list)", dir | 0o711, true},
		{"dir 0754 (list, not enter)", dir | 0o754, true},
		{"dir 0705", dir | 0o705, false},
		{"symlink 0777", link | 0o777, false},
		{"symlink 0700 (mode unused)", link | 0o700, false},
		{"socket 0600", sock | 0o600, true},
		{"char device 0666", chr | 0o666, false},
	}
	for _, c := range cases {
		if got := RootOnly(c.mode); got != c.want {
			t.Errorf("%s (%o): RootOnly = %v, want %v", c.name, c.mode, got, c.want)
		}
	}
}

// TestMarkRootOnly: only a root caller's snapshots of /etc and below hide
// root-only entries; names on the way to a grant or mount target stay.
func TestMarkRootOnly(t *testing.T) {
	plan := func() *Plan {
		return &Plan{
			Views:  []ViewDir{{Path: "/"}, {Path: "/etc"}, {Path: "/etc/ssl"}, {Path: "/etcetera"}, {Path: "/root"}},
			Grants: []Grant{{Path: "/etc/ssl/private/site"}, {Path: "/srv"}},
			Mounts: []Mount{{Source: "/x", Target: "/etc/app/key"}, {Source: "/y", Target: "/etc"}},
		}
	}
	cases := []struct {
		uid  int
		want map[string][]string // view -> KeepRoot; absent: HideRoot false
	}{
		{0, map[string][]string{"/etc": {"ssl", "app"}, "/etc/ssl": {"private"}}},
		{1000, map[string][]string{}},
	}
	for _, c := range cases {
		p := plan()
		markRootOnly(p, Host{UID: c.uid})
		for _, v := range p.Views {
			keep, on := c.want[v.Path]
			if v.HideRoot != on || !slices.Equal(v.KeepRoot, keep) {
				t.Errorf("uid %d, view %s: HideRoot %v keep %q; want %v %q", c.uid, v.Path, v.HideRoot, v.KeepRoot, on, keep)
			}
		}
	}
}

// TestRootOnlyMasksResolve: a root caller's plan masks the named
// root-only places and marks its /etc view; a user's has neither.
func TestRootOnlyMasksResolve(t *testing.T) {
	for _, uid := range []int{0, 1000} {
		f := newFixture(t)
		f.host.UID, f.host.GID = uid, uid
		p, err := Resolve(Spec{Command: []string{"x"}}, f.host)
		if err != nil {
			t.Fatal(err)
		}
		named := 0
		for _, m := range p.Masks {
			if m.Why == rootOnlyWhy {
				named++
			}
		}
		etc := false
		for _, v := range p.Views {
			if v.Path == "/etc" {
				etc = v.HideRoot
			}
		}
		if root := uid == 0; (named > 0) != root || etc != root {
			t.Errorf("uid %d: %d root-only masks, /etc view hides root-only entries: %v", uid, named, etc)
		}
	}
}
