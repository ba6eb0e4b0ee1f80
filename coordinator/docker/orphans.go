package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/acbox/acbox/coordinator/docker/engine"
)

// owner identifies the acbox process that owns a container: its pid, the
// pid's start time (field 22 of /proc/<pid>/stat, so a reused pid is not
// mistaken for the owner) and its pid namespace (pids from another
// namespace say nothing about this one's /proc).
type owner struct {
	pid   int
	start string
	pidns string
}

func self() owner {
	o := owner{pid: os.Getpid()}
	o.start, _ = procStart(o.pid)
	o.pidns, _ = os.Readlink("/proc/self/ns/pid")
	return o
}

// procStart returns the start time of pid in clock ticks since boot.
func procStart(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after the last ')' are fixed. Start time is field 22.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if i < 0 || len(f) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return f[19], nil
}

// alive reports whether the owner recorded in labels is still running.
// Containers whose owner lives in another pid namespace count as alive:
// this process cannot tell.
func alive(labels map[string]string, me owner) bool {
	if labels[LabelOwnerPidNS] != me.pidns {
		return true
	}
	pid, err := strconv.Atoi(labels[LabelOwnerPid])
	if err != nil || pid <= 0 {
		return false
	}
	start, err := procStart(pid)
	return err == nil && start == labels[LabelOwnerStart]
}

// RemoveOrphans removes every acbox container whose owner is dead: its
// owner pid is gone, or now belongs to a process that started at another
// time. It is called at the start of each docker launch and by `acbox gc`.
// It returns the names it removed; the error joins every failure.
func RemoveOrphans(ctx context.Context) ([]string, error) {
	c, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return removeOrphans(ctx, c, self(), nil)
}

// removeOrphans removes the containers whose owner is dead, except those
// whose acbox id live reports (nil: none is spared).
func removeOrphans(ctx context.Context, c *engine.Client, me owner, live func(id string) bool) ([]string, error) {
	list, err := c.ContainerList(ctx, LabelOwnerPid)
	if err != nil {
		return nil, fmt.Errorf("list acbox containers: %w", err)
	}
	var removed []string
	var errs []error
	for _, ct := range list {
		if alive(ct.Labels, me) || (live != nil && live(ct.Labels[LabelID])) {
			continue
		}
		err := c.ContainerRemove(ctx, ct.ID, true)
		if err != nil && !errors.Is(err, engine.ErrNotFound) {
			errs = append(errs, fmt.Errorf("remove orphaned container %s: %w", short(ct.ID), err))
			continue
		}
		removed = append(removed, strings.TrimPrefix(firstName(ct.Names), "/"))
	}
	return removed, errors.Join(errs...)
}

// LiveSandboxes returns the acbox ids of the containers on this host whose
// owner is alive, whoever started them: admission counts them for docker
// launches (the registry holds only the caller's own sandboxes).
func LiveSandboxes(ctx context.Context) ([]string, error) {
	c, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	list, err := c.ContainerList(ctx, LabelOwnerPid)
	if err != nil {
		return nil, fmt.Errorf("list acbox containers: %w", err)
	}
	me := self()
	var out []string
	for _, ct := range list {
		if alive(ct.Labels, me) {
			out = append(out, ct.Labels[LabelID])
		}
	}
	return out, nil
}

// short is the id as docker prints it.
func short(id string) string { return id[:min(len(id), 12)] }

func firstName(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}
