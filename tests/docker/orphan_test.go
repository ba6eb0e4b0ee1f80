//go:build integration

package docker_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/docker/engine"
)

// TestOrphanRemoved makes two containers the way a killed acbox would
// leave them (running, no init watching a gate): one whose owner pid does
// not exist, one owned by this live process. RemoveOrphans must remove the
// first only.
func TestOrphanRemoved(t *testing.T) {
	e := setup(t)
	pidns, _ := os.Readlink("/proc/self/ns/pid")
	dead := e.leftover(t, "acbox-test-orphan", map[string]string{
		docker.LabelOwnerPid: "999999999", docker.LabelOwnerStart: "1", docker.LabelOwnerPidNS: pidns, docker.LabelID: "orphan"})
	live := e.leftover(t, "acbox-test-live", map[string]string{
		docker.LabelOwnerPid: itoa(os.Getpid()), docker.LabelOwnerStart: selfStart(t), docker.LabelOwnerPidNS: pidns, docker.LabelID: "live"})
	defer e.c.ContainerRemove(context.Background(), live, true)
	removed, err := docker.RemoveOrphans(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, "acbox-test-orphan") || slices.Contains(removed, "acbox-test-live") {
		t.Fatalf("removed %v; want the orphan only", removed)
	}
	if _, err := e.c.ContainerInspect(context.Background(), dead); err == nil {
		t.Error("the orphan is still there")
	}
	if _, err := e.c.ContainerInspect(context.Background(), live); err != nil {
		t.Errorf("the live owner's container is gone: %v", err)
	}
}

// leftover starts a plain running container with labels.
func (e *env) leftover(t *testing.T, name string, labels map[string]string) string {
	ctx := context.Background()
	e.c.ContainerRemove(ctx, name, true)
	r, err := e.c.ContainerCreate(ctx, &engine.Config{Image: image, Cmd: []string{"sleep", "60"}, Labels: labels},
		&engine.HostConfig{NetworkMode: "none", CapDrop: []string{"ALL"}, LogConfig: engine.LogConfig{Type: "none"}}, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.ContainerStart(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func selfStart(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[19]
}
