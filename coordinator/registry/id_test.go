package registry

import (
	"regexp"
	"strings"
	"testing"
)

// idOracle is the rule validID implements by hand.
var idOracle = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

func TestValidIDMatchesPattern(t *testing.T) {
	for _, id := range []string{"", "a", "0", "_a", ".a", "-a", "a_b.c-d", "a/b", "a b", "ä", "a\x00",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "0123456789ab", "A-Z.9_"} {
		if got, want := validID(id), idOracle.MatchString(id); got != want {
			t.Errorf("validID(%q) = %v, the pattern says %v", id, got, want)
		}
	}
}

func FuzzValidID(f *testing.F) {
	for _, s := range []string{"abc", "..", "a-b", strings.Repeat("x", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := validID(id), idOracle.MatchString(id); got != want {
			t.Fatalf("validID(%q) = %v, the pattern says %v", id, got, want)
		}
	})
}
