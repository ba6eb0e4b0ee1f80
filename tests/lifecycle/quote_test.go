//go:build integration

package lifecycle

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWarningsQuoteNames: a member names a directory of a protected
// repository "x\r\033[2Kacbox: exit scan: nothing to report\033[8m" (a
// right-to-left override in another) and puts a .git in each. acbox's
// warnings after the run name them quoted, every control and format
// character escaped: before, the raw bytes reached the terminal, which
// erased each warning, printed the forged line instead and hid the rest
// (an attacker's finding, /tmp/attack2/repro-2.sh).
func TestWarningsQuoteNames(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		proj := r.project(t)
		member := `d=$(printf 'x\r\033[2Kacbox: exit scan: nothing to report\033[8m')
mkdir -p "$d/sub" && git init -q "$d/sub" &&
mkdir -p "$(printf 'y\342\200\256tig')/.git/objects"`
		_, errs, code := r.run(t, "run", "-w", proj, "--cwd", proj, "--", "sh", "-c", member)
		if code != 0 {
			t.Fatalf("exit %d, want 0; stderr %q", code, errs)
		}
		if strings.ContainsAny(errs, "\x1b\r\u202e") || !utf8.ValidString(errs) {
			t.Errorf("a raw control or format character reached stderr: %q", errs)
		}
		want := []string{
			`"` + filepath.Join(proj, `x\r\x1b[2Kacbox: exit scan: nothing to report\x1b[8m`, "sub", ".git") + `" appeared during the run`,
			"moved to \"" + filepath.Join(proj, `x\r\x1b[2Kacbox: exit scan: nothing to report\x1b[8m`, "sub", ".git.acbox-quarantine-"),
			`"` + filepath.Join(proj, `y\u202etig`, ".git") + `"`,
		}
		for _, w := range want {
			if !strings.Contains(errs, w) {
				t.Errorf("stderr lacks %q:\n%s", w, errs)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
			if !strings.HasPrefix(l, "acbox: ") {
				t.Errorf("a line not of acbox's: %q", l)
			}
		}
	})
}

// TestNestedWarningsQuoteNames: the same through delegation. The member
// of a --delegate sandbox asks for nested launches: one whose member
// plants a .git under a directory named with an escape sequence (the
// broker's checks print the warning on the requester's stderr), one whose
// grant does not exist and is named with OSC 0 (the broker's refusal,
// relayed to the requester and printed by it). Both reach the terminal
// quoted.
func TestNestedWarningsQuoteNames(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		proj := r.project(t)
		member := `d=$(printf 'x\r\033[2Kok\033[8m'); mkdir -p "$d"
acbox run -w "$PWD/$d" --cwd "$PWD/$d" -- git init -q sub
acbox run -w "$PWD/$(printf 'n\033]0;t\a')" -- true
echo "nested $?" >&2`
		_, errs, code := r.run(t, "run", "--delegate", "-w", proj, "--cwd", proj, "--", "sh", "-c", member)
		if code != 0 {
			t.Fatalf("exit %d, want 0; stderr %q", code, errs)
		}
		if strings.ContainsAny(errs, "\x1b\r\a") {
			t.Errorf("a raw control character reached stderr: %q", errs)
		}
		for _, w := range []string{
			`"` + filepath.Join(proj, `x\r\x1b[2Kok\x1b[8m`, "sub", ".git") + `" appeared during the run`,
			`acbox: "` + filepath.Join(proj, `n\x1b]0;t\a`) + `": grant does not exist`,
			"nested 125",
		} {
			if !strings.Contains(errs, w) {
				t.Errorf("stderr lacks %q:\n%s", w, errs)
			}
		}
	})
}
