//go:build integration

package docker_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestImageBuild: `acbox image build` builds the default image's recipe
// FROM scratch with the host's static busybox through the Engine API (no
// docker CLI on PATH), with progress on stderr and the name on stdout;
// the docker backend runs it. A dynamically linked busybox is refused,
// naming busybox-static.
func TestImageBuild(t *testing.T) {
	e := setup(t)
	const tag = "acbox-test-build:1"
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", tag).Run() })
	cmd := exec.Command(e.bin, "image", "build", "--tag", tag)
	cmd.Env = []string{"PATH=/nonexistent"} // no docker CLI
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || out.String() != tag+"\n" || !strings.Contains(errb.String(), "FROM scratch") {
		t.Fatalf("image build: %v\nstdout %q\nstderr %s", err, out.String(), errb.String())
	}
	if _, err := e.c.ImageInspect(context.Background(), tag); err != nil {
		t.Fatalf("the built image: %v", err)
	}
	run := exec.Command(e.bin, "run", "--backend", "docker", "--image", tag, "--", "sh", "-c", "echo hi from $(ls /bin | wc -l | tr -d ' ') applets")
	got, err := run.Output() // stdout: acbox's note on the ungranted directory goes to stderr
	if err != nil || !strings.HasPrefix(string(got), "hi from ") || strings.HasPrefix(string(got), "hi from 1 ") {
		t.Errorf("run in the built image: %v: %s", err, got)
	}
	bad := exec.Command(e.bin, "image", "build", "--tag", "acbox-test-build:bad", "--busybox", "/usr/bin/env")
	got, err = bad.CombinedOutput()
	if err == nil || !strings.Contains(string(got), "dynamically linked") || !strings.Contains(string(got), "busybox-static") {
		t.Errorf("a dynamic busybox: %v: %s", err, got)
	}
}
