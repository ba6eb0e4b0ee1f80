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
