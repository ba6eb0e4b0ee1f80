package probe

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
)

// gitlinkIndex is a version 2 index, as git writes one, whose only entry
// is a gitlink (mode 160000) at path. git refuses to write such a path
// itself (`.git/x`, `../x`), but reads it back without a check, and git
// status then enters path/.git as a submodule. The escape suite writes it
// on the host (it needs no git) for the member to copy into place.
func gitlinkIndex(path string) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, [2]uint32{2, 1})
	start := b.Len()
	b.Write(make([]byte, 24))
	binary.Write(&b, binary.BigEndian, uint32(0o160000))
	b.Write(make([]byte, 12))
	b.Write(bytes.Repeat([]byte{0x11}, 20)) // the commit the gitlink names
	binary.Write(&b, binary.BigEndian, uint16(len(path)))
	b.WriteString(path)
	for b.Len()-start < (62+len(path)+8)&^7 {
		b.WriteByte(0)
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// indexNames reports whether the index at proj still names path, the
// gitlink a scenario planted.
func indexNames(proj, path string) bool {
	b, err := os.ReadFile(filepath.Join(proj, ".git", "index"))
	return err == nil && bytes.Contains(b, append([]byte(path), 0))
}

// cutIndex is a version 3 index of one entry whose extended-flags bit is
// set, the file ending where those flags would be (74 bytes).
func cutIndex() []byte {
	e := make([]byte, 62)
	binary.BigEndian.PutUint32(e[24:], 0o100644)
	binary.BigEndian.PutUint16(e[60:], 0x4000|1)
	return append([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01"), e...)
}

// bombIndex is a version 4 index of 30,000 entries, each keeping the whole
// path before it and adding a byte: 2 MB of file, 450 MB of paths.
func bombIndex() []byte {
	const n = 30000
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, [2]uint32{4, n})
	e := make([]byte, 62)
	binary.BigEndian.PutUint32(e[24:], 0o100644)
	binary.BigEndian.PutUint16(e[60:], 0xfff)
	for i := 0; i < n; i++ {
		b.Write(e)
		b.Write([]byte{0, 'a', 0}) // drop nothing, add "a"
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}
