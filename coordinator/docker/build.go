package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
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
	if err := checkTag(tag); err != nil {
		return err
	}
	bin, err := readBusybox(busybox)
	if err != nil {
		return err
	}
	tarball, err := buildContext(bin)
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

// maxBusybox bounds what is read as busybox (Debian's is about 2 MiB).
const maxBusybox = 64 << 20

// readBusybox reads the busybox to put in the image: a regular file (a
// FIFO or a device would hang the read or never end), at most maxBusybox,
// a statically linked ELF binary (FROM scratch has no dynamic loader and
// no libc to run it). A bad path is the caller's input: ErrInvalid.
func readBusybox(path string) ([]byte, error) {
	remedy := "; install a static busybox (apt-get install busybox-static) or name one with --busybox"
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: busybox %w%s", policy.ErrInvalid, err, remedy)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxBusybox {
		return nil, fmt.Errorf("%w: busybox %s is not a regular file of at most %d MiB%s", policy.ErrInvalid, path, maxBusybox>>20, remedy)
	}
	bin, err := io.ReadAll(io.LimitReader(f, maxBusybox+1))
	if err != nil {
		return nil, fmt.Errorf("%w: busybox %s: %w", policy.ErrInvalid, path, err)
	}
	dynamic, err := dynamicELF(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: busybox %s is not an ELF binary (%w)%s", policy.ErrInvalid, path, err, remedy)
	}
	if dynamic {
		return nil, fmt.Errorf("%w: %s is dynamically linked and cannot run in an image FROM scratch%s", policy.ErrInvalid, path, remedy)
	}
	return bin, nil
}

// checkTag refuses a tag docker would refuse or that would print badly:
// lowercase name components [a-z0-9._-/], an optional :tag of
// [A-Za-z0-9_.-] up to 128 characters.
func checkTag(tag string) error {
	name, t, hasTag := strings.Cut(tag, ":")
	ok := name != "" && len(tag) <= 255 && !strings.HasPrefix(name, "/") && !strings.HasSuffix(name, "/")
	for _, c := range name {
		ok = ok && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("._-/", c))
	}
	if hasTag {
		ok = ok && t != "" && len(t) <= 128
		for _, c := range t {
			ok = ok && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-", c))
		}
	}
	if !ok {
		return fmt.Errorf("%w: image tag %q: want a lowercase name (letters, digits, '.', '_', '-', '/') and an optional :TAG", policy.ErrInvalid, tag)
	}
	return nil
}

// buildContext is the tar stream the daemon builds from: the Dockerfile
// and busybox, owned by root, with fixed times so that the same busybox
// gives the same layers.
func buildContext(bin []byte) (io.Reader, error) {
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
