package nsjail

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// stagingDir is where the new root is assembled, in the helper's private
// mount namespace, after every source has been cloned: mounting over it
// hides nothing the sandbox still needs.
const stagingDir = "/tmp"

// source is a detached clone of something the sandbox will show.
type source struct {
	target string // path inside the sandbox
	kind   string // system, grant, mount, tmpfs, dev
	tree   int    // detached mount, -1 for tmpfs
	isDir  bool
	move   bool // tree is a view attached in the helper's namespace: moved, not cloned (view_move_linux.go)
	size   int64
	mode   uint32
	rec    policy.MountRecord
}

// rootfs assembles the sandbox's root and records what it mounted.
type rootfs struct {
	cfg      *helperConfig
	root     int
	hostRoot int // host view: the detached clone of "/" until staged
	sources  []source
	devs     []source
	records  []policy.MountRecord
	views    map[string]viewIdent // built snapshots by path (synth_linux.go)
	listDir  lister               // a snapshot's listing; nil is getdents (synth_entries_linux.go)
	// shortfalls are masks held only by a mount on the entry (--best-effort).
	shortfalls []string
	// userSysctl is the new /proc's sys/user (O_PATH), opened before
	// /proc/sys is made read-only, for the counter caps (ucount_linux.go).
	userSysctl sysctlDir
	// kernelSysctl is its sys/kernel, kept likewise for the System V IPC
	// caps (ipclimit_linux.go).
	kernelSysctl sysctlDir
	// ipc makes a user's IPC namespace beside the building
	// (ipcns_traced_linux.go); ipcNS is that namespace with the caps
	// written once collected, ipcNSErr why there is none.
	ipc      *ipcMaker
	ipcNS    ipcNamespace
	ipcNSErr error
}

// build runs every step up to and including pivot_root.
func (r *rootfs) build() error {
	r.ipcNS = ipcNamespace{fd: -1}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"make mounts private", makePrivate},
		{"clone sources", r.cloneSources},
		{"stage new root", r.stage},
		{"system directories", r.system},
		{"proc", r.proc},
		{"hide host-wide /proc files", r.maskProc},
		{"dev", r.dev},
		{"grants and tmpfs", r.place},
		{"own directory read-only", r.sealOwnDir},
		{"protected paths", r.protect},
		{"verify masks", r.verifyMasks},
		{"verify hidden /proc files", r.verifyProcMasks},
		{"verify read-only binds", r.verifyReadOnly},
		{"read-only root", func() error { return setAttr(r.root, "", false, unix.MOUNT_ATTR_RDONLY, "/") }},
		{"pivot_root", r.pivot},
	}
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return &stepError{step: s.name, err: err}
		}
	}
	return nil
}

type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

func makePrivate() error {
	if err := sys.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return &MountError{Op: "mount", Target: "/", Flags: "MS_REC|MS_PRIVATE", Err: err}
	}
	return nil
}

// cloneSources opens and clones every bind source before anything is hidden.
// Grants and runtime mounts must match the identity the parent recorded.
// Runtime mounts of masked paths go first, then the entry masks and the
// views, then everything that must carry them (see masks_linux.go and
// synth_linux.go).
func (r *rootfs) cloneSources() error {
	p := r.cfg.Plan
	if err := r.cloneMounts(true); err != nil {
		return err
	}
	if err := r.applyMasks(); err != nil {
		return err
	}
	if err := r.applyViews(); err != nil {
		return err
	}
	for _, s := range p.System {
		if s.Link != "" {
			continue
		}
		if r.anchored(s.Path) {
			if err := r.addView(s.Path); err != nil {
				return err
			}
			continue
		}
		if err := r.addClone(s.Path, s.Path, "system", true, roAttrs, false); err != nil {
			return err
		}
	}
	for _, g := range p.Grants {
		attrs := rwAttrs
		if !g.Write {
			attrs = roAttrs
		}
		if err := r.addClone(g.Path, g.Path, "grant", true, attrs, true); err != nil {
			return err
		}
	}
	if err := r.cloneMounts(false); err != nil {
		return err
	}
	for _, t := range p.Tmpfs {
		r.sources = append(r.sources, source{target: t.Target, kind: "tmpfs", tree: -1, isDir: true, size: t.Size, mode: tmpfsMode(t.Target)})
	}
	if err := r.cloneDevices(); err != nil {
		return err
	}
	if isHostView(p) && r.viewOf("/") == nil {
		return r.cloneHostRoot()
	}
	return nil
}

// cloneMounts clones the runtime mounts whose source is masked (masked
// true) or the others.
func (r *rootfs) cloneMounts(masked bool) error {
	for _, m := range r.cfg.Plan.Mounts {
		if maskedSource(r.cfg.Plan, m.Source) != masked {
			continue
		}
		attrs := rwAttrs
		if m.Readonly {
			attrs = roAttrs
		}
		if err := r.addClone(m.Source, m.Target, "mount", m.Kind == "dir", attrs, true); err != nil {
			return err
		}
	}
	return nil
}

const (
	roAttrs uint64 = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV
	rwAttrs uint64 = unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV
)

func tmpfsMode(target string) uint32 {
	if target == "/tmp" {
		return 0o1777
	}
	return 0o700
}

