package exitscan

import (
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/dirents"
	"github.com/acbox/acbox/coordinator/sys"
)

// The walk before the run (--report) over what the repository search read
// a moment before (policy.Listings): a listed directory's entries come from
// the search's records, and the directory is opened only when an entry
// needs a stat or a readlink, or a subdirectory was not listed. Everything
// the walk records is still looked at now (fstatat, readlinkat); only the
// names are the search's. The walk after the run never takes this path:
// what the member did is always read from the kernel.

// lazyDir is a listed directory's descriptor, opened on first use.
type lazyDir struct {
	open   func() (int, bool)
	fd     int
	opened bool
}

func (d *lazyDir) get() (int, bool) {
	if !d.opened {
		d.opened = true
		fd, ok := d.open()
		if !ok {
			fd = -1
		}
		d.fd = fd
	}
	return d.fd, d.fd >= 0
}

func (d *lazyDir) close() {
	if d.fd >= 0 {
		sys.Close(d.fd)
	}
}

// listedDir walks the directory path (depth levels below its grant) whose
// records are recs; open opens it when needed.
func (w *walker) listedDir(open func() (int, bool), path string, recs []byte, depth int) {
	d := &lazyDir{open: open, fd: -1}
	defer d.close()
	dirents.Parse(recs, func(name []byte, typ uint8) bool { // recs parsed once already
		if w.left--; w.left < 0 {
			return false
		}
		if typ == unix.DT_DIR {
			w.listedSub(d, path, string(name), depth)
		} else if fd, ok := d.get(); ok {
			w.entry(fd, path, string(name), typ, depth)
		}
		return true
	})
}

// listedSub is sub for a listed directory's subdirectory name.
func (w *walker) listedSub(parent *lazyDir, dir, name string, depth int) {
	path := filepath.Join(dir, name)
	if w.roots[path] {
		return
	}
	recs, ok := w.listed.Dir(path)
	if !ok || depth+1 > maxDepth {
		if fd, ok := parent.get(); ok {
			w.sub(fd, dir, name, depth)
		}
		return
	}
	w.listedDir(func() (int, bool) {
		fd, ok := parent.get()
		if !ok {
			return -1, false
		}
		return w.openDir(fd, name, path)
	}, path, recs, depth+1)
}
