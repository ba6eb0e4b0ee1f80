package coordinator

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbox/acbox/coordinator/policy"
)

// runDir is the sandbox's private directory for its sockets (proxy,
// broker, the docker start gate): StateDir/run/ID, 0700 with 0700
// parents, which the registry removes with the sandbox's entry and its gc
// when the owner is gone. The launcher makes it only when it keeps a
// socket there itself (make); a backend that keeps files there makes it
// (the docker backend's start gate does). A launch with no socket (native,
// no proxy, no delegation) never makes it: on an ext4 state directory the
// rmdir alone cost about 0.3 ms of every launch's tail.
type runDir struct {
	path string
	made bool
}

func newRunDir(state, id string) *runDir {
	return &runDir{path: filepath.Join(state, "run", id)}
}

// make creates the directory, once; it must not exist yet.
func (d *runDir) make() error {
	if d.made {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
		return fmt.Errorf("%w: state directory: %w", policy.ErrCannotSandbox, err)
	}
	if err := os.Mkdir(d.path, 0o700); err != nil {
		return fmt.Errorf("%w: run directory: %w", policy.ErrCannotSandbox, err)
	}
	d.made = true
	return nil
}

// remove deletes what make created (the registry's Remove deletes a run
// directory a backend made).
func (d *runDir) remove() {
	if d.made {
		os.RemoveAll(d.path)
	}
}

// delegate starts the broker, which answers the processes peers admits,
// and adds the two runtime mounts a delegating member needs: this binary
// and the broker's socket. Both are read-only: connect(2) needs no write
// access to the mount, and a read-write bind of the socket would let the
// member chmod or touch the host's socket file in the caller's state
// directory (Landlock does not cover metadata; nsjail/readonly_linux.go).
func (l *Launcher) delegate(spec *policy.Spec, id string, dir *runDir, peers *sandboxPeers) (*broker, error) {
	exe, err := l.exe()
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find the acbox binary to mount for delegation: %w", policy.ErrCannotSandbox, err)
	}
	if err := dir.make(); err != nil {
		return nil, err
	}
	br, err := startBroker(l, id, dir.path, peers)
	if err != nil {
		return nil, err
	}
	spec.Mounts = append(spec.Mounts,
		policy.MountSpec{Source: exe, Target: policy.DelegateBin, Internal: true},
		policy.MountSpec{Source: br.path, Target: policy.DelegateSocket, Internal: true})
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