// addClone re-opens src without following symlinks, checks its identity
// against the parent's record when verify is set, clones it and applies
// attrs to the detached tree, so no writable window ever exists.
func (r *rootfs) addClone(src, target, kind string, dir bool, attrs uint64, verify bool) error {
	fd, err := openNoFollow(unix.AT_FDCWD, src, dir, false)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	dev, ino, err := fdIdent(fd)
	if err != nil {
		return err
	}
	if vi, ok := r.views[src]; ok && dev == vi.tmpfs.Dev && ino == vi.tmpfs.Ino {
		dev, ino = vi.host.Dev, vi.host.Ino // a read grant shown as its snapshot: judged by the host directory it stands for
	}
	if verify {
		want, ok := r.cfg.identOf(src)
		if !ok || want.Dev != dev || want.Ino != ino {
			return fmt.Errorf("%s %s changed between the checks and the mount (dev/ino %d/%d, expected %d/%d): refusing to mount it", kind, policy.Quote(src), dev, ino, want.Dev, want.Ino)
		}
	}
	tree, err := cloneTree(fd, src)
	if err != nil {
		return err
	}
	if err := setAttr(tree, "", true, attrs, src); err != nil {
		return err
	}
	rec := policy.MountRecord{Target: target, Kind: kind, Source: src, Dev: dev, Ino: ino, Flags: attrNames(attrs)}
	r.sources = append(r.sources, source{target: target, kind: kind, tree: tree, isDir: dir, rec: rec})
	return nil
}

func (r *rootfs) stage() error {
	if fi, err := os.Lstat(stagingDir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s must be a real directory to stage the sandbox root", stagingDir)
	}
	if isHostView(r.cfg.Plan) {
		return r.stageHostRoot()
	}
	if err := mountFS("tmpfs", stagingDir, unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755"); err != nil {
		return err
	}
	fd, err := openNoFollow(unix.AT_FDCWD, stagingDir, true, false)
	r.root = fd
	return err
}

func (r *rootfs) system() error {
	for _, s := range r.cfg.Plan.System {
		if s.Link == "" {
			continue
		}
		if err := sys.Symlinkat(s.Link, r.root, strings.TrimPrefix(s.Path, "/")); err != nil {
			return &MountError{Op: "symlink", Source: s.Link, Target: s.Path, Err: err}
		}
	}
	for _, s := range r.sources {
		if s.kind == "system" {
			if err := r.attach(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// attach moves a detached tree (or a new tmpfs) onto its target.
func (r *rootfs) attach(s source) error {
	rel := strings.TrimPrefix(s.target, "/")
	var dst int
	var err error
	if s.isDir {
		dst, err = mkdirBeneath(r.root, rel, 0o755)
	} else {
		dst, err = fileBeneath(r.root, rel)
	}
	if err != nil {
		return err
	}
	defer sys.Close(dst)
	if s.kind == "tmpfs" {
		return r.mountTmpfs(s, dst)
	}
	if s.move {
		// Only now: sources cloned from beneath it kept their own attributes.
		if err := setAttr(s.tree, "", true, roAttrs, s.target); err != nil {
			return err
		}
	}
	if err := moveInto(s.tree, dst, s.target); err != nil {
		return err
	}
	sys.Close(s.tree)
	r.records = append(r.records, s.rec)
	return nil
}

func (r *rootfs) mountTmpfs(s source, dst int) error {
	data := fmt.Sprintf("size=%d,mode=%o", s.size, s.mode)
	if err := mountFS("tmpfs", fdPath(dst), unix.MS_NOSUID|unix.MS_NODEV, data); err != nil {
		return err
	}
	r.records = append(r.records, policy.MountRecord{Target: s.target, Kind: "tmpfs", Flags: "NOSUID|NODEV," + data})
	return nil
}

func fdPath(fd int) string { return "/proc/self/fd/" + fmt.Sprint(fd) }

// startIPC starts a user's IPC maker with the new /proc and its
// sys/kernel. It runs right after the new /proc is mounted: pid 1 is
// still dumpable (its child is visible to it there) and no mount covers
// its root yet (with a home at "/", a clone after pivot_root is refused,
// EPERM, as from a chroot).
func (r *rootfs) startIPC() {
	if os.Geteuid() == 0 {
		return
	}
	p := ipcProc{proc: -1, kernel: r.kernelSysctl.fd}
	if r.kernelSysctl.err != nil {
		p.kernel = -1
	}
	if fd, err := openNoFollow(r.root, "proc", true, true); err == nil {
		p.proc = fd
	}
	r.ipc = startIPCMaker(r.cfg.IPCLimits, p)
}

func (r *rootfs) proc() error {
	dst, err := mkdirBeneath(r.root, "proc", 0o555)
	if err != nil {
		return err
	}
	defer sys.Close(dst)
	// hidepid=invisible: processes the member may not ptrace are not listed
	// or looked up at all. pid 1 is not dumpable, so it is invisible to the
	// member, which as uid 0 would otherwise own its /proc entries.
	opts := "hidepid=invisible"
	if r.cfg.Plan.GID == 0 {
		opts += fmt.Sprintf(",gid=%d", procGID) // see gidMappings
	}
	if err := mountFS("proc", fdPath(dst), unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, opts); err != nil {
		return fmt.Errorf("%w (a /proc with over-mounts, as inside a default Docker container, cannot be mounted again: run the container with --security-opt systempaths=unconfined, or use --backend docker on the host)", err)
	}
	r.records = append(r.records, policy.MountRecord{Target: "/proc", Kind: "proc", Flags: "NOSUID|NODEV|NOEXEC,hidepid=invisible"})
	r.openUserSysctl()
	r.openKernelSysctl()
	r.startIPC()
	return nil
}
