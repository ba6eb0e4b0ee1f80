package nsjail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// entry is one name a snapshot shows: a directory, a symlink (recreated
// with its target), or anything else (bound onto an empty file). Its kind
// is the listing's (getdents' type). A name the plan makes a view, and
// every name in the root's snapshot, is also looked at when listed
// (known): dev and ino are what the name held then, and the bind must be
// of that very file (see synth_vanish_linux.go). Any other entry is judged
// by the clone it binds (its type must be the placeholder's, its mode
// decides the root-only rule), one fstatat fewer per entry.
type entry struct {
	name     string
	kind     uint32 // S_IFDIR, S_IFLNK or S_IFREG for the rest
	target   string // symlinks
	bare     bool   // an empty directory, nothing bound (the host view's own /proc, /dev, /tmp)
	known    bool   // dev, ino and mode were read by the listing
	dev, ino uint64
	mode     uint32 // st_mode as listed, when known (policy.RootOnly judges it)
}

// privateInHostView are the root entries the sandbox replaces with its own
// mounts: the snapshot of "/" shows them as empty directories.
var privateInHostView = []string{"proc", "dev", "tmp"}

// listEntries reads the host directory open at under and keeps every name
// the view does not hide (by name, by pattern, or as root-only), with its
// type; a name stat says must be known gets its identity too (fstatat, not
// following a symlink or crossing into a mount the name is not); a
// symlink's target is read where it is one. A name gone by the time it is
// looked at is left out: the host no longer has it.
func listEntries(under int, v policy.ViewDir, stat func(name string) bool) ([]entry, error) {
	fd, err := sys.Openat(under, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &MountError{Op: "open", Source: v.Path, Err: err}
	}
	d := os.NewFile(uintptr(fd), v.Path)
	des, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, &MountError{Op: "getdents", Source: v.Path, Err: err}
	}
	out := make([]entry, 0, len(des))
	var link []byte // readlink's buffer, shared by the entries
	for _, de := range des {
		if hidden(v, de.Name()) {
			continue
		}
		e, ok, err := describe(under, de, &link, stat(de.Name()))
		if err != nil {
			return nil, &MountError{Op: "fstatat/readlink", Source: filepath.Join(v.Path, de.Name()), Err: err}
		}
		if ok && e.known && rootOnly(v, e) {
			continue
		}
		if ok {
			e.bare = v.Path == "/" && slices.Contains(privateInHostView, e.name) && e.kind == unix.S_IFDIR
			out = append(out, e)
		}
	}
	return out, nil
}

// listNames reads the names in the directory open at under: all a view's
// check needs (verifyView), without a stat of each.
func listNames(under int, path string) ([]string, error) {
	fd, err := sys.Openat(under, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &MountError{Op: "open", Source: path, Err: err}
	}
	d := os.NewFile(uintptr(fd), path)
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, &MountError{Op: "getdents", Source: path, Err: err}
	}
	return names, nil
}

// hidden: the name is one the view leaves out.
func hidden(v policy.ViewDir, name string) bool {
	if slices.Contains(v.Hide, name) {
		return true
	}
	for _, g := range v.HideGlob {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
	}
	return false
}

// rootOnly: the view leaves out entries "other" may not read (a root
// caller's /etc, policy/view_private.go) and e is one, not kept by name.
func rootOnly(v policy.ViewDir, e entry) bool {
	return v.HideRoot && policy.RootOnly(e.mode) && !slices.Contains(v.KeepRoot, e.name)
}

// describe turns a listed name into an entry, looked at (fstatat) when
// stat is set; ok is false when the name vanished since the listing, or
// stopped being a symlink before the readlink (replaced: see
// synth_vanish_linux.go).
func describe(under int, de fs.DirEntry, link *[]byte, stat bool) (entry, bool, error) {
	e := entry{name: de.Name(), kind: typeKind(de.Type())}
	if stat {
		var st unix.Stat_t
		err := sys.Fstatat(under, de.Name(), &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			return entry{}, false, nil
		}
		if err != nil {
			return entry{}, false, err
		}
		e = entry{name: de.Name(), kind: kindOf(st.Mode), known: true, dev: st.Dev, ino: st.Ino, mode: st.Mode}
	}
	if e.kind != unix.S_IFLNK {
		return e, true, nil
	}
	if *link == nil {
		*link = make([]byte, unix.PathMax)
	}
	buf := *link
	n, err := sys.Readlinkat(under, e.name, buf)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL) {
		return entry{}, false, nil
	}
	if err != nil {
		return entry{}, false, err
	}
	e.target = string(buf[:n])
	return e, true, nil
}

// kindOf: directory, symlink, or the rest (bound onto an empty file).
func kindOf(mode uint32) uint32 {
	switch k := mode & unix.S_IFMT; k {
	case unix.S_IFDIR, unix.S_IFLNK:
		return k
	}
	return unix.S_IFREG
}

// typeKind is kindOf for a listed type (getdents' d_type; os.ReadDir
// looks a name up itself where the filesystem does not give one).
func typeKind(t fs.FileMode) uint32 {
	switch t.Type() {
	case fs.ModeDir:
		return unix.S_IFDIR
	case fs.ModeSymlink:
		return unix.S_IFLNK
	}
	return unix.S_IFREG
}

// placeholders creates each entry in the detached tmpfs: directories and
// empty files to bind onto, symlinks as they are on the host. The empty
// files are hard links of the first one: each name is its own dentry to
// mount on, and the tmpfs makes (and at exit evicts) one inode for them
// all, not one each. Every placeholder is covered by its bind or removed,
// so no member sees one.
func placeholders(mnt int, ents []entry) error {
	first := ""
	for _, e := range ents {
		var err error
		switch {
		case e.kind == unix.S_IFDIR:
			err = sys.Mkdirat(mnt, e.name, 0o755)
		case e.kind == unix.S_IFLNK:
			err = sys.Symlinkat(e.target, mnt, e.name)
		case first != "":
			err = sys.Linkat(mnt, first, mnt, e.name)
		default:
			err = sys.Mknodat(mnt, e.name, unix.S_IFREG|0o644, 0)
			first = e.name
		}
		if err != nil {
			return &MountError{Op: "create", Target: e.name, Err: err}
		}
	}
	return nil
}
