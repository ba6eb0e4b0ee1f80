package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// DefaultBusybox is where `acbox image build` takes busybox from: Debian's
// busybox-static puts a statically linked one there.
const DefaultBusybox = "/bin/busybox"

// defaultDockerfile is DefaultImage: busybox and its applet links,
// nothing else (no shell profile, no package manager, no users).
const defaultDockerfile = "FROM scratch\nCOPY busybox /bin/busybox\nRUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n"

// BuildImage builds the default image's recipe from busybox (a static
// binary on this host) and tags it tag (DefaultImage for `acbox image
// build`), through the daemon's Engine API: no docker CLI, no registry,
// no network (FROM scratch). The daemon's progress goes to progress. The
// built image is then checked as a launch checks it.
func BuildImage(ctx context.Context, busybox, tag string, progress io.Writer) error {
	if err := checkStatic(busybox); err != nil {
		return err
	}
	tarball, err := buildContext(busybox)
	if err != nil {
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
	if err := c.ImageBuild(ctx, tarball, tag, progress); err != nil {
		return fmt.Errorf("%w: building %s: %w", policy.ErrCannotSandbox, tag, err)
	}
	return checkImage(ctx, c, tag)
}

// checkStatic refuses a busybox that is not a statically linked ELF
// binary: FROM scratch has no dynamic loader and no libc to run it.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w; install a static busybox (apt-get install busybox-static) or name one with --busybox", policy.ErrCannotSandbox, path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%w: %s is dynamically linked and cannot run in an image FROM scratch; install a static busybox (apt-get install busybox-static) or name one with --busybox", policy.ErrCannotSandbox, path)
		}
	}
	return nil
}

// buildContext is the tar stream the daemon builds from: the Dockerfile
// and busybox, owned by root, with fixed times so that the same busybox
// gives the same layers.
func buildContext(busybox string) (io.Reader, error) {
	bin, err := os.ReadFile(busybox)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		body []byte
	}{{"Dockerfile", 0o644, []byte(defaultDockerfile)}, {"busybox", 0o755, bin}} {
		hdr := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}
