package policy

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quote is how acbox names, in anything it prints for a person (messages
// on standard error, the table of acbox ps), a string a member could
// choose: a path in a write grant, a grant of a nested launch, a command.
// It is s as it is when every rune prints (strconv.IsPrint) and none is a
// comma, quote, backslash or space; otherwise s in Go syntax, quoted, with
// every control character (C0, DEL, C1), Unicode format character (the
// bidi marks, embeddings, overrides and isolates, U+200E/F, U+202A-E,
// U+2066-9, zero-width ones) and byte of invalid UTF-8 escaped. Raw, such
// a name could erase or rewrite acbox's own lines on the terminal (a
// carriage return and CSI 2K), hide them (SGR 8), retitle the terminal or
// write its clipboard (OSC 0, OSC 52), forge a line with a newline, or
// reorder what a person reads (a right-to-left override). The separators
// are quoted so that a quoted name cannot be mistaken for a plain one
// and a name cannot read as two, or as acbox's words after it.
// JSON output needs none of this: encoding escapes it.
func Quote(s string) string {
	if !Printable(s) || strings.ContainsAny(s, ",\"\\ ") {
		return strconv.Quote(s)
	}
	return s
}

// Printable reports whether s is valid UTF-8 of printing runes only
// (strconv.IsPrint: no control or format character, no space but ' ').
func Printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) })
}

// Escape is the last line of defence on acbox's standard error
// (MessageWriter): every rune of s that Quote would escape, as Quote
// escapes it, except the newline and tab that end and indent acbox's own
// lines. A name that reaches a message without Quote (inside an error of
// the system, say) still sends no control sequence to the terminal.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			q := strconv.Quote(s[i : i+1]) // "\xNN"
			b.WriteString(q[1 : len(q)-1])
		case r == '\n' || r == '\t' || strconv.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether Escape changes s; printable ASCII, newline
// and tab (every ordinary message) are decided byte by byte.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return !utf8.ValidString(s[i:]) || strings.ContainsFunc(s[i:], func(r rune) bool {
				return r != '\n' && r != '\t' && !strconv.IsPrint(r)
			})
		} else if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// MessageWriter is w for acbox's own messages: each write passes through
// Escape. Each message is written whole (one Fprintf), so no rune is cut
// between writes. The member's own output never passes here.
func MessageWriter(w io.Writer) io.Writer {
	if _, ok := w.(messageWriter); ok || w == nil {
		return w
	}
	return messageWriter{w}
}

type messageWriter struct{ w io.Writer }

func (m messageWriter) Write(p []byte) (int, error) {
	s := string(p)
	if !needsEscape(s) {
		return m.w.Write(p)
	}
	if _, err := io.WriteString(m.w, Escape(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
