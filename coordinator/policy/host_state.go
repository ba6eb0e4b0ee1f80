package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Where acbox keeps its state when XDG_RUNTIME_DIR is not set:
// ~/.local/state/acbox when the home can hold it, else a private per-user
// directory under /tmp. CI containers often run a uid without a usable
// home (HOME unset or "/", a passwd home of /nonexistent, a read-only
// home); acbox must still run there. /tmp/acbox-UID is as safe as the
// runtime directory: the registry creates it 0700 and refuses one that
// is a symlink, not the user's own, or open to others (another user may
// create the name first in the shared /tmp; then acbox refuses and names
// XDG_RUNTIME_DIR as the way out, rather than use their directory).

// tmpStateDir is the fallback state directory of uid when its home is
// unusable. It is masked in every sandbox, used or not (usualPlaces). It
// is /tmp whatever TMPDIR says: masking knows it only by this one name,
// and without a usable home the places file that would record another
// name lives in it, so a launch with TMPDIR=/proj/t kept its registry and
// broker sockets where a later launch without TMPDIR could grant them.
func tmpStateDir(uid int) string { return filepath.Join("/tmp", "acbox-"+strconv.Itoa(uid)) }

// stateDir is where this launch keeps its state: $XDG_RUNTIME_DIR/acbox,
// else ~/.local/state/acbox if the home can hold it, else /tmp/acbox-UID.
func stateDir(home string, uid int) string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "acbox")
	}
	return homeStateDir(home, uid)
}

// homeStateDir is the state directory that does not depend on
// XDG_RUNTIME_DIR; it also holds the places file (host_places.go).
func homeStateDir(home string, uid int) string {
	if d := fallbackStateDir(home); canHold(d) {
		return d
	}
	return tmpStateDir(uid)
}

// canHold tells whether dir exists as a directory, or could be created:
// its nearest existing ancestor is a directory this process may write.
// It creates nothing (acbox plan and status must not write).
func canHold(dir string) bool {
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			return fi.IsDir() && (p == dir || writable(p))
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return false
		}
	}
}

// GitLedgerDir is where the git checks after the run keep the ledger of
// what they moved aside (coordinator/gitguard/ledger.go): in the state
// directory that does not depend on XDG_RUNTIME_DIR, so that every launch
// of the user shares it, and that every sandbox masks.
// A plan without an absolute home, or for another user than this
// process (never one Resolve made here), gets "": no ledger, rather than
// a path relative to the working directory or a directory made in another
// user's name.
func GitLedgerDir(p *Plan) string {
	if !filepath.IsAbs(p.Home) || p.UID != os.Geteuid() {
		return ""
	}
	return filepath.Join(homeStateDir(p.Home, p.UID), "git-quarantine")
}
