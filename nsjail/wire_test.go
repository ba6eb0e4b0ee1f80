package nsjail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// notCarried are the unexported fields of the carried types, which the
// encoding leaves with the parent: pid 1 does not read them (wire_plan.go).
// An unexported field not listed here fails TestWireRoundTrip: decide
// whether pid 1 needs it.
var notCarried = map[string]bool{
	"policy.Plan.listings":  true,
	"policy.Plan.requester": true,
}

// filler gives every field it can reach a distinct non-zero value: two
// elements per list and map, every pointer set.
type filler struct {
	t *testing.T
	n int
}

func (f *filler) fill(v reflect.Value, where string) {
	f.n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.n) + 0.25)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), where)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			f.fill(v.Index(i), fmt.Sprintf("%s[%d]", where, i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, where+".key")
			f.fill(e, where+".value")
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			if !sf.IsExported() {
				if name := v.Type().String() + "." + sf.Name; !notCarried[name] {
					f.t.Errorf("%s: unexported field %s is neither carried to pid 1 nor listed in notCarried", where, name)
				}
				continue
			}
			f.fill(v.Field(i), where+"."+sf.Name)
		}
	default:
		f.t.Fatalf("%s: a %s field: teach the filler and the encoding", where, v.Kind())
	}
}

func filled[T any](t *testing.T) T {
	var v T
	(&filler{t: t}).fill(reflect.ValueOf(&v).Elem(), reflect.TypeOf(v).Name())
	return v
}

// TestWireRoundTrip: every field of the config (the whole plan, the
// network policy within it) and of a status message (the report) reaches
// the other side. A field added to any of these types and not carried by
// wire_plan.go or wire_proto.go fails here: a mask or a grant dropped on
// the way to pid 1 would not be enforced.
func TestWireRoundTrip(t *testing.T) {
	cfg := filled[helperConfig](t)
	b, err := encodeConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, cfg) {
		t.Errorf("config changed on the way: %s", firstDiff(reflect.ValueOf(*got), reflect.ValueOf(cfg), "helperConfig"))
	}
	msg := filled[helperMsg](t)
	m, err := decodeMsg(encodeMsg(msg))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, msg) {
		t.Errorf("status message changed on the way: %s", firstDiff(reflect.ValueOf(m), reflect.ValueOf(msg), "helperMsg"))
	}
}

// firstDiff names the first field where got and want differ: the one the
// encoding does not carry.
func firstDiff(got, want reflect.Value, where string) string {
	switch want.Kind() {
	case reflect.Pointer:
		if got.IsNil() != want.IsNil() {
			return where + ": nil on one side only"
		}
		if !want.IsNil() {
			return firstDiff(got.Elem(), want.Elem(), where)
		}
	case reflect.Struct:
		for i := range want.NumField() {
			if f := want.Type().Field(i); f.IsExported() {
				if d := firstDiff(got.Field(i), want.Field(i), where+"."+f.Name); d != "" {
					return d
				}
			}
		}
	case reflect.Slice:
		if got.Len() != want.Len() || got.IsNil() != want.IsNil() {
			return fmt.Sprintf("%s: %d entries (nil %v), want %d (nil %v)", where, got.Len(), got.IsNil(), want.Len(), want.IsNil())
		}
		for i := range want.Len() {
			if d := firstDiff(got.Index(i), want.Index(i), fmt.Sprintf("%s[%d]", where, i)); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			return fmt.Sprintf("%s: got %v, want %v", where, got.Interface(), want.Interface())
		}
	}
	return ""
}

// TestWireKeepsNilAndEmpty: a nil list or map and an empty one stay what
// they were (the report's JSON tells null from []).
func TestWireKeepsNilAndEmpty(t *testing.T) {
	for _, cfg := range []helperConfig{
		{},
		{Plan: &policy.Plan{}},
		{Plan: &policy.Plan{Command: []string{}, Labels: map[string]string{}, Masks: []policy.Mask{}}, Idents: []ident{}, CgroupLeaves: []int{}},
	} {
		b, err := encodeConfig(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeConfig(b)
		if err != nil || !reflect.DeepEqual(*got, cfg) {
			t.Errorf("%+v: got %+v, %v", cfg, got, err)
		}
	}
	for _, m := range []helperMsg{{}, {Kind: "ready", Report: &policy.Report{Mounts: []policy.MountRecord{}, Landlock: []byte{}, PhasesMS: map[string]float64{}}}} {
		got, err := decodeMsg(encodeMsg(m))
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%+v: got %+v, %v", m, got, err)
		}
	}
}

