package coordinator

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbox/acbox/coordinator/policy"
)

// makeRunDir creates StateDir/run/ID, 0700 with 0700 parents: the
// sandbox's private directory for its sockets (proxy, broker, the docker
// start gate), which the registry's gc removes when the owner is gone.
func makeRunDir(state, id string) (string, error) {
	dir := filepath.Join(state, "run", id)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("%w: state directory: %w", policy.ErrCannotSandbox, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("%w: run directory: %w", policy.ErrCannotSandbox, err)
	}
	return dir, nil
}

// delegate starts the broker and adds the two runtime mounts a delegating
// member needs: this binary and the broker's socket.
func (l *Launcher) delegate(spec *policy.Spec, id, dir string) (*broker, error) {
	exe, err := l.exe()
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find the acbox binary to mount for delegation: %w", policy.ErrCannotSandbox, err)
	}
	br, err := startBroker(l, id, dir)
	if err != nil {
		return nil, err
	}
	spec.Mounts = append(spec.Mounts,
		policy.MountSpec{Source: exe, Target: policy.DelegateBin, Internal: true},
		policy.MountSpec{Source: br.path, Target: policy.DelegateSocket, Readonly: policy.RW(true), Internal: true})
	return br, nil
}

// exe is the canonical path of the acbox binary.
func (l *Launcher) exe() (string, error) {
	exe := l.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", err
		}
	}
	return filepath.EvalSymlinks(exe)
}
