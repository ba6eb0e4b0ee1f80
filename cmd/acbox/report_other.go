//go:build !linux

package main

import "golang.org/x/sys/unix"

// dirOpenFlag opens a report's directory for reading where there is no
// O_PATH.
const dirOpenFlag = unix.O_RDONLY
