package sys

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		line string
		want procStat
		ok   bool
	}{
		{"42 (less) S 7 40 7 34817 40 4194304", procStat{7, 40, 34817}, true},
		{"42 (a) b) (c) R 1 2 3 0 5", procStat{1, 2, 0}, true},
		{"42 (sh) Z 1 2 3 4 5", procStat{}, false},
		{"42 (sh) S 1 2 3", procStat{}, false},
		{"42 (sh) S x 2 3 4", procStat{}, false},
		{"no paren", procStat{}, false},
	}
	for _, c := range cases {
		got, ok := parseStat([]byte(c.line))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %+v %v, want %+v %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestTtyNr: the encoding matches the kernel's for this process's own
// controlling terminal, where it has one.
func TestTtyNr(t *testing.T) {
	b, _ := os.ReadFile("/proc/self/stat")
	s, ok := parseStat(b)
	var st unix.Stat_t
	if !ok || s.ttyNr == 0 || unix.Stat("/dev/tty", &st) != nil {
		t.Skip("no controlling terminal")
	}
	f, err := os.Open("/dev/tty")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	unix.Fstat(int(f.Fd()), &st)
	if ttyNr(st.Rdev) != s.ttyNr {
		t.Errorf("ttyNr(%#x) = %d, want %d", st.Rdev, ttyNr(st.Rdev), s.ttyNr)
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (less) S 7 40 7 34817 40 4194304"))
	f.Add([]byte("1 ()) ) S 0 0 0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseStat(b)
	})
}
