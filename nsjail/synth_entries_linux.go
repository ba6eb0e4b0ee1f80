package nsjail

import (
	"errors"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/dirents"
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

// lister calls fn(name, type) for each entry of the directory open at fd
// (named path in errors) but "." and "..", in the kernel's order, until fn
// returns false; type is getdents' d_type, DT_UNKNOWN where the file
// system gives none. nil is getdents ([dirents.Reader]); tests list
// DT_UNKNOWN through it.
type lister func(fd int, path string, fn func(name []byte, typ uint8) bool) error

func getdents(fd int, path string, fn func(name []byte, typ uint8) bool) error {
	return dirents.NewReader(8<<10).Each(fd, path, nil, fn)
}

// listEntries reads the host directory open at under and keeps every name
// the view does not hide (by name, by pattern, or as root-only), with its
// type; a name stat says must be known gets its identity too (fstatat, not
// following a symlink or crossing into a mount the name is not); a
// symlink's target is read where it is one. A name gone by the time it is
// looked at is left out: the host no longer has it.
//
// The listing is read from the descriptor and a name whose type it does
// not give (DT_UNKNOWN) is looked at with fstatat relative to that same
// descriptor: never by path (os.File.ReadDir's lstat of path/name), which
// in pid 1's namespace can lead into a parent's half-built snapshot, where
// the name is not (a child view's path).
func listEntries(under int, v policy.ViewDir, stat func(name string) bool, list lister) ([]entry, error) {
	if list == nil {
		list = getdents
	}
	fd, err := sys.Openat(under, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &MountError{Op: "open", Source: v.Path, Err: err}
	}
	defer sys.Close(fd)
	var out []entry
	var link []byte // readlink's buffer, shared by the entries
	var descErr error
	err = list(fd, v.Path, func(b []byte, typ uint8) bool {
		name := string(b)
		if hidden(v, name) {
			return true
		}
		e, ok, err := describe(fd, name, typ, &link, stat(name))
		if err != nil {
			descErr = &MountError{Op: "fstatat/readlink", Source: filepath.Join(v.Path, name), Err: err}
			return false
		}
		if ok && e.known && rootOnly(v, e) {
			return true
		}
		if ok {
			e.bare = v.Path == "/" && slices.Contains(privateInHostView, e.name) && e.kind == unix.S_IFDIR
			out = append(out, e)
		}
		return true
	})
	if err != nil {
		return nil, &MountError{Op: "getdents", Source: v.Path, Err: err}
	}
	if descErr != nil {
		return nil, descErr
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
	defer sys.Close(fd)
	var names []string
	err = getdents(fd, path, func(b []byte, _ uint8) bool {
		names = append(names, string(b))
		return true
	})
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
// stat is set or the listing gave no type (DT_UNKNOWN; then only the kind
// is kept, as if listed); ok is false when the name vanished since the
// listing, or stopped being a symlink before the readlink (replaced: see
// synth_vanish_linux.go).
func describe(dir int, name string, typ uint8, link *[]byte, stat bool) (entry, bool, error) {
	e := entry{name: name, kind: typeKind(typ)}
	if stat || typ == unix.DT_UNKNOWN {
		var st unix.Stat_t
		err := sys.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			return entry{}, false, nil
		}
		if err != nil {
			return entry{}, false, err
		}
		e.kind = kindOf(st.Mode)
		if stat {
			e.known, e.dev, e.ino, e.mode = true, st.Dev, st.Ino, st.Mode
		}
	}
	if e.kind != unix.S_IFLNK {
		return e, true, nil
	}
	if *link == nil {
		*link = make([]byte, unix.PathMax)
	}
	buf := *link
	n, err := sys.Readlinkat(dir, e.name, buf)
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

// typeKind is kindOf for a listed type (getdents' d_type; DT_UNKNOWN is
// looked at by describe).
func typeKind(t uint8) uint32 {
	switch t {
	case unix.DT_DIR:
		return unix.S_IFDIR
	case unix.DT_LNK:
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
