//go:build integration

package docker_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/acbox/acbox/coordinator/docker"
)

// TestCleanupSparesLiveIDs: Backend.Cleanup removes containers whose owner
// is dead, like RemoveOrphans, except those whose id the caller still
// counts as live (the launcher's registry); and Live lists a container
// whose owner is alive.
func TestCleanupSparesLiveIDs(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	pidns, _ := os.Readlink("/proc/self/ns/pid")
	deadOwner := func(id string) map[string]string {
		return map[string]string{docker.LabelOwnerPid: "999999999", docker.LabelOwnerStart: "1", docker.LabelOwnerPidNS: pidns, docker.LabelID: id}
	}
	gone := e.leftover(t, "acbox-test-cleanup-gone", deadOwner("cleanup-gone"))
	kept := e.leftover(t, "acbox-test-cleanup-kept", deadOwner("cleanup-kept"))
	defer e.c.ContainerRemove(ctx, kept, true)
	mine := e.leftover(t, "acbox-test-cleanup-mine", map[string]string{
		docker.LabelOwnerPid: itoa(os.Getpid()), docker.LabelOwnerStart: selfStart(t), docker.LabelOwnerPidNS: pidns, docker.LabelID: "cleanup-mine"})
	defer e.c.ContainerRemove(ctx, mine, true)
	removed, err := docker.Backend{}.Cleanup(ctx, func(id string) bool { return id == "cleanup-kept" })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, "container acbox-test-cleanup-gone") || slices.Contains(removed, "container acbox-test-cleanup-kept") || slices.Contains(removed, "container acbox-test-cleanup-mine") {
		t.Fatalf("removed %v; want container acbox-test-cleanup-gone only", removed)
	}
	if _, err := e.c.ContainerInspect(ctx, gone); err == nil {
		t.Error("the dead owner's container is still there")
	}
	if _, err := e.c.ContainerInspect(ctx, kept); err != nil {
		t.Errorf("the container whose id is live is gone: %v", err)
	}
	ids, err := docker.Backend{}.Live(ctx)
	if err != nil || !slices.Contains(ids, "cleanup-mine") || slices.Contains(ids, "cleanup-kept") {
		t.Errorf("Live: %v (%v); want cleanup-mine and not cleanup-kept", ids, err)
	}
}
