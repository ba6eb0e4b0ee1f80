package gitguard

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ent is one index entry to encode.
type ent struct {
	name string
	mode uint32
}

// encodeIndex writes an index as git does: version 2, 3 or 4, SHA-1
// sized hashes, the given extensions, and a checksum.
func encodeIndex(ver uint32, ents []ent, ext []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, ver)
	binary.Write(&b, binary.BigEndian, uint32(len(ents)))
	prev := ""
	for _, e := range ents {
		start := b.Len()
		b.Write(make([]byte, 24))
		binary.Write(&b, binary.BigEndian, e.mode)
		b.Write(make([]byte, 12+20))
		binary.Write(&b, binary.BigEndian, uint16(min(len(e.name), 0xfff)))
		if ver == 4 {
			common := 0
			for common < len(prev) && common < len(e.name) && prev[common] == e.name[common] {
				common++
			}
			b.WriteByte(byte(len(prev) - common)) // small: one varint byte
			b.WriteString(e.name[common:])
			b.WriteByte(0)
			prev = e.name
			continue
		}
		b.WriteString(e.name)
		for pad := (b.Len()-start+8)&^7 - (b.Len() - start); pad > 0; pad-- {
			b.WriteByte(0)
		}
	}
	b.Write(ext)
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

func TestIndexPaths(t *testing.T) {
	file, link := uint32(0o100644), uint32(0o160000)
	good := []ent{{"a", file}, {"src/deep/x.go", file}, {"vendor/lib", link}}
	link40 := append([]byte("link\x00\x00\x00\x14"), bytes.Repeat([]byte{0xab}, 20)...)
	for _, c := range []struct {
		name   string
		index  []byte
		bad    bool   // a path git never writes
		err    bool   // unreadable
		shared string // the shared index named
	}{
		{"v2 clean", encodeIndex(2, good, nil), false, false, ""},
		{"v3 clean", encodeIndex(3, good, nil), false, false, ""},
		{"v4 clean", encodeIndex(4, good, nil), false, false, ""},
		{"gitlink in .git", encodeIndex(2, append(good, ent{".git/evil", link}), nil), true, false, ""},
		{"gitlink in .GIT", encodeIndex(4, append(good, ent{"x/.GIT/evil", link}), nil), true, false, ""},
		{"gitlink above the work tree", encodeIndex(2, append(good, ent{"../evil", link}), nil), true, false, ""},
		{"absolute path", encodeIndex(3, append(good, ent{"/srv/evil", file}), nil), true, false, ""},
		{"dot component", encodeIndex(4, append(good, ent{"a/./b", file}), nil), true, false, ""},
		{"sparse directory", encodeIndex(2, append(good, ent{"docs/", 0o040000}), nil), false, false, ""},
		{"trailing slash on a file", encodeIndex(2, append(good, ent{"docs/", file}), nil), true, false, ""},
		{"split index", encodeIndex(2, good, link40), false, false, strings.Repeat("ab", 20)},
		{"empty", encodeIndex(2, nil, nil), false, false, ""},
		{"not an index", []byte("hello"), false, true, ""},
		{"truncated", encodeIndex(2, good, nil)[:60], false, true, ""},
		{"trailing junk", append(encodeIndex(2, good, nil), 1, 2, 3), false, true, ""},
		{"version 5", append([]byte("DIRC\x00\x00\x00\x05"), make([]byte, 24)...), false, true, ""},
		// The attacker's 74 bytes: version 3, one entry with the extended
		// flag, the file ending where the extra flags would be.
		{"extended flags past the end", extendedFlagsCut(), false, true, ""},
		{"paths spelled past maxNames", compressionBomb(), false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := scanIndex(c.index)
			bad := v.bad != nil
			if (err != nil) != c.err || bad != c.bad || v.shared != c.shared {
				t.Errorf("err %v, bad %v, shared %q; want err %v, bad %v, shared %q (%+v)", err, bad, v.shared, c.err, c.bad, c.shared, v)
			}
		})
	}
}

func extendedFlagsCut() []byte {
	e := make([]byte, 62)
	binary.BigEndian.PutUint32(e[24:], 0o100644)
	binary.BigEndian.PutUint16(e[60:], 0x4000|1)
	return append([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01"), e...)
}

// compressionBomb is a version 4 index whose entries each keep the whole
// path before them and add a byte: a few MB of file, maxNames and more of
// paths spelled out.
func compressionBomb() []byte {
	const n = 24 << 10 // n*n/2 > maxNames
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, uint32(4))
	binary.Write(&b, binary.BigEndian, uint32(n))
	for i := 1; i <= n; i++ {
		b.Write(make([]byte, 24))
		binary.Write(&b, binary.BigEndian, uint32(0o100644))
		b.Write(make([]byte, 12+20))
		binary.Write(&b, binary.BigEndian, uint16(0xfff)) // long: NUL-terminated
		b.Write([]byte{0, 'a', 0})                        // drop nothing, add "a"
	}
	sum := sha1.Sum(b.Bytes())
	return append(b.Bytes(), sum[:]...)
}

// FuzzIndex: no input panics the parser, and what it judges is bounded.
func FuzzIndex(f *testing.F) {
	good := []ent{{"a", 0o100644}, {"src/deep/x.go", 0o100644}, {"vendor/lib", 0o160000}}
	for _, v := range []uint32{2, 3, 4} {
		f.Add(encodeIndex(v, good, nil))
	}
	f.Add(extendedFlagsCut())
	f.Fuzz(func(t *testing.T, b []byte) {
		scanIndex(b)
	})
}

// TestIndexFromGit reads indexes the real git writes (each version, a
// split index, SHA-256), which must all pass. git is part of the build
// host's toolchain here; without it the formats are covered above only.
func TestIndexFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: the encoder in TestIndexPaths covers the formats")
	}
	for _, c := range [][]string{{"-c", "index.version=2"}, {"-c", "index.version=3"}, {"-c", "index.version=4"}, {"-c", "core.splitIndex=true"}, {"--object-format=sha256"}} {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q")
			oid := strings.Repeat("1", 40)
			if c[0] == "--object-format=sha256" {
				oid = strings.Repeat("1", 64)
				os.RemoveAll(filepath.Join(dir, ".git"))
				gitIn(t, dir, "init", "-q", c[0])
				c = nil
			}
			for _, f := range []string{"a", "src/deep/b", "src/deep/c", "x/" + strings.Repeat("long", 1100)} {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
			}
			gitIn(t, dir, append(c, "add", ".")...)
			gitIn(t, dir, append(c, "update-index", "--add", "--cacheinfo", "160000,"+oid+",sub")...)
			fd, err := openRoot(filepath.Join(dir, ".git"))
			if err != nil {
				t.Fatal(err)
			}
			e, _, _ := lstatAt(fd, "index")
			if why, err := badIndex(fd, e); why != "" || err != nil {
				t.Errorf("git's own index refused: %q %v", why, err)
			}
		})
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
