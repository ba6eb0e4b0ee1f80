package docker

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// DefaultImage is used when the plan names no image: busybox alone,
// built locally from the host's static busybox by `acbox image build`
// (BuildImage).
const DefaultImage = "acbox-busybox:1"

// BuildCommand returns the command that builds image when it is
// DefaultImage, and a pull hint otherwise.
func BuildCommand(image string) string {
	if image != DefaultImage {
		return "docker pull " + image + " (or docker build -t " + image + " DIR)"
	}
	return "acbox image build (it needs a static busybox at " + DefaultBusybox + ": apt-get install busybox-static)"
}

// Status says whether the docker backend can run here. Its fields and tags
// match `acbox status --json`.
type Status struct {
	Backend   string `json:"backend"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	Remedy    string `json:"remedy,omitempty"` // the next step, apart from Reason
}

// Probe checks the daemon (reachable, permitted, rootful without userns
// remapping) and image (DefaultImage when empty): present, and declaring
// no volumes and no ports.
func Probe(ctx context.Context, image string) Status {
	st := Status{Backend: "docker"}
	if err := probe(ctx, image); err != nil {
		st.Reason, st.Remedy = err.Error(), remedyFor(err)
		var mi *missingImage
		if errors.As(err, &mi) {
			st.Reason = "image " + mi.image + " is missing"
		}
		return st
	}
	st.Available = true
	return st
}

func probe(ctx context.Context, image string) error {
	if err := (Backend{}).hostSupport(); err != nil {
		return err
	}
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := checkDaemon(ctx, c); err != nil {
		return err
	}
	return checkImage(ctx, c, image)
}

// checkImage refuses a missing image, and images that declare volumes
// (docker would add an anonymous volume the plan does not have) or ports.
func checkImage(ctx context.Context, c *engine.Client, image string) error {
	if image == "" {
		image = DefaultImage
	}
	img, err := c.ImageInspect(ctx, image)
	if errors.Is(err, engine.ErrNotFound) {
		return &missingImage{image}
	}
	if err != nil {
		return fmt.Errorf("%w: inspect image %s: %w", policy.ErrCannotSandbox, image, err)
	}
	if img.Config == nil {
		return nil
	}
	if v := keys(img.Config.Volumes); len(v) > 0 {
		return &policy.RefusedError{Subject: image, Why: "the image declares volumes (" + strings.Join(v, ", ") + ")", Instead: "rebuild it without VOLUME"}
	}
	if len(img.Config.ExposedPorts) > 0 {
		return &policy.RefusedError{Subject: image, Why: "the image exposes ports", Instead: "rebuild it without EXPOSE"}
	}
	return nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// missingImage is an image the daemon does not have; its message names the
// build command, which Status gives apart as the remedy.
type missingImage struct{ image string }

func (e *missingImage) Error() string {
	return fmt.Sprintf("%v: image %s is missing; build it with: %s", policy.ErrCannotSandbox, e.image, BuildCommand(e.image))
}

func (e *missingImage) Unwrap() error { return policy.ErrCannotSandbox }

// remedyFor is the next step after a failed probe, for a client that shows
// it apart from the reason (`acbox status --json`).
func remedyFor(err error) string {
	var mi *missingImage
	switch {
	case errors.As(err, &mi):
		return "build it with: " + BuildCommand(mi.image)
	case errors.Is(err, engine.ErrConnect):
		return "start the Docker daemon and make sure your user may use its socket, or use --backend native"
	}
	return "fix what the reason names, or use --backend native"
}
