package gitguard

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// The index names the paths git compares with the work tree, and git
// status enters every gitlink (mode 160000) it names as a submodule, with
// that path's `.git` as its git directory, whatever the path: git checks
// paths when it writes them into the index, not when it reads them. A
// member that edits the index by hand can name `.git/x`, `../x` or any
// directory of a write grant outside the work tree, where no walk looks.
// So every protected git directory's index must name only paths git
// itself would write (verify_path); one that names another, or that
// cannot be read, is moved aside whole: git then sees nothing staged, and
// `git reset` rebuilds it from HEAD. The index is data: it is parsed, never
// taken as configuration.

// maxIndex bounds the index read, and its shared part's (Linux's own index
// is under 20 MiB, Chromium's about 60): the check holds each whole for a
// moment, and a larger one is moved aside like an unreadable one.
const maxIndex = 128 << 20

// maxNames bounds the bytes of entry paths one index may spell out. A
// version 4 index stores each path as a suffix of the one before, so a
// small file can spell out paths whose total length grows with the square
// of its entries (30,000 entries in 2 MB: 450 MB of paths); the parse
// judges each path as it goes and keeps none, and stops here.
const maxNames = 256 << 20

// checkIndex judges the index of the git directory open at fd.
func (g *Guard) checkIndex(res *Result, fd int, dir string) {
	e, ok, _ := lstatAt(fd, "index")
	if !ok {
		return
	}
	why, err := badIndex(fd, e)
	if err == nil && why == "" {
		return
	}
	if err != nil {
		why = "acbox cannot read it (" + err.Error() + ") to check which paths it names"
	}
	g.moveAt(res, fd, dir, "index", why+"; `git reset` rebuilds the index from HEAD")
	res.Findings[len(res.Findings)-1].Was = true
}

// badIndex says why the index is refused, "" when it is not; a split
// index's shared part (sharedindex.HASH) is judged with it.
func badIndex(fd int, e entry) (string, error) {
	if !e.isReg() {
		return "", errors.New("not a regular file")
	}
	b, err := readAll(fd, "index", maxIndex)
	if err != nil {
		return "", err
	}
	v, err := scanIndex(b)
	b = nil
	if err != nil {
		return "", err
	}
	bad := v.bad
	if v.shared != "" {
		// A split index writes the entries that replace shared ones
		// without a name: they take the shared entry's.
		sb, err := readAll(fd, "sharedindex."+v.shared, maxIndex)
		if err != nil {
			return "", fmt.Errorf("its shared index: %w", err)
		}
		sv, err := scanIndex(sb)
		if err != nil {
			return "", fmt.Errorf("its shared index: %w", err)
		}
		bad = cmp.Or(bad, sv.bad, sv.unnamed)
	} else {
		bad = cmp.Or(bad, v.unnamed)
	}
	if bad != nil {
		return fmt.Sprintf("it names %q, a path git never writes there, and git status would enter it as a submodule if it is a gitlink", bad.name), nil
	}
	return "", nil
}

// indexPath is one entry's path and mode.
type indexPath struct {
	name string
	mode uint32
}

// ok: the path is one git's verify_path accepts (relative, clean, no
// `.git` component in any case), with a trailing slash only on a sparse
// directory entry.
func (p indexPath) ok() bool {
	n := p.name
	if p.mode == 0o040000 {
		n = strings.TrimSuffix(n, "/")
	}
	if n == "" || n[0] == '/' || strings.IndexByte(n, 0) >= 0 {
		return false
	}
	for _, c := range strings.Split(n, "/") {
		if c == "" || c == "." || c == ".." || strings.EqualFold(c, ".git") {
			return false
		}
	}
	return true
}

// indexVerdict is what one index file says: its first entry whose path
// git never writes, its first entry without a path (which only a split
// index's replacements may have), and the hex hash of the shared index its
// link extension names ("" for none).
type indexVerdict struct {
	bad, unnamed *indexPath
	shared       string
}

// scanIndex parses an index file (versions 2 to 4) and judges each entry's
// path as it goes. The hash size (SHA-1 or SHA-256) is the repository's
// and is not in the file: both are tried, and when the file parses both
// ways, which a member could craft, the paths of both are judged, so that
// a path git reads is never left unjudged.
func scanIndex(b []byte) (indexVerdict, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return indexVerdict{}, errors.New("no index signature")
	}
	ver := binary.BigEndian.Uint32(b[4:8])
	if ver < 2 || ver > 4 {
		return indexVerdict{}, fmt.Errorf("index version %d", ver)
	}
	var out indexVerdict
	var shared []string
	var firstErr error
	parsed := false
	for _, hashLen := range []int{sha1.Size, 32} {
		v, err := parseIndex(b, ver, hashLen)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		parsed = true
		out.bad, out.unnamed = cmp.Or(out.bad, v.bad), cmp.Or(out.unnamed, v.unnamed)
		if v.shared != "" {
			shared = append(shared, v.shared)
		}
	}
	switch {
	case !parsed:
		return indexVerdict{}, firstErr
	case len(shared) > 1:
		return indexVerdict{}, errors.New("it reads two ways, each naming a shared index")
	case len(shared) == 1:
		out.shared = shared[0]
	}
	return out, nil
}

