package policy

import (
	"path/filepath"
	"strings"
)

// A root caller's member runs as the host's root user, without any
// capability, and root owns /etc: every file there that root may read by
// its owner or group bits is readable inside, private keys included
// (/etc/docker/key.json, /etc/ssl/private, /etc/security/opasswd). A user
// needs none of this: what root keeps to itself is unreadable to the user
// by permissions (HeldPermissions).
//
// So for a root caller, two rules hide root-only configuration. The
// snapshots of /etc and of every directory under it that the view
// snapshots anyway leave out each entry "other" may not read (a file
// without o+r, a directory without o+r or o+x; a symlink is judged where
// it leads, if that is a snapshot too): HideRoot on the ViewDir, judged
// by the backend on the mode it reads when it lists the directory (one
// fstatat per entry it makes already), so new names are caught without a
// list and it costs the launch nothing more. And rootOnlyMasks name the
// well-known places deeper than those snapshots reach, as masks (each
// makes its directory a snapshot, to which the first rule then applies).

// rootOnlyRoot is the directory whose snapshots hide root-only entries.
const rootOnlyRoot = "/etc"

// rootOnlyMasks are hidden for a root caller only, whatever their mode.
var rootOnlyMasks = []string{
	"/etc/ssl/private", "/etc/pki/tls/private", "/etc/docker/key.json", "/etc/security/opasswd",
	"/etc/wireguard", "/etc/NetworkManager/system-connections", "/etc/ipsec.secrets", "/etc/ipsec.d/private",
	"/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/letsencrypt/archive", "/etc/letsencrypt/keys",
	"/etc/krb5.keytab", "/etc/mysql/debian.cnf", "/etc/libvirt/secrets", "/etc/sssd",
}

const rootOnlyWhy = "root-only system secrets (root callers)"

// rootOnlyWants are the root-only masks of a root caller.
func rootOnlyWants(h Host) []maskWant {
	if h.UID != 0 {
		return nil
	}
	out := make([]maskWant, 0, len(rootOnlyMasks))
	for _, p := range rootOnlyMasks {
		out = append(out, maskWant{path: p, why: rootOnlyWhy})
	}
	return out
}

// markRootOnly sets HideRoot on a root caller's snapshots of /etc and
// below, and keeps, whatever their mode, the names on the way to a grant
// or a runtime mount's target: what the caller asked for by name shows.
func markRootOnly(p *Plan, h Host) {
	if h.UID != 0 {
		return
	}
	for i := range p.Views {
		v := &p.Views[i]
		if !within(v.Path, rootOnlyRoot) {
			continue
		}
		v.HideRoot = true
		for _, g := range p.Grants {
			v.KeepRoot = appendName(v.KeepRoot, v.Path, g.Path)
		}
		for _, m := range p.Mounts {
			v.KeepRoot = appendName(v.KeepRoot, v.Path, m.Target)
		}
	}
}

// appendName adds the entry of dir on the way to path, if path lies below
// dir.
func appendName(names []string, dir, path string) []string {
	if path == dir || !within(path, dir) {
		return names
	}
	rest := strings.TrimPrefix(path, strings.TrimSuffix(dir, "/")+"/")
	return appendNew(names, strings.SplitN(rest, "/", 2)[0])
}

// RootOnly reports whether a snapshot with HideRoot leaves out an entry of
// this mode (the permission and type bits of stat's st_mode): a symlink
// never, a directory that "other" cannot both list and enter, anything
// else that "other" cannot read.
func RootOnly(mode uint32) bool {
	const typ, dir, link = 0o170000, 0o040000, 0o120000
	switch mode & typ {
	case link:
		return false
	case dir:
		return mode&0o005 != 0o005
	}
	return mode&0o004 == 0
}

// rootOnlyRule describes both rules for the policy fingerprint.
func rootOnlyRule() []string {
	out := []string{"root callers: " + filepath.Join(rootOnlyRoot, "**") + " entries not readable by other (snapshots of /etc and below; symlinks kept; grant and mount targets kept)"}
	for _, m := range rootOnlyMasks {
		out = append(out, m+" (root callers)")
	}
	return out
}
