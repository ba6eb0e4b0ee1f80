package nsjail

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The binary encoding of the messages between the parent and pid 1
// (wire_proto.go): no reflection, so neither side pays encoding/json's type
// walk at launch. A frame is a 12-byte header (magic, version, kind, body
// length; little-endian) and a body of fields in a fixed order. Integers
// are little-endian, a string is its u32 length and its bytes, a list or
// map its u32 count plus one (0: nil, so nil and empty survive as they
// were) and its elements, a map's keys strictly ascending, a pointer a
// presence byte. Every length and count is bounded before anything is
// allocated from it, and a count must fit in the bytes left.

const (
	wireMagic   = 0x78626361 // "acbx"
	wireVersion = 2          // bump with every change of the field order (TestWireSchemaIsPinned)
	wireHeader  = 12
	maxFrame    = 8 << 20 // a plan with a 2 MiB environment fits several times
	maxString   = 1 << 20 // paths, arguments (MaxArgStrlen is 128 KiB), messages
	maxCount    = 1 << 16 // elements of one list or map
)

// Frame kinds.
const (
	frameConfig = 1 // parent to pid 1, once
	frameMsg    = 2 // pid 1 to parent, one per status message
)

// wenc appends fields; err is the first field over a limit.
type wenc struct {
	b   []byte
	err error
}

func (e *wenc) u8(v byte)      { e.b = append(e.b, v) }
func (e *wenc) u16(v uint16)   { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *wenc) u32(v uint32)   { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *wenc) u64(v uint64)   { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *wenc) i64(v int64)    { e.u64(uint64(v)) }
func (e *wenc) int(v int)      { e.i64(int64(v)) }
func (e *wenc) f64(v float64)  { e.u64(math.Float64bits(v)) }
func (e *wenc) bytes(b []byte) { e.count(len(b), b == nil); e.b = append(e.b, b...) }

func (e *wenc) bool(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}

func (e *wenc) str(s string) {
	if len(s) > maxString && e.err == nil {
		e.err = fmt.Errorf("a string of %d bytes, more than the %d a message may hold", len(s), maxString)
	}
	e.u32(uint32(len(s)))
	e.b = append(e.b, s...)
}

func (e *wenc) count(n int, isNil bool) {
	if n > maxCount && e.err == nil {
		e.err = fmt.Errorf("a list of %d entries, more than the %d a message may hold", n, maxCount)
	}
	if isNil {
		e.u32(0)
		return
	}
	e.u32(uint32(n) + 1)
}

func encList[T any](e *wenc, s []T, f func(*wenc, *T)) {
	e.count(len(s), s == nil)
	for i := range s {
		f(e, &s[i])
	}
}

func encMap[V any](e *wenc, m map[string]V, f func(*wenc, V)) {
	e.count(len(m), m == nil)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e.str(k)
		f(e, m[k])
	}
}

func encPtr[T any](e *wenc, p *T, f func(*wenc, *T)) {
	e.bool(p != nil)
	if p != nil {
		f(e, p)
	}
}

func encStrs(e *wenc, s []string) { encList(e, s, func(e *wenc, v *string) { e.str(*v) }) }

// wloc is one step of the decoder's position: a field, or a list index.
type wloc struct {
	name string
	idx  int // -1: a field
}

// wdec reads fields from b; after the first error every read returns the
// zero value and reads nothing, so lists end at once. s is b as a string:
// the decoded strings share it, one allocation for them all.
type wdec struct {
	b    []byte
	s    string
	off  int
	err  error
	path []wloc
}

func (d *wdec) push(name string) { d.path = append(d.path, wloc{name, -1}) }
func (d *wdec) at(i int)         { d.path[len(d.path)-1].idx = i }
func (d *wdec) pop()             { d.path = d.path[:len(d.path)-1] }

// where names the field being read, as config.plan.masks[2].path.
func (d *wdec) where(name string) string {
	var b strings.Builder
	for _, l := range d.path {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(l.name)
		if l.idx >= 0 {
			b.WriteString("[" + strconv.Itoa(l.idx) + "]")
		}
	}
	if name != "" {
		b.WriteString("." + name)
	}
	return b.String()
}

func (d *wdec) fail(name, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s (at byte %d): %s", d.where(name), d.off, fmt.Sprintf(format, args...))
	}
}

func (d *wdec) take(n int, name string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b)-d.off {
		d.fail(name, "truncated: %d bytes needed, %d left", n, len(d.b)-d.off)
		return nil
	}
	b := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

func (d *wdec) u8(name string) byte {
	if b := d.take(1, name); b != nil {
		return b[0]
	}
	return 0
}

