//go:build !linux

package initproc

import "github.com/acbox/acbox/coordinator/sys"

func checkProcRootOnly(string) error { return sys.ErrUnsupported }
