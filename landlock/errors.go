package landlock

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// ErrMissing is wrapped by the error of a strict [RestrictThread] when the
// kernel cannot enforce every right and scope acbox requires.
var ErrMissing = errors.New("landlock: kernel cannot enforce everything acbox requires")

// abiError turns the errno of the ABI version query into a cause and a next
// step. The errno stays matchable with errors.Is.
func abiError(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return fmt.Errorf("landlock: not built into this kernel (needs CONFIG_SECURITY_LANDLOCK=y, Linux 5.13 or later; "+
			"use a kernel with Landlock or --backend docker): %w", err)
	case errors.Is(err, syscall.EOPNOTSUPP):
		return fmt.Errorf("landlock: built into this kernel but disabled at boot "+
			"(add landlock to the kernel command line, e.g. lsm=landlock,lockdown,yama,integrity,apparmor,bpf, and reboot): %w", err)
	}
	return fmt.Errorf("landlock: querying the ABI version: %w", err)
}

// refusal is the strict-mode error for a report with missing rights.
func refusal(rep Report) error {
	return fmt.Errorf("%w: this kernel's Landlock ABI %d lacks %s; "+
		"upgrade to a kernel with ABI 6 or later (Linux 6.12+) or ask for best effort",
		ErrMissing, rep.ABI, strings.Join(rep.Missing, ", "))
}
