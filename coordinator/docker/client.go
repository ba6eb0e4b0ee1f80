package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// MinAPIVersion is the oldest Engine API the backend works with (Docker
// 20.10): it needs CgroupnsMode (1.41) and non-recursive binds (1.40).
const MinAPIVersion = "1.41"

// connect opens the Docker Engine API client from the environment
// (DOCKER_HOST, default unix:///var/run/docker.sock; DOCKER_API_VERSION)
// and negotiates the API version. Only a daemon on a local Unix socket is
// accepted: bind sources are host paths, and a remote daemon would bind
// its own host's files.
func connect(ctx context.Context) (*engine.Client, error) {
	c, err := engine.FromEnv()
	if errors.Is(err, engine.ErrNotLocal) {
		return nil, fmt.Errorf("%w: %w; the docker backend binds host paths and needs the daemon on this host", policy.ErrCannotSandbox, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: docker client: %w; check DOCKER_HOST", policy.ErrCannotSandbox, err)
	}
	if err := c.Ping(ctx); err != nil {
		c.Close()
		return nil, daemonError(c.Host(), err)
	}
	if engine.Less(c.Version(), MinAPIVersion) {
		c.Close()
		return nil, fmt.Errorf("%w: API %s for the Docker daemon at %s (its version, or DOCKER_API_VERSION); the docker backend needs %s (Docker 20.10) or later: upgrade Docker, unset DOCKER_API_VERSION, or use --backend native",
			policy.ErrCannotSandbox, c.Version(), c.Host(), MinAPIVersion)
	}
	return c, nil
}

// daemonError turns a failed connection into the next step.
func daemonError(host string, err error) error {
	switch {
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%w: no permission to use the Docker daemon at %s: add your user to the docker group (that is root-equivalent) or use --backend native", policy.ErrCannotSandbox, host)
	case errors.Is(err, engine.ErrConnect):
		return fmt.Errorf("%w: no Docker daemon at %s: start it (systemctl start docker), set DOCKER_HOST, or use --backend native (%w)", policy.ErrCannotSandbox, host, err)
	}
	return fmt.Errorf("%w: Docker daemon at %s: %w", policy.ErrCannotSandbox, host, err)
}

// checkDaemon refuses daemons that would not run the container as the
// caller's own uid on the host: rootless Docker and user-namespace
// remapping both map it to another uid.
func checkDaemon(ctx context.Context, c *engine.Client) error {
	info, err := c.Info(ctx)
	if err != nil {
		return fmt.Errorf("%w: docker info: %w", policy.ErrCannotSandbox, err)
	}
	for _, o := range info.SecurityOptions {
		if strings.Contains(o, "name=rootless") || strings.Contains(o, "name=userns") {
			return fmt.Errorf("%w: the Docker daemon runs with %s, which maps container uids to other host uids; use a rootful daemon without userns-remap, or --backend native", policy.ErrCannotSandbox, o)
		}
	}
	return nil
}
