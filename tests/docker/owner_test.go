//go:build integration

package docker_test

import (
	"os"
	"strconv"
	"syscall"
)

func fileOwner(fi os.FileInfo) (int, int) {
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

func itoa(n int) string { return strconv.Itoa(n) }
