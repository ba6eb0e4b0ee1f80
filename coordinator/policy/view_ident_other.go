//go:build !unix

package policy

import (
	"errors"
	"io/fs"
	"os"
)

// fileIdent: no device and inode numbers on this platform; the native
// backend, which checks them, runs on Linux only.
func fileIdent(fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// fileOwner: ownership cannot be told here, so no profile is trusted.
func fileOwner(fs.FileInfo) int { return -1 }

// fileGroup: unknown here.
func fileGroup(fs.FileInfo) int { return -1 }

func openNoFollow(path string) (*os.File, error) { return nil, errors.ErrUnsupported }

func isSymlinkErr(error) bool { return false }
