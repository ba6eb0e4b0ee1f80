package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/docker/docker/client"

	"github.com/acbox/acbox/coordinator"
)

// connect opens the Docker Engine API client from the environment
// (DOCKER_HOST, DOCKER_API_VERSION, DOCKER_CERT_PATH; default
// unix:///var/run/docker.sock) and negotiates the API version. Only a
// daemon on a local Unix socket is accepted: bind sources are host paths,
// and a remote daemon would bind its own host's files.
func connect(ctx context.Context) (*client.Client, error) {
	c, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w: docker client: %v; check DOCKER_HOST", coordinator.ErrCannotSandbox, err)
	}
	if !strings.HasPrefix(c.DaemonHost(), "unix://") {
		c.Close()
		return nil, fmt.Errorf("%w: DOCKER_HOST=%s is not a local Unix socket; the docker backend binds host paths and needs the daemon on this host", coordinator.ErrCannotSandbox, c.DaemonHost())
	}
	if _, err := c.Ping(ctx); err != nil {
		c.Close()
		return nil, daemonError(c.DaemonHost(), err)
	}
	return c, nil
}

// daemonError turns a failed connection into the next step.
func daemonError(host string, err error) error {
	switch {
	case errors.Is(err, syscall.EACCES) || strings.Contains(err.Error(), "permission denied"):
		return fmt.Errorf("%w: no permission to use the Docker daemon at %s: add your user to the docker group (that is root-equivalent) or use --backend native", coordinator.ErrCannotSandbox, host)
	case client.IsErrConnectionFailed(err) || errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w: no Docker daemon at %s: start it (systemctl start docker), set DOCKER_HOST, or use --backend native", coordinator.ErrCannotSandbox, host)
	}
	return fmt.Errorf("%w: Docker daemon at %s: %v", coordinator.ErrCannotSandbox, host, err)
}

// checkDaemon refuses daemons that would not run the container as the
// caller's own uid on the host: rootless Docker and user-namespace
// remapping both map it to another uid.
func checkDaemon(ctx context.Context, c *client.Client) error {
	info, err := c.Info(ctx)
	if err != nil {
		return fmt.Errorf("%w: docker info: %v", coordinator.ErrCannotSandbox, err)
	}
	for _, o := range info.SecurityOptions {
		if strings.Contains(o, "name=rootless") || strings.Contains(o, "name=userns") {
			return fmt.Errorf("%w: the Docker daemon runs with %s, which maps container uids to other host uids; use a rootful daemon without userns-remap, or --backend native", coordinator.ErrCannotSandbox, o)
		}
	}
	return nil
}
