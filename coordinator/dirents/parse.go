package dirents

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// ErrMalformed: a record that does not fit the buffer it is in.
var ErrMalformed = errors.New("malformed directory record")

// A linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1),
// then the name, NUL-terminated and padded to 8 bytes.
const (
	reclenOff = 16
	typeOff   = 18
	nameOff   = 19
)

// Parse calls fn(name, typ) for each record in recs (getdents64's output)
// but "." and "..", in order, until fn returns false; typ is d_type
// (unix.DT_DIR, DT_LNK, ..., DT_UNKNOWN). name points into recs. A record
// whose length does not fit is ErrMalformed (nothing after it is read).
func Parse(recs []byte, fn func(name []byte, typ uint8) bool) error {
	for len(recs) > 0 {
		if len(recs) < nameOff {
			return ErrMalformed
		}
		n := int(binary.NativeEndian.Uint16(recs[reclenOff:]))
		if n < nameOff || n > len(recs) {
			return ErrMalformed
		}
		rec := recs[:n]
		recs = recs[n:]
		name := rec[nameOff:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || dot(name) {
			continue
		}
		if !fn(name, rec[typeOff]) {
			return nil
		}
	}
	return nil
}

func dot(name []byte) bool {
	return len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.'
}
