package docker

import (
	"errors"
	"io/fs"
	"os/exec"

	"github.com/acbox/acbox/coordinator/docker/engine"
)

// notInstalled tells whether err, from connect, means that docker is not
// on this host at all: the daemon's socket does not exist and neither the
// docker CLI nor dockerd is on PATH. Then there can be no acbox container
// to clean up, and nothing worth saying on every `acbox gc`. A socket that
// is missing while docker is installed (the daemon is stopped) is still
// an error: its containers may come back with it.
func notInstalled(err error) bool {
	if !errors.Is(err, engine.ErrConnect) || !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	for _, name := range []string{"docker", "dockerd"} {
		if _, lerr := exec.LookPath(name); lerr == nil {
			return false
		}
	}
	return true
}
