package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The fallback state directory is /tmp/acbox-UID whatever TMPDIR says.
// It is masked and refused in every launch only under that one name
// (usualPlaces), and without a usable home the places file that would
// record another one lives in that same directory: with TMPDIR=/proj/t
// one launch kept its registry and broker sockets in /proj/t/acbox-UID,
// and a later launch without TMPDIR granting /proj could read and reach them.
func TestTmpStateDirIgnoresTMPDIR(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	home := filepath.Join(t.TempDir(), "home-is-a-file") // a home that cannot hold state, even as root
	if err := os.WriteFile(home, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tmp := range []string{t.TempDir(), "relative/dir", ""} {
		t.Setenv("TMPDIR", tmp)
		h := Host{UID: 4242, Home: home}
		if got := stateDir(h.Home, h.UID); got != "/tmp/acbox-4242" {
			t.Errorf("TMPDIR=%q: state directory %q, want /tmp/acbox-4242", tmp, got)
		}
		if !slices.Contains(usualPlaces(h), filepath.Join("/tmp", "acbox-4242")) {
			t.Errorf("TMPDIR=%q: usual places %v leave out /tmp/acbox-4242", tmp, usualPlaces(h))
		}
	}
}

// TestGitLedgerDir: the ledger is at an absolute path in this user's
// state, or nowhere: a plan without a home once put it in a test's working
// directory.
func TestGitLedgerDir(t *testing.T) {
	me := os.Geteuid()
	for _, c := range []struct {
		home string
		uid  int
		ok   bool
	}{{"", me, false}, {"rel", me, false}, {"/nonexistent-home", me + 1, false}, {t.TempDir(), me, true}} {
		d := GitLedgerDir(&Plan{Home: c.home, UID: c.uid})
		if (d != "") != c.ok || (d != "" && !filepath.IsAbs(d)) {
			t.Errorf("home %q uid %d: ledger %q", c.home, c.uid, d)
		}
	}
}
