package main

import "golang.org/x/sys/unix"

// dirOpenFlag opens a report's directory as a path only: it need not be
// readable, only searchable and writable, for the names made in it.
const dirOpenFlag = unix.O_PATH
