//go:build !linux

package registry

import (
	"errors"
	"io/fs"
	"os"

	"github.com/acbox/acbox/coordinator/sys"
)

// The registry identifies processes through /proc; elsewhere it refuses.
var errNoProc = errors.New("the host registry needs Linux /proc")

// ProcStart is not available without /proc.
func ProcStart(pid int) (uint64, error) { return 0, errNoProc }

func parseStatStart(b []byte) (uint64, error) { return 0, errNoProc }

func selfPidNS() uint64 { return 0 }

func fileUID(fi fs.FileInfo) int { return -1 }

func (r *Registry) lock() (func(), error) { return nil, sys.ErrUnsupported }

func replace(tmp, file string) error { return os.Rename(tmp, file) }
