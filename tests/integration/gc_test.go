//go:build integration

package integration

import (
	"strings"
	"testing"
)

// TestGCDockerLine: on a host without docker (no daemon socket, no docker
// binary on PATH) acbox gc says nothing about docker; with docker
// installed but its daemon unreachable it says so once, naming the daemon.
func TestGCDockerLine(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		noSocket := "DOCKER_HOST=unix:///nonexistent/acbox-it/docker.sock"
		r := runBoxEnv(t, m, []string{noSocket, "PATH=/nonexistent/acbox-it/bin"}, "gc")
		if r.code != 0 || strings.Contains(strings.ToLower(r.stdout+r.stderr), "docker") {
			t.Errorf("gc on a host without docker: want exit 0 and no docker line, got %s", r)
		}
		r = runBoxEnv(t, m, []string{noSocket}, "gc")
		if n := strings.Count(r.stdout+r.stderr, "docker:"); r.code != 0 || n != 1 || !strings.Contains(r.stdout, "no Docker daemon at unix:///nonexistent/acbox-it/docker.sock") {
			t.Errorf("gc with docker installed but unreachable: want exit 0 and one line naming the daemon, got %s", r)
		}
		if strings.Contains(r.stdout, "cannot sandbox") {
			t.Errorf("gc's docker line reads as a launch failure: %s", r.stdout)
		}
	})
}