func parseIndex(b []byte, ver uint32, hashLen int) (indexVerdict, error) {
	n := int(binary.BigEndian.Uint32(b[8:12]))
	r := indexReader{b: b, off: 12, ver: ver, hashLen: hashLen}
	var v indexVerdict
	for i := 0; i < n; i++ {
		p, err := r.entry()
		if err != nil {
			return indexVerdict{}, fmt.Errorf("entry %d: %w", i, err)
		}
		switch {
		case p.name == "":
			v.unnamed = cmp.Or(v.unnamed, &p)
		case !p.ok():
			v.bad = cmp.Or(v.bad, &p)
		}
	}
	shared, err := r.extensions()
	v.shared = shared
	return v, err
}

// indexReader walks an index's entries in order.
type indexReader struct {
	b        []byte
	off      int
	ver      uint32
	hashLen  int
	previous string // version 4 compresses each path against the one before
	spelled  int    // bytes of paths so far (maxNames)
}

var errShort = errors.New("truncated")

func (r *indexReader) entry() (indexPath, error) {
	fixed := 40 + r.hashLen + 2
	if r.off+fixed > len(r.b) {
		return indexPath{}, errShort
	}
	start := r.off
	mode := binary.BigEndian.Uint32(r.b[start+24:])
	flags := binary.BigEndian.Uint16(r.b[start+40+r.hashLen:])
	if flags&0x4000 != 0 {
		if r.ver < 3 {
			return indexPath{}, errors.New("extended flags in a version 2 index")
		}
		fixed += 2
		if r.off+fixed > len(r.b) {
			return indexPath{}, errShort
		}
	}
	r.off = start + fixed
	keep := 0 // version 4: bytes of the previous path the name starts with
	if r.ver == 4 {
		drop, ok := r.varint()
		if !ok || drop > uint64(len(r.previous)) {
			return indexPath{}, errors.New("bad path compression")
		}
		keep = len(r.previous) - int(drop)
	}
	name, err := r.name(int(flags&0xfff), keep)
	if err != nil {
		return indexPath{}, err
	}
	r.previous = name
	if r.ver == 4 {
		r.off += len(name) - keep + 1
	} else {
		r.off = start + (fixed+len(name)+8)&^7 // NUL padding to a multiple of 8
	}
	if r.off > len(r.b) {
		return indexPath{}, errShort
	}
	return indexPath{name: name, mode: mode}, nil
}

// name is git's reading of an entry's path (read-cache.c): the length in
// the flags, unless it is 0xfff (too long to say), then up to the NUL;
// keep bytes of the previous path come first.
func (r *indexReader) name(flagLen, keep int) (string, error) {
	rest := r.b[r.off:]
	n := flagLen - keep
	if flagLen == 0xfff {
		n = bytes.IndexByte(rest, 0)
	}
	if n < 0 || n >= len(rest) {
		return "", errShort
	}
	if r.spelled += keep + n; r.spelled > maxNames {
		return "", fmt.Errorf("its paths add up to more than %d bytes", maxNames)
	}
	return r.previous[:keep] + string(rest[:n]), nil
}

// varint is git's offset varint (varint.c).
func (r *indexReader) varint() (uint64, bool) {
	var v uint64
	for i := 0; r.off < len(r.b) && i < 10; i++ {
		c := r.b[r.off]
		r.off++
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// extensions reads the extensions up to the trailing checksum, which must
// end the file, and returns the shared index a "link" extension names.
func (r *indexReader) extensions() (string, error) {
	shared := ""
	for len(r.b)-r.off > r.hashLen {
		if r.off+8 > len(r.b) {
			return "", errShort
		}
		sig := string(r.b[r.off : r.off+4])
		size := int(binary.BigEndian.Uint32(r.b[r.off+4:]))
		r.off += 8
		if size < 0 || size > len(r.b)-r.hashLen-r.off {
			return "", fmt.Errorf("extension %q overruns the file", sig)
		}
		if sig == "link" && size >= r.hashLen {
			if h := r.b[r.off : r.off+r.hashLen]; !bytes.Equal(h, make([]byte, r.hashLen)) {
				shared = hex.EncodeToString(h)
			}
		}
		r.off += size
	}
	if len(r.b)-r.off != r.hashLen {
		return "", errors.New("does not end with its checksum")
	}
	return shared, nil
}
