//go:build !linux

package docker

import "errors"

// Off Linux there is no /proc/<pid>/root to look through. Launch never gets
// this far there (see hostSupport); should it, these fail closed.

var errNoProc = errors.New(needsLinuxProc)

func hostIdent(pid int, target string) (ident, error) { return ident{}, errNoProc }

func hostReadOnly(pid int, target string) (bool, error) { return false, errNoProc }
