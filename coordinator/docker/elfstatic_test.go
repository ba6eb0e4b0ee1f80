package docker

import (
	"bytes"
	"debug/elf"
	"os"
	"slices"
	"testing"
)

// elfSeeds: real binaries of this host, when present: a static busybox, a
// dynamic shell, and the test binary.
func elfSeeds() map[string][]byte {
	out := map[string][]byte{}
	for _, p := range []string{"/bin/busybox", "/bin/sh", "/proc/self/exe"} {
		if b, err := os.ReadFile(p); err == nil {
			out[p] = b
		}
	}
	return out
}

// debugELF is the verdict of debug/elf, which dynamicELF replaced.
func debugELF(b []byte) (dynamic bool, err error) {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP }), nil
}

// TestDynamicELF: on this host's binaries and on damaged copies,
// dynamicELF agrees with debug/elf.
func TestDynamicELF(t *testing.T) {
	seeds := elfSeeds()
	if len(seeds) == 0 {
		t.Skip("no ELF binary to read")
	}
	for name, b := range seeds {
		for _, c := range []struct {
			what string
			b    []byte
		}{
			{"whole", b},
			{"header only", b[:min(len(b), 64)]},
			{"cut in the program headers", b[:min(len(b), 100)]},
			{"not ELF", append([]byte("#!"), b[2:]...)},
		} {
			want, wantErr := debugELF(c.b)
			got, err := dynamicELF(c.b)
			if got != want || (err != nil) != (wantErr != nil) {
				t.Errorf("%s, %s: dynamicELF = %v, %v; debug/elf: %v, %v", name, c.what, got, err, want, wantErr)
			}
		}
	}
	if b, ok := seeds["/bin/sh"]; ok {
		if d, err := dynamicELF(b); err != nil || !d {
			t.Errorf("/bin/sh (dynamically linked on Debian): %v, %v", d, err)
		}
	}
}

// FuzzDynamicELF: dynamicELF never panics, reads a file debug/elf reads
// with the same verdict, and refuses only what debug/elf refuses too (it
// reads no sections, so it may accept a file whose sections debug/elf
// cannot read).
func FuzzDynamicELF(f *testing.F) {
	for _, b := range elfSeeds() {
		f.Add(b[:min(len(b), 4096)])
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := dynamicELF(b)
		want, wantErr := debugELF(b)
		if wantErr == nil && (err != nil || got != want) {
			t.Fatalf("dynamicELF = %v, %v; debug/elf reads it: dynamic %v", got, err, want)
		}
	})
}
