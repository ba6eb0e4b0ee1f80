package policy

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// HostMemory returns the host's total RAM in bytes (sysinfo(2): the same
// figure as MemTotal, without formatting all of /proc/meminfo).
func HostMemory() (int64, error) {
	var si unix.Sysinfo_t
	if err := sys.Sysinfo(&si); err != nil {
		return 0, fmt.Errorf("%w: reading host memory: %w", ErrCannotSandbox, err)
	}
	return int64(si.Totalram) * int64(si.Unit), nil
}
