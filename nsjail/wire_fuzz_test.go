package nsjail

import (
	"bytes"
	"reflect"
	"runtime"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// checkDecoded: what decodes encodes back to the same bytes (one encoding
// per value), decodes again to an equal value, and cost memory in
// proportion to its size, not to the counts it claims.
func checkDecoded[T any](t *testing.T, b []byte, dec func([]byte) (T, error), enc func(T) ([]byte, error)) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, err := dec(b)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64*uint64(len(b))+64<<10 {
		t.Fatalf("decoding %d bytes allocated %d", len(b), alloc)
	}
	if err != nil {
		return
	}
	b2, err := enc(v)
	if err != nil {
		t.Fatalf("decoded, then not encodable: %v", err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatalf("two encodings of one value:\n%x\n%x", b, b2)
	}
	v2, err := dec(b2)
	if err != nil || !reflect.DeepEqual(v, v2) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, v, v2)
	}
}

func FuzzDecodeConfig(f *testing.F) {
	for _, c := range []helperConfig{{}, {Plan: &policy.Plan{Command: []string{"true"}}}, filled[helperConfig](&testing.T{}), benchConfig(f)} {
		b, err := encodeConfig(&c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecoded(t, b, decodeConfig, encodeConfig)
	})
}

func FuzzDecodeMsg(f *testing.F) {
	for _, m := range []helperMsg{{}, {Kind: "exit", Code: 3}, filled[helperMsg](&testing.T{})} {
		f.Add(encodeMsg(m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecoded(t, b, decodeMsg, func(m helperMsg) ([]byte, error) { return encodeMsgFrame(&m) })
	})
}
