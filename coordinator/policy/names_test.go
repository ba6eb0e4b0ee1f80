package policy

import (
	"math/rand"
	"regexp"
	"testing"
)

// The hand checks accept exactly what the regexps they replaced accept.
func TestNameChecksMatchRegexps(t *testing.T) {
	checks := []struct {
		re    *regexp.Regexp
		check func(string) bool
	}{
		{regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`), accessEnvName},
		{regexp.MustCompile(`^[a-zA-Z0-9_-]+$`), profileName},
	}
	words := []string{"", "A", "_", "0", "A0", "0A", "AC_TEAMS_ACCESS", "a", "a-b", "-", "x.json", "A\n", "\nA", "É", "a b", "ab_C-9"}
	alphabet := "aAzZ09_-.$ \n\x00é"
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.Intn(6))
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		words = append(words, string(b))
	}
	for _, c := range checks {
		for _, w := range words {
			if got, want := c.check(w), c.re.MatchString(w); got != want {
				t.Errorf("%s on %q: hand check %v, regexp %v", c.re, w, got, want)
			}
		}
	}
}
