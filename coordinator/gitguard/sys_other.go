//go:build !linux

package gitguard

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Elsewhere the guard has no safe way to walk without following links.

const supported = false

type entry struct {
	mode     uint32
	dev, ino uint64
	uid      uint32
	ctime    unix.Timespec
}

func (e entry) isDir() bool { return false }
func (e entry) isReg() bool { return false }
func (e entry) isLnk() bool { return false }

func openRoot(string) (int, error)               { return -1, syscall.ENOSYS }
func openSub(int, string) (int, error)           { return -1, syscall.ENOSYS }
func lstatAt(int, string) (entry, bool, error)   { return entry{}, false, syscall.ENOSYS }
func readSmall(int, string, int) ([]byte, error) { return nil, syscall.ENOSYS }
func readlinkAt(int, string) (string, error)     { return "", syscall.ENOSYS }
func readAll(int, string, int64) ([]byte, error) { return nil, syscall.ENOSYS }
func moveAside(int, string) (string, error)      { return "", syscall.ENOSYS }
func createFile(int, string, []byte) error       { return syscall.ENOSYS }
func restoreAt(int, string, uint32) bool         { return false }
func dirNames(int) ([]dirent, error)             { return nil, syscall.ENOSYS }