func (d *wdec) u16(name string) uint16 {
	if b := d.take(2, name); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (d *wdec) u32(name string) uint32 {
	if b := d.take(4, name); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *wdec) u64(name string) uint64 {
	if b := d.take(8, name); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *wdec) i64(name string) int64 { return int64(d.u64(name)) }

func (d *wdec) int(name string) int {
	v := d.i64(name)
	if int64(int(v)) != v {
		d.fail(name, "%d does not fit in an int", v)
	}
	return int(v)
}

func (d *wdec) f64(name string) float64 {
	v := math.Float64frombits(d.u64(name))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.fail(name, "not a finite number")
		return 0
	}
	return v
}

func (d *wdec) bool(name string) bool {
	switch v := d.u8(name); v {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail(name, "%d is not a boolean", v)
		return false
	}
}

func (d *wdec) str(name string) string {
	n := d.u32(name)
	if n > maxString {
		d.fail(name, "a string of %d bytes, more than the %d allowed", n, maxString)
		return ""
	}
	start := d.off
	if d.take(int(n), name) == nil {
		return ""
	}
	return d.s[start:d.off]
}

// count reads a list's or map's count; each element takes at least min
// bytes, so a count the rest of the body cannot hold is refused before
// anything is allocated for it.
func (d *wdec) count(name string, min int) (n int, isNil bool) {
	v := d.u32(name)
	if d.err != nil || v == 0 {
		return 0, true
	}
	n = int(v - 1)
	switch left := len(d.b) - d.off; {
	case n > maxCount:
		d.fail(name, "%d entries, more than the %d allowed", n, maxCount)
	case n*min > left:
		d.fail(name, "%d entries cannot fit in the %d bytes left", n, left)
	}
	return n, d.err != nil
}

func (d *wdec) bytes(name string) []byte {
	n, isNil := d.count(name, 1)
	if isNil {
		return nil
	}
	return append([]byte{}, d.take(n, name)...)
}

func decList[T any](d *wdec, name string, min int, f func(*wdec, *T)) []T {
	n, isNil := d.count(name, min)
	if isNil {
		return nil
	}
	out := make([]T, n)
	d.push(name)
	for i := 0; i < n && d.err == nil; i++ {
		d.at(i)
		f(d, &out[i])
	}
	d.pop()
	return out
}

func decMap[V any](d *wdec, name string, min int, f func(*wdec) V) map[string]V {
	n, isNil := d.count(name, 4+min)
	if isNil {
		return nil
	}
	m := make(map[string]V, n)
	d.push(name)
	prev := ""
	for i := 0; i < n && d.err == nil; i++ {
		d.at(i)
		k := d.str("key")
		if i > 0 && k <= prev {
			d.fail("key", "keys out of order or repeated")
		}
		prev = k
		m[k] = f(d)
	}
	d.pop()
	return m
}

func decPtr[T any](d *wdec, name string, f func(*wdec, *T)) *T {
	if !d.bool(name) || d.err != nil {
		return nil
	}
	v := new(T)
	d.push(name)
	f(d, v)
	d.pop()
	return v
}

func decStrs(d *wdec, name string) []string {
	return decList(d, name, 4, func(d *wdec, v *string) { *v = d.str("") })
}

// errOtherBuild is the remedy every header error carries.
var errOtherBuild = errors.New("the launching acbox and the binary it runs as pid 1 must be the same build")

// newFrame is an encoder whose buffer starts with room for the header.
func newFrame(size int) *wenc { return &wenc{b: make([]byte, wireHeader, size)} }

// header fills in the frame's header, before its body.
func header(b []byte, kind uint16) {
	binary.LittleEndian.PutUint32(b[0:], wireMagic)
	binary.LittleEndian.PutUint16(b[4:], wireVersion)
	binary.LittleEndian.PutUint16(b[6:], kind)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(b)-wireHeader))
}

// checkHeader returns the body length a frame header announces.
func checkHeader(h []byte, kind uint16) (int, error) {
	if len(h) > 0 && h[0] == '{' {
		return 0, fmt.Errorf("a JSON message, as an acbox build before the binary protocol sends; %w", errOtherBuild)
	}
	if len(h) < wireHeader {
		return 0, fmt.Errorf("truncated header: %d of %d bytes", len(h), wireHeader)
	}
	if m := binary.LittleEndian.Uint32(h); m != wireMagic {
		return 0, fmt.Errorf("not an acbox message (magic %#x); %w", m, errOtherBuild)
	}
	if v := binary.LittleEndian.Uint16(h[4:]); v != wireVersion {
		return 0, fmt.Errorf("protocol version %d, this build speaks %d; %w", v, wireVersion, errOtherBuild)
	}
	if k := binary.LittleEndian.Uint16(h[6:]); k != kind {
		return 0, fmt.Errorf("a message of kind %d where kind %d belongs; %w", k, kind, errOtherBuild)
	}
	n := binary.LittleEndian.Uint32(h[8:])
	if n > maxFrame {
		return 0, fmt.Errorf("a message of %d bytes, more than the %d allowed", n, maxFrame)
	}
	return int(n), nil
}
