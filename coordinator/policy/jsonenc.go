package policy

import (
	"strconv"
	"unicode/utf8"
)

// The launch writes a few small JSON values of a fixed shape (the access
// JSON, the registry entry) by hand: encoding/json's first use of a type
// builds its encoder by reflection, which was most of what these cost a
// launch. The bytes are encoding/json's, held to it by tests (a table and
// a fuzz test each).

// AppendJSONString appends s as encoding/json writes a string: quoted,
// with '<', '>' and '&' escaped as \u003c, \u003e and \u0026, invalid
// UTF-8 replaced by U+FFFD, and U+2028 and U+2029 escaped.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonSafe: an ASCII byte encoding/json writes as it is (HTML escaping on).
func jsonSafe(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// AppendJSONStrings appends list as a JSON array of strings ("[]" when
// empty).
func AppendJSONStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, s)
	}
	return append(b, ']')
}

func appendJSONUints(b []byte, list []uint16) []byte {
	b = append(b, '[')
	for i, n := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	return append(b, ']')
}
