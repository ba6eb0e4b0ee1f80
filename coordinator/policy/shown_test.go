package policy

import (
	"errors"
	"strings"
	"testing"
)

// HostileNames are names a member can give a file, a grant of a nested
// launch or a command, each meant to act on the terminal of whoever
// reads acbox's messages: erase and forge acbox's last line (an
// attacker's finding, /tmp/attack2/repro-2.sh), hide what follows,
// retitle the terminal, forge a line, reorder text, or reach a terminal
// that reads C1 controls (as UTF-8 or as raw bytes).
var hostileNames = []string{
	"/w/x\r\x1b[2Kacbox: exit scan: nothing to report\x1b[8m/sub",
	"/w/\x1b]0;pwned\a",
	"/w/x\nacbox: exit scan: nothing to report",
	"/w/\u202egnp.exe",
	"/w/\u2066a\u2069\u200e\u200f\u202a\u202b\u202c\u202d",
	"/w/\u009b31m",
	"/w/\x9b31m\xff",
	"/w/\x7fdel\x00",
	"/w/\u2028line\u2029",
	"/w/zero\u200bwidth\ufeff",
}

// shownClean reports whether a message (lines ended by newlines) holds
// nothing a terminal acts on: valid UTF-8 of printing runes.
func shownClean(msg string) bool {
	for _, line := range strings.Split(strings.TrimSuffix(msg, "\n"), "\n") {
		if !Printable(line) {
			return false
		}
	}
	return true
}

func TestQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"/home/u/proj/a.txt", "/home/u/proj/a.txt"},
		{"/w/é/日本", "/w/é/日本"},
		{"", ""},
		{"/w/a b", `"/w/a b"`},
		{"/w/a,b", `"/w/a,b"`},
		{`/w/a\x1b`, `"/w/a\\x1b"`},
		{"/w/x\r\x1b[2K", `"/w/x\r\x1b[2K"`},
		{"/w/x\ny", `"/w/x\ny"`},
		{"/w/\u202egnp.exe", `"/w/\u202egnp.exe"`},
		{"/w/\u009b", `"/w/\u009b"`},
		{"/w/\x9b", `"/w/\x9b"`},
		{"/w/\x7f", `"/w/\x7f"`},
	}
	for _, c := range cases {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, n := range hostileNames {
		if got := Quote(n); !shownClean(got) || !strings.HasPrefix(got, `"`) {
			t.Errorf("Quote(%q) = %q: not quoted, or raw bytes left", n, got)
		}
	}
}

// TestEscape: the last line of defence keeps acbox's own newlines and
// tabs and escapes everything else Quote would.
func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"acbox: plain\n", "acbox: plain\n"},
		{"acbox: a\n\tb\n", "acbox: a\n\tb\n"},
		{"acbox: x\r\x1b[2Kforged\n", `acbox: x\r\x1b[2Kforged` + "\n"},
		{"acbox: \u202eabc\n", `acbox: \u202eabc` + "\n"},
		{"acbox: \x9b\xc3\n", `acbox: \x9b\xc3` + "\n"},
		{"acbox: é \"q\" \\x\n", "acbox: é \"q\" \\x\n"},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, n := range hostileNames {
		if got := Escape(n); strings.ContainsFunc(strings.ReplaceAll(got, "\n", ""), func(r rune) bool { return r == '\x1b' || r == '\r' }) ||
			!shownClean(got) {
			t.Errorf("Escape(%q) = %q: raw bytes left", n, got)
		}
	}
	var b strings.Builder
	w := MessageWriter(&b)
	if MessageWriter(w) != w {
		t.Error("MessageWriter wraps itself again")
	}
	msg := "acbox: " + hostileNames[0] + " moved\n"
	if n, err := w.Write([]byte(msg)); n != len(msg) || err != nil {
		t.Errorf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if !shownClean(b.String()) {
		t.Errorf("MessageWriter wrote %q", b.String())
	}
}

// TestMessagesQuoteNames: every message of this package that names a
// path or command a member can choose names it with Quote: no control,
// format or invalid byte reaches the terminal, and no newline forges a
// line of acbox's.
func TestMessagesQuoteNames(t *testing.T) {
	f := newFixture(t)
	for _, n := range hostileNames {
		msgs := map[string]string{
			"refused":            (&RefusedError{Subject: n, Why: "a nested write grant must lie inside the requester's"}).Error(),
			"refused non-path":   (&RefusedError{Subject: n[3:], Why: "why"}).Error(),
			"exec not found":     (&ExecError{Command: n, Class: ExecNotFound, Detail: "PATH=" + Quote(n)}).Error(),
			"exec denied":        (&ExecError{Command: n, Class: ExecDenied, Detail: Quote(n) + ": permission denied"}).Error(),
			"exec too big":       (&ExecError{Command: n, Class: ExecTooBig, Detail: "E2BIG"}).Error(),
			"cwd notice":         cwdNotice(n, n, f.host),
			"notices pass-env":   strings.Join(Notices(Spec{PassEnv: []string{n}, Image: n, Cwd: "/"}, &Plan{Backend: "native"}, f.host), "\n"),
			"refused via errors": errors.Join(&RefusedError{Subject: n, Why: "w"}).Error(),
		}
		for what, m := range msgs {
			if !shownClean(m) {
				t.Errorf("%s: %q holds raw bytes of %q", what, m, n)
			}
		}
	}
	// Ordinary names are shown as they are.
	if got := (&RefusedError{Subject: "/home/u/proj", Why: "w"}).Error(); got != "/home/u/proj: w" {
		t.Errorf("plain path: %q", got)
	}
	if got := (&RefusedError{Subject: "--net host", Why: "w"}).Error(); got != "--net host: w" {
		t.Errorf("acbox's own subject: %q", got)
	}
}
