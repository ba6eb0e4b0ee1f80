package dirents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEach: every entry of a directory larger than the buffer, each with
// its type, none twice, "." and ".." left out; the kept records parse to
// the same.
func TestEach(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 300 {
		name := fmt.Sprintf("entry-with-a-longish-name-%03d", i)
		want = append(want, name)
		if i%3 == 0 {
			os.Mkdir(filepath.Join(dir, name), 0o755)
		} else {
			os.WriteFile(filepath.Join(dir, name), nil, 0o644)
		}
	}
	os.Symlink("x", filepath.Join(dir, "link"))
	want = append(want, "link")
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var got []string
	var keep []byte
	types := map[string]uint8{}
	err = NewReader(1024).Each(fd, dir, &keep, func(name []byte, typ uint8) bool {
		got = append(got, string(name))
		types[string(name)] = typ
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("entries: got %d, want %d", len(got), len(want))
	}
	if types["link"] != unix.DT_LNK || types["entry-with-a-longish-name-000"] != unix.DT_DIR || types["entry-with-a-longish-name-001"] != unix.DT_REG {
		t.Errorf("types: %v", types)
	}
	var again []string
	if err := Parse(keep, func(name []byte, _ uint8) bool { again = append(again, string(name)); return true }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(again)
	if !slices.Equal(again, want) {
		t.Errorf("kept records parse to %d entries, want %d", len(again), len(want))
	}
}

// TestEachNotADirectory: an error naming the path, not a panic or an
// empty listing.
func TestEachNotADirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, []byte("x"), 0o644)
	fd, err := unix.Open(f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	err = (&Reader{}).Each(fd, f, nil, func([]byte, uint8) bool { return true })
	if err == nil {
		t.Fatalf("got %v", err)
	}
}
