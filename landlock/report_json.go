package landlock

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the report as encoding/json writes it (the same bytes:
// TestAppendJSONIsMarshal), without reflection: the sandbox's pid 1 puts
// it in the enforcement report before the member starts, and encoding/json's
// first use (its type walk and the heap it touches) would cost that launch
// more than the report is worth.
func (r Report) AppendJSON(b []byte) []byte {
	b = append(b, `{"abi":`...)
	b = strconv.AppendInt(b, int64(r.ABI), 10)
	b = append(b, `,"enforced":`...)
	b = strconv.AppendBool(b, r.Enforced)
	b = appendField(b, "handled_fs", r.HandledFS)
	b = appendField(b, "handled_net", r.HandledNet)
	b = appendField(b, "scoped", r.Scoped)
	b = appendField(b, "missing", r.Missing)
	b = append(b, `,"rules":`...)
	b = strconv.AppendInt(b, int64(r.Rules), 10)
	return append(b, '}')
}

func appendField(b []byte, name string, s []string) []byte {
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// appendString quotes s as encoding/json does by default: HTML-safe, with
// invalid UTF-8 replaced and U+2028, U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c == '\b':
				b = append(b, `\b`...)
			case c == '\f':
				b = append(b, `\f`...)
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
