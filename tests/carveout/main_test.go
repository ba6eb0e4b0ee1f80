//go:build integration

// Package carveout checks the read-only carve-outs in write grants (git
// hooks and config, --protect, --unprotect) and the exit scan of --report
// in real sandboxes from the built binary (ACBOX_BIN), as root and as an
// unprivileged user: ACBOX_TEST_USER (default acbox-test, created with
// useradd when missing) when the test process is root, else the current
// user only.
//
//	make build && ACBOX_BIN=$PWD/bin/acbox go test -tags integration ./tests/carveout/
package carveout

import (
	"github.com/acbox/acbox/tests/testenv"

	"os"
	"os/user"
	"strconv"
	"syscall"
	"testing"
)

// mode is who runs acbox.
type mode struct {
	name     string
	uid, gid int
	home     string
	cred     *syscall.Credential // nil: the test process itself
	skip     string
}

var (
	acboxBin string
	root     string // /tmp/acbox-co-XXXX
	modes    []mode
	setupErr string
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		setup()
		if root != "" {
			defer os.RemoveAll(root)
		}
		return m.Run()
	}())
}

func setup() {
	if acboxBin = os.Getenv("ACBOX_BIN"); acboxBin == "" {
		setupErr = "ACBOX_BIN is not set; run `make build` and set ACBOX_BIN=$PWD/bin/acbox"
		return
	}
	dir, err := os.MkdirTemp("/tmp", "acbox-co-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		setupErr = err.Error()
		return
	}
	root = dir
	if os.Geteuid() != 0 {
		u, _ := user.Current()
		modes = []mode{userMode("user", u, nil), {name: "root", skip: "the test process is not root"}}
		return
	}
	ru, _ := user.LookupId("0")
	modes = []mode{testUser(), userMode("root", ru, nil)}
}

func testUser() mode {
	u, err := testenv.User()
	if err != nil {
		return mode{name: "user", skip: err.Error()}
	}
	m := userMode("user", u, nil)
	m.cred = &syscall.Credential{Uid: uint32(m.uid), Gid: uint32(m.gid), NoSetGroups: true}
	return m
}

func userMode(name string, u *user.User, cred *syscall.Credential) mode {
	if u == nil {
		return mode{name: name, skip: "cannot look up the user"}
	}
	m := mode{name: name, home: u.HomeDir, cred: cred}
	m.uid, _ = strconv.Atoi(u.Uid)
	m.gid, _ = strconv.Atoi(u.Gid)
	return m
}

func forEachMode(t *testing.T, fn func(t *testing.T, m mode)) {
	if setupErr != "" {
		t.Skip(setupErr)
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.skip != "" {
				t.Skip(m.skip)
			}
			fn(t, m)
		})
	}
}
