package dirents

import (
	"os"

	"github.com/acbox/acbox/coordinator/sys"
)

// bufSize holds a few hundred entries: most directories in one call.
const bufSize = 32 << 10

// Reader reads directories into one buffer it reuses; not for concurrent
// use, nor for a nested read (a walk keeps one Reader per level). The zero
// Reader is ready, with a 32 KiB buffer.
type Reader struct{ buf []byte }

// NewReader is a Reader with a buffer of size bytes (at least 1 KiB, so
// that any one record fits).
func NewReader(size int) *Reader { return &Reader{buf: make([]byte, max(size, 1<<10))} }

// Each calls fn(name, typ) for every entry of the directory open at fd
// (named path in errors) but "." and "..", in the kernel's order, until fn
// returns false. name is valid only during the call. With keep non-nil,
// the raw records read are appended to *keep (see [Parse]).
func (r *Reader) Each(fd int, path string, keep *[]byte, fn func(name []byte, typ uint8) bool) error {
	if r.buf == nil {
		r.buf = make([]byte, bufSize)
	}
	for {
		n, err := sys.Getdents(fd, path, r.buf)
		if err != nil || n <= 0 {
			return err
		}
		if keep != nil {
			*keep = append(*keep, r.buf[:n]...)
		}
		stop := false
		if err := Parse(r.buf[:n], func(name []byte, typ uint8) bool {
			stop = !fn(name, typ)
			return !stop
		}); err != nil {
			return &os.PathError{Op: "getdents64", Path: path, Err: err}
		}
		if stop {
			return nil
		}
	}
}
