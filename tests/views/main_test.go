//go:build integration

// Package views tests the two views of the host from inside real sandboxes
// started from the built binary (ACBOX_BIN): the host view shows host files
// read-only and writes only in write grants; every credential path is
// masked, through a symlink too; --exclude masks more; the grants view masks
// what lies inside its grants. It runs as the unprivileged ACBOX_TEST_USER
// (default acbox-test, created with useradd when missing) and, when started
// as root, as root too; otherwise as the calling user.
//
// Fixture credentials go into the running user's real home, but only where
// nothing exists yet, and exactly what was created is removed afterwards.
//
//	ACBOX_BIN=$PWD/bin/acbox go test -tags integration ./tests/views/
package views

import (
	"github.com/acbox/acbox/tests/testenv"

	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// who is one way of running acbox.
type who struct {
	name     string
	uid, gid int
	home     string
	cred     *syscall.Credential // nil: as the test process
}

func acboxBin(t *testing.T) string {
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration`")
	}
	return bin
}

// runners returns the test user and root when the test runs as root, else
// the calling user.
func runners(t *testing.T) []who {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		return []who{fromUser(t, u, false)}
	}
	u, err := testenv.User()
	if err != nil {
		t.Fatal(err)
	}
	root, err := user.LookupId("0")
	if err != nil {
		t.Fatal(err)
	}
	return []who{fromUser(t, u, true), fromUser(t, root, false)}
}

func fromUser(t *testing.T, u *user.User, drop bool) who {
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	home, err := filepath.EvalSymlinks(u.HomeDir)
	if err != nil {
		t.Fatalf("home of %s: %v", u.Username, err)
	}
	w := who{name: u.Username, uid: uid, gid: gid, home: home}
	if drop {
		w.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	}
	return w
}

// acbox runs the binary as w in dir and returns stdout, stderr and the
// exit status.
func (w who) acbox(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return w.acboxEnv(t, dir, nil, args...)
}

func TestMain(m *testing.M) {
	if os.Getenv("ACBOX_BIN") == "" {
		fmt.Fprintln(os.Stderr, "ACBOX_BIN is not set; every test skips")
	}
	os.Exit(m.Run())
}
