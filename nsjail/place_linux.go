package nsjail

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// The last steps of building the root: grants, runtime mounts and tmpfs
// placed parents first and verified, then pivot_root.

// place attaches grants, runtime mounts and tmpfs mounts, parents first; at
// equal paths a tmpfs goes first so the grant over it stays visible.
func (r *rootfs) place() error {
	var ops []source
	for _, s := range r.sources {
		if s.kind != "system" {
			ops = append(ops, s)
		}
	}
	sortSources(ops)
	for _, s := range ops {
		if err := r.attach(s); err != nil {
			return err
		}
	}
	return r.verifyPlaced()
}

// verifyPlaced re-reads every bound grant and mount in the new root and
// requires the identity the parent recorded.
func (r *rootfs) verifyPlaced() error {
	for _, rec := range r.records {
		if rec.Kind != "grant" && rec.Kind != "mount" {
			continue
		}
		fd, err := openNoFollow(r.root, strings.TrimPrefix(rec.Target, "/"), false, true)
		if err != nil {
			return err
		}
		dev, ino, err := fdIdent(fd)
		sys.Close(fd)
		if vi, ok := r.views[rec.Target]; ok && rec.Source == rec.Target && dev == vi.tmpfs.Dev && ino == vi.tmpfs.Ino {
			dev, ino = vi.host.Dev, vi.host.Ino // its snapshot (synth_linux.go)
		}
		if err != nil || dev != rec.Dev || ino != rec.Ino {
			return fmt.Errorf("%s at %s is not what was checked after mounting (dev/ino %d/%d, expected %d/%d)", rec.Kind, policy.Quote(rec.Target), dev, ino, rec.Dev, rec.Ino)
		}
	}
	return nil
}

func (r *rootfs) pivot() error {
	if err := sys.Fchdir(r.root, stagingDir); err != nil {
		return err
	}
	if err := sys.PivotRoot(".", "."); err != nil {
		return &MountError{Op: "pivot_root", Target: stagingDir, Err: err}
	}
	// The old root is stacked under the new one at "."; detach it so nothing
	// of the host stays reachable. Propagation is already private.
	if err := sys.Unmount(".", unix.MNT_DETACH); err != nil {
		return &MountError{Op: "umount2", Target: "old root", Flags: "MNT_DETACH", Err: err}
	}
	sys.Close(r.root)
	return sys.Chdir("/")
}

func sortSources(s []source) {
	prio := map[string]int{"tmpfs": 0, "grant": 1, "mount": 2}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && lessSource(s[j], s[j-1], prio); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func lessSource(a, b source, prio map[string]int) bool {
	da, db := strings.Count(filepath.Clean(a.target), "/"), strings.Count(filepath.Clean(b.target), "/")
	if da != db {
		return da < db
	}
	if a.target != b.target {
		return a.target < b.target
	}
	return prio[a.kind] < prio[b.kind]
}
