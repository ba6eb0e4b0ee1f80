package gitguard

import (
	"strings"
	"testing"
)

func TestValidHead(t *testing.T) {
	oid := strings.Repeat("a1", 20)
	for _, c := range []struct {
		name, content string
		want          bool
	}{
		{"symbolic", "ref: refs/heads/main\n", true},
		{"symbolic, no space", "ref:refs/heads/main", true},
		{"symbolic, tabs", "ref:\t refs/heads/x\n", true},
		{"reftable stub", "ref: refs/heads/.invalid\n", true},
		{"detached sha1", oid + "\n", true},
		{"detached sha256", strings.Repeat("0f", 32) + "\n", true},
		{"detached, no newline", oid, true},
		{"empty", "", false},
		{"garbage", "garbage\n", false},
		{"ref outside refs", "ref: heads/main\n", false},
		{"ref to a path", "ref: /etc/passwd\n", false},
		{"short oid", oid[:39] + "\n", false},
		{"oid with a tail", oid + "x\n", false},
		{"upper-case oid", strings.ToUpper(oid), false},
		{"gitdir line", "gitdir: ../evil\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ValidHead([]byte(c.content)); got != c.want {
				t.Errorf("ValidHead(%q) = %v, want %v", c.content, got, c.want)
			}
		})
	}
}

// FuzzValidHead: whatever HEAD holds, a valid one is a symbolic ref into
// refs/ or starts with an object id; the judge never panics.
func FuzzValidHead(f *testing.F) {
	for _, s := range []string{"ref: refs/heads/main\n", strings.Repeat("a", 40), "ref:", "", "ref: refs/"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !ValidHead(b) {
			return
		}
		s := string(b)
		if strings.HasPrefix(s, "ref:") {
			if !strings.HasPrefix(strings.TrimLeft(s[4:], " \t\n\v\f\r"), "refs/") {
				t.Errorf("accepted %q", b)
			}
		} else if len(s) < 40 || !isHex([]byte(s[:40])) {
			t.Errorf("accepted %q", b)
		}
	})
}
