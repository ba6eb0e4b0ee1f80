package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func frame(kind byte, payload string) string {
	h := make([]byte, 8)
	h[0] = kind
	binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
	return string(h) + payload
}

func TestDemux(t *testing.T) {
	cases := []struct {
		name, in, out, errout, err string
	}{
		{"empty", "", "", "", ""},
		{"stdout and stderr interleaved", frame(1, "a") + frame(2, "b") + frame(1, "c"), "ac", "b", ""},
		{"stdin frames go to stdout", frame(0, "x"), "x", "", ""},
		{"empty frame", frame(1, "") + frame(1, "z"), "z", "", ""},
		{"ends inside a header", frame(1, "a") + "\x01\x00\x00", "a", "", ""},
		{"ends inside a frame", frame(1, "a") + frame(2, "bcd")[:10], "a", "bc", ""},
		{"daemon error", frame(1, "a") + frame(3, "container gone") + frame(1, "never"), "a", "", "error from daemon in stream: container gone"},
		{"unknown kind", frame(7, "x"), "", "", "unknown stream kind 7"},
	}
	for _, c := range cases {
		var out, errout bytes.Buffer
		n, err := Demux(&out, &errout, strings.NewReader(c.in))
		if out.String() != c.out || errout.String() != c.errout || int(n) != len(c.out)+len(c.errout) {
			t.Errorf("%s: out %q err %q n %d; want %q %q", c.name, out.String(), errout.String(), n, c.out, c.errout)
		}
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: error %v; want %q", c.name, err, c.err)
		}
	}
}

type failWriter struct{}

var errWrite = errors.New("write failed")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestDemuxWriteError(t *testing.T) {
	if _, err := Demux(failWriter{}, failWriter{}, strings.NewReader(frame(1, "a"))); !errors.Is(err, errWrite) {
		t.Errorf("write failure: %v", err)
	}
}

// FuzzDemux: any input ends the copy without a panic, and the output is
// never more than the input.
func FuzzDemux(f *testing.F) {
	f.Add([]byte(frame(1, "a") + frame(2, "b")))
	f.Add([]byte(frame(3, "x")))
	f.Add([]byte("\x01\x00\x00\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out, errout bytes.Buffer
		n, _ := Demux(&out, &errout, bytes.NewReader(in))
		if int(n) != out.Len()+errout.Len() || int(n) > len(in) {
			t.Fatalf("wrote %d (%d+%d) from %d bytes", n, out.Len(), errout.Len(), len(in))
		}
	})
}