// wireSchema describes the carried types: every field's name and kind,
// recursively.
func wireSchema(t reflect.Type, seen map[reflect.Type]bool, b *strings.Builder) {
	fmt.Fprintf(b, "%s:%s", t.String(), t.Kind())
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		b.WriteString("<")
		wireSchema(t.Elem(), seen, b)
		b.WriteString(">")
	case reflect.Map:
		b.WriteString("<")
		wireSchema(t.Key(), seen, b)
		wireSchema(t.Elem(), seen, b)
		b.WriteString(">")
	case reflect.Struct:
		if seen[t] {
			return
		}
		seen[t] = true
		b.WriteString("{")
		for i := range t.NumField() {
			f := t.Field(i)
			b.WriteString(f.Name + " ")
			if f.IsExported() {
				wireSchema(f.Type, seen, b)
			}
			b.WriteString(";")
		}
		b.WriteString("}")
	}
}

// The schema the current wireVersion encodes.
const (
	pinnedSchema  = "a433efba40939324"
	pinnedVersion = 2
)

// TestWireSchemaIsPinned: a change to a carried type must come with a new
// wireVersion, so a pid 1 of the build before refuses the frame at its
// header instead of reading fields out of place.
func TestWireSchemaIsPinned(t *testing.T) {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	wireSchema(reflect.TypeFor[helperConfig](), seen, &b)
	wireSchema(reflect.TypeFor[helperMsg](), seen, &b)
	sum := sha256.Sum256([]byte(b.String()))
	got := hex.EncodeToString(sum[:8])
	if got != pinnedSchema || wireVersion != pinnedVersion {
		t.Errorf("the types carried to pid 1 are schema %s at wireVersion %d; pinned: %s at %d.\n"+
			"Carry the change in wire_plan.go or wire_proto.go, bump wireVersion, and pin the schema and version here.",
			got, wireVersion, pinnedSchema, pinnedVersion)
	}
}

// TestWireRefuses: a frame that is cut short, carries more, is of another
// build or breaks a limit is refused with an error that names where.
func TestWireRefuses(t *testing.T) {
	cfg := filled[helperConfig](t)
	good, _ := encodeConfig(&cfg)
	for i := range len(good) {
		if _, err := decodeConfig(good[:i]); err == nil || !strings.Contains(err.Error(), "config") {
			t.Fatalf("cut at %d of %d: %v", i, len(good), err)
		}
	}
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return b
	}
	body := func(f func(e *wenc)) []byte {
		e := newFrame(64)
		f(e)
		header(e.b, frameMsg)
		return e.b
	}
	str := func(e *wenc) { e.str("ready") }
	for _, tc := range []struct {
		name, want string
		b          []byte
		msg        bool
	}{
		{"trailing", "bytes after the message", append(bytes.Clone(good), 0), false},
		{"longer body", "bytes after the last field", append(patch(8, byte(len(good)-wireHeader+1)), 0), false},
		{"version", "protocol version 3, this build speaks 2; the launching acbox and the binary it runs as pid 1 must be the same build", patch(4, 3), false},
		{"magic", "not an acbox message", patch(0, 'x'), false},
		{"kind", "kind 2 where kind 1", patch(6, 2), false},
		{"json", "a JSON message, as an acbox build before", []byte(`{"id":"a","plan":{"command":["true"]}}` + "\n"), false},
		{"huge frame", "more than the 8388608 allowed", patch(8, 0xff, 0xff, 0xff, 0x7f), false},
		{"huge string", "config.id (at byte 4): a string of 4294967295 bytes", patch(wireHeader, 0xff, 0xff, 0xff, 0xff), false},
		{"bool", "status.report (at byte 10): 2 is not a boolean", body(func(e *wenc) { str(e); e.u8(2) }), true},
		{"count", "status.report.namespaces (at byte 22): 65537 entries, more than the 65536 allowed", body(func(e *wenc) { str(e); e.u8(1); e.str(""); e.str(""); e.u32(maxCount + 2) }), true},
		{"no room", "status.report.mounts (at byte 26): 1000 entries cannot fit in the 0 bytes left", body(func(e *wenc) {
			str(e)
			e.u8(1)
			e.str("")
			e.str("")
			e.u32(0)
			e.u32(1001)
		}), true},
		{"key order", "status.report.namespaces[1].key (at byte 40): keys out of order or repeated", body(func(e *wenc) {
			str(e)
			e.u8(1)
			e.str("")
			e.str("")
			e.u32(3)
			e.str("b")
			e.u64(1)
			e.str("a")
			e.u64(1)
		}), true},
	} {
		var err error
		if tc.msg {
			_, err = decodeMsg(tc.b)
		} else {
			_, err = decodeConfig(tc.b)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}
