package policy

import (
	"fmt"
	"os"
	"syscall"
)

// HostMemory returns the host's total RAM in bytes (sysinfo(2): the same
// figure as MemTotal, without formatting all of /proc/meminfo).
func HostMemory() (int64, error) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0, fmt.Errorf("%w: reading host memory: %w", ErrCannotSandbox, os.NewSyscallError("sysinfo", err))
	}
	return int64(si.Totalram) * int64(si.Unit), nil
}
