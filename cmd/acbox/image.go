package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/acbox/acbox/coordinator/docker"
)

// ImageCmd manages the docker backend's image.
type ImageCmd struct {
	Build ImageBuildCmd `cmd:"" help:"Build the docker backend's default image (acbox-busybox:1) FROM scratch with this host's static busybox, through the Docker daemon's API; progress on standard error."`
}

// ImageBuildCmd builds the default image.
type ImageBuildCmd struct {
	Busybox string `default:"/bin/busybox" placeholder:"FILE" help:"The statically linked busybox to put in the image."`
	Tag     string `default:"acbox-busybox:1" placeholder:"NAME:TAG" help:"Name the image (the docker backend uses acbox-busybox:1 unless --image names another)."`
}

// Run builds the image and prints its name on stdout. Ctrl-C stops the
// build (the daemon removes the intermediate containers).
func (c *ImageBuildCmd) Run(s *Streams) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := docker.BuildImage(ctx, c.Busybox, c.Tag, s.Err); err != nil {
		return err
	}
	_, err := fmt.Fprintln(s.Out, c.Tag)
	return err
}
