package docker

import (
	"fmt"
	"runtime"

	"github.com/acbox/acbox/coordinator/policy"
)

// The backend's host-side checks hold every bind source open by descriptor
// (O_PATH, /proc/self/fd) and look at the started container's mounts
// through /proc/<pid>/root. Only Linux has them; elsewhere the backend
// reports itself unavailable and refuses every launch, before it talks to
// the daemon: a container started without those checks would take a
// symlink swapped in under a grant at face value.
const (
	needsLinuxProc = "the docker backend's host-side checks need Linux /proc"
	runOnLinux     = "run acbox on a Linux host"
)

// hostSupport is nil where the host-side checks exist, else the error that
// names why they do not and the next step.
func (b Backend) hostSupport() error {
	goos := b.goos
	if goos == "" {
		goos = runtime.GOOS
	}
	if goos == "linux" {
		return nil
	}
	return fmt.Errorf("%w: %s; %s", policy.ErrCannotSandbox, needsLinuxProc, runOnLinux)
}
