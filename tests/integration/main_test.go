//go:build integration

// Package integration runs real sandboxes from the built acbox binary
// (ACBOX_BIN) and checks, from inside each sandbox, what the member can and
// cannot reach. Every test runs in two modes, as subtests:
//
//   - user: acbox as an unprivileged user. When the test process is root it
//     is ACBOX_TEST_USER (created with useradd when missing); otherwise it is
//     the current user.
//   - root: acbox as root, the way CI runners call it. Skipped, with the
//     reason, when the test process is not root.
//
// Fixtures live under one directory per suite run, /tmp/acbox-it-XXXX (a
// subdirectory of /tmp may be granted, /tmp itself may not), and are owned
// by the user of the mode. No test sends a packet outside loopback.
//
// Run with `make integration`, or:
//
//	ACBOX_BIN=$PWD/bin/acbox ACBOX_TEST_USER=acbox-test go test -tags integration ./tests/...
package integration

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

// mode is one way of invoking acbox: who runs it and what home it has.
type mode struct {
	name     string
	uid, gid int
	user     string
	home     string              // canonical
	cred     *syscall.Credential // nil: run as the test process
	skip     string              // non-empty: why this mode cannot run here
}

var (
	acboxBin  string // ACBOX_BIN; empty: every test skips
	suiteRoot string // /tmp/acbox-it-XXXX, removed at the end
	modes     []mode // user, root
	setupErr  string // why no test can run, when set
)

func TestMain(m *testing.M) {
	code := func() int {
		setup()
		if suiteRoot != "" {
			defer os.RemoveAll(suiteRoot)
		}
		code := m.Run()
		if survivors := markedProcesses(allMarkers()); len(survivors) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: processes of the suite's sandboxes are still running: %v\n", survivors)
			killAll(survivors)
			return 1
		}
		return code
	}()
	os.Exit(code)
}

func setup() {
	acboxBin = os.Getenv("ACBOX_BIN")
	if acboxBin == "" {
		setupErr = "ACBOX_BIN is not set; run `make integration`"
		return
	}
	if _, err := os.Stat(acboxBin); err != nil {
		setupErr = "ACBOX_BIN: " + err.Error()
		return
	}
	dir, err := os.MkdirTemp("/tmp", "acbox-it-")
	if err == nil {
		err = os.Chmod(dir, 0o755) // every mode's user must traverse it
	}
	if err != nil {
		setupErr = "creating the fixture root: " + err.Error()
		return
	}
	suiteRoot = dir
	if os.Geteuid() == 0 {
		modes = []mode{testUserMode(), rootMode()}
		return
	}
	modes = []mode{currentUserMode(), {name: "root", skip: "the test process is not root; run the suite as root to cover acbox as root"}}
}

// testUserMode is ACBOX_TEST_USER, created when missing.
func testUserMode() mode {
	m := mode{name: "user"}
	u, err := testenv.User()
	if err != nil {
		m.skip = "cannot use the test user: " + err.Error()
		return m
	}
	fillMode(&m, u)
	if m.skip == "" {
		m.cred = &syscall.Credential{Uid: uint32(m.uid), Gid: uint32(m.gid), NoSetGroups: true}
	}
	return m
}

func rootMode() mode {
	m := mode{name: "root"}
	u, err := user.LookupId("0")
	if err != nil {
		m.skip = "cannot look up root: " + err.Error()
		return m
	}
	fillMode(&m, u)
	return m
}

func currentUserMode() mode {
	m := mode{name: "user"}
	u, err := user.Current()
	if err != nil {
		m.skip = "cannot look up the current user: " + err.Error()
		return m
	}
	fillMode(&m, u)
	return m
}

func fillMode(m *mode, u *user.User) {
	m.uid, _ = strconv.Atoi(u.Uid)
	m.gid, _ = strconv.Atoi(u.Gid)
	m.user = u.Username
	home, err := filepath.EvalSymlinks(u.HomeDir)
	if err != nil {
		m.skip = fmt.Sprintf("home of %s (%s) is not usable: %v", u.Username, u.HomeDir, err)
		return
	}
	m.home = home
}

// forEachMode runs fn as a parallel subtest per mode, skipping with the
// reason where a mode cannot run.
func forEachMode(t *testing.T, fn func(t *testing.T, m mode)) {
	t.Helper()
	if setupErr != "" {
		t.Skip(setupErr)
	}
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.skip != "" {
				t.Skip(m.skip)
			}
			t.Parallel()
			fn(t, m)
		})
	}
}
