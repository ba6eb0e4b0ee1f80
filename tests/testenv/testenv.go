// Package testenv is what acbox's integration suites share: the binary
// under test and the unprivileged user they run it as.
//
// Every suite runs acbox twice over where it can: as an unprivileged user
// (the product is rootless) and as root (the way CI runners use it). When
// the tests run as root, the user named by ACBOX_TEST_USER (default
// acbox-test) is created with useradd if it is missing.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// UserName is the unprivileged test user's name.
func UserName() string {
	if n := os.Getenv("ACBOX_TEST_USER"); n != "" {
		return n
	}
	return "acbox-test"
}

// Bin is the acbox binary under test (ACBOX_BIN), or "" when unset.
func Bin() string { return os.Getenv("ACBOX_BIN") }

// User looks up the test user, creating it (with a home directory) when it
// is missing and this process is root.
func User() (*user.User, error) {
	name := UserName()
	if u, err := user.Lookup(name); err == nil {
		return u, nil
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("no user %s, and only root can create it (useradd -m %s)", name, name)
	}
	if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/bash", name).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("useradd %s: %w: %s", name, err, out)
	}
	return user.Lookup(name)
}

// IDs returns a user's numeric uid and gid.
func IDs(u *user.User) (uid, gid int) {
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// Credential runs a command as u, with u's primary group only.
func Credential(u *user.User) *syscall.Credential {
	uid, gid := IDs(u)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
}
