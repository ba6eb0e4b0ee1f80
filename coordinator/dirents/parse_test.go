package dirents

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// record is one linux_dirent64 for name, padded to 8 bytes.
func record(name string, typ uint8) []byte {
	n := (nameOff + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b, 1)
	binary.NativeEndian.PutUint16(b[reclenOff:], uint16(n))
	b[typeOff] = typ
	copy(b[nameOff:], name)
	return b
}

func TestParse(t *testing.T) {
	recs := bytes.Join([][]byte{record(".", 4), record("..", 4), record("a", 8), record("a-much-longer-name", 4)}, nil)
	var got []string
	if err := Parse(recs, func(name []byte, typ uint8) bool { got = append(got, string(name)); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "a-much-longer-name" {
		t.Errorf("got %q", got)
	}
	stopped := 0
	Parse(recs, func([]byte, uint8) bool { stopped++; return false })
	if stopped != 1 {
		t.Errorf("fn returning false: called %d times", stopped)
	}
	for _, bad := range [][]byte{recs[:len(recs)-1], recs[:10], append(record("x", 8)[:16], 0, 0, 0, 0)} {
		if err := Parse(bad, func([]byte, uint8) bool { return true }); !errors.Is(err, ErrMalformed) {
			t.Errorf("%x: got %v, want ErrMalformed", bad, err)
		}
	}
}

// FuzzParse: any bytes give entries that lie inside the buffer, or
// ErrMalformed; never a panic or a loop.
func FuzzParse(f *testing.F) {
	f.Add(bytes.Join([][]byte{record(".", 4), record("name", 8)}, nil))
	f.Add(record("x", 0)[:nameOff])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, recs []byte) {
		n := 0
		err := Parse(recs, func(name []byte, _ uint8) bool {
			n++
			if len(name) == 0 || bytes.IndexByte(name, 0) >= 0 {
				t.Fatalf("name %q", name)
			}
			return true
		})
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
		if n > len(recs)/nameOff {
			t.Fatalf("%d entries from %d bytes", n, len(recs))
		}
	})
}
