package registry

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeEntryFast decodes an entry as this package writes it (appendJSON:
// compact, known keys, strings without escapes in the head fields), about
// five times faster than json.Unmarshal, whose scanner reads the whole
// entry, plan included, twice. Every launch decodes each other live
// sandbox's entry twice (admission's count, the end's listing). ok is
// false for anything it is not sure to read exactly as json.Unmarshal
// does: an unknown or repeated key, null, an escape or invalid UTF-8 in a
// head string, a number that is not a plain integer in range, whitespace,
// and any value of the raw fields (access, plan) its validator does not
// accept, which accepts only valid JSON. readEntry then calls
// json.Unmarshal, which decides. TestFastDecodeMatches and
// FuzzFastDecode hold the two together.
func decodeEntryFast(b []byte) (e Entry, ok bool) {
	b = bytes.TrimSuffix(b, []byte("\n"))
	p := fastParser{b: b}
	if !p.eat('{') || p.eat('}') {
		return Entry{}, false
	}
	seen := map[string]bool{}
	for {
		key, ok := p.plainString()
		if !ok || seen[key] || !p.eat(':') {
			return Entry{}, false
		}
		seen[key] = true
		if !p.field(&e, key) {
			return Entry{}, false
		}
		if p.eat('}') {
			return e, p.i == len(p.b)
		}
		if !p.eat(',') {
			return Entry{}, false
		}
	}
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// field decodes the value of key into e.
func (p *fastParser) field(e *Entry, key string) bool {
	var ok bool
	switch key {
	case "id":
		e.ID, ok = p.plainString()
	case "backend":
		e.Backend, ok = p.plainString()
	case "parent":
		e.Parent, ok = p.plainString()
	case "uid":
		e.UID, ok = p.intValue()
	case "owner_pid":
		e.OwnerPid, ok = p.intValue()
	case "helper_pid":
		e.HelperPid, ok = p.intValue()
	case "pids":
		e.Pids, ok = p.intValue()
	case "depth":
		e.Depth, ok = p.intValue()
	case "memory":
		var n int64
		n, ok = p.int64Value()
		e.Memory = n
	case "owner_start":
		e.OwnerStart, ok = p.uintValue()
	case "pid_ns":
		e.PidNS, ok = p.uintValue()
	case "helper_start":
		e.HelperStart, ok = p.uintValue()
	case "within":
		e.Within, ok = p.boolValue()
	case "started":
		ok = p.started(e)
	case "labels":
		e.Labels, ok = p.labels()
	case "access":
		e.Access, ok = p.raw()
	case "plan":
		e.Plan, ok = p.raw()
	}
	return ok
}

// plainString reads a string without escapes whose bytes are valid UTF-8
// (json.Unmarshal would replace invalid bytes).
func (p *fastParser) plainString() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return string(s), utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// digits reads an integer token: an optional '-', then "0" or a digit
// string without a leading zero.
func (p *fastParser) digits() (string, bool) {
	start := p.i
	p.eat('-')
	d := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	n := p.i - d
	if n == 0 || n > 1 && p.b[d] == '0' {
		return "", false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return "", false
	}
	return string(p.b[start:p.i]), true
}

func (p *fastParser) int64Value() (int64, bool) {
	s, ok := p.digits()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func (p *fastParser) intValue() (int, bool) {
	n, ok := p.int64Value()
	return int(n), ok && int64(int(n)) == n
}

func (p *fastParser) uintValue() (uint64, bool) {
	s, ok := p.digits()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func (p *fastParser) boolValue() (bool, bool) {
	for _, w := range []string{"true", "false"} {
		if bytes.HasPrefix(p.b[p.i:], []byte(w)) {
			p.i += len(w)
			return w == "true", true
		}
	}
	return false, false
}

// started reads the time as json.Unmarshal does: a plain string handed to
// time.Time's UnmarshalJSON.
func (p *fastParser) started(e *Entry) bool {
	start := p.i
	if _, ok := p.plainString(); !ok {
		return false
	}
	return e.Started.UnmarshalJSON(p.b[start:p.i]) == nil
}

func (p *fastParser) labels() (map[string]string, bool) {
	if !p.eat('{') {
		return nil, false
	}
	m := map[string]string{}
	if p.eat('}') {
		return m, true
	}
	for {
		k, ok := p.plainString()
		if !ok || !p.eat(':') {
			return nil, false
		}
		if m[k], ok = p.plainString(); !ok {
			return nil, false
		}
		if p.eat('}') {
			return m, true
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}

// raw reads an object or array and returns a copy of its bytes, as
// json.RawMessage holds them, when validValue accepts it.
func (p *fastParser) raw() (json.RawMessage, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '{' && p.b[p.i] != '[' {
		return nil, false
	}
	start := p.i
	if !p.validValue(0) {
		return nil, false
	}
	return bytes.Clone(p.b[start:p.i]), true
}

// validCompact is a quick yes for json.Valid: raw is one compact JSON
// value. false means only that json.Valid must decide (whitespace, deep
// nesting, or not JSON).
func validCompact(raw []byte) bool {
	p := fastParser{b: raw}
	return p.validValue(0) && p.i == len(raw)
}

// maxDepth bounds the nesting validValue follows (json's own limit is
// 10000; an entry nests a few levels).
const maxDepth = 64

// validValue steps over one compact JSON value. It accepts only valid
// JSON (no whitespace at all, which JSON would allow: the writer emits
// none); strings may hold any byte but '"', '\\' and control characters,
// and the escapes JSON defines.
func (p *fastParser) validValue(depth int) bool {
	if p.i >= len(p.b) || depth > maxDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.validString()
	case c == '{':
		return p.validComposite('}', depth, true)
	case c == '[':
		return p.validComposite(']', depth, false)
	case c == '-' || c >= '0' && c <= '9':
		return p.validNumber()
	}
	for _, w := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.b[p.i:], []byte(w)) {
			p.i += len(w)
			return true
		}
	}
	return false
}

func (p *fastParser) validComposite(end byte, depth int, object bool) bool {
	p.i++
	if p.eat(end) {
		return true
	}
	for {
		if object && (!p.validString() || !p.eat(':')) {
			return false
		}
		if !p.validValue(depth + 1) {
			return false
		}
		if p.eat(end) {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

func (p *fastParser) validString() bool {
	if !p.eat('"') {
		return false
	}
	for p.i < len(p.b) {
		c := p.b[p.i]
		p.i++
		if c >= 0x20 && c != '"' && c != '\\' {
			continue // the usual byte: one test
		}
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if p.i >= len(p.b) {
				return false
			}
			e := p.b[p.i]
			p.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if p.i+4 > len(p.b) {
					return false
				}
				for _, h := range p.b[p.i : p.i+4] {
					if !isHex(h) {
						return false
					}
				}
				p.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// validNumber steps over a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastParser) validNumber() bool {
	p.eat('-')
	run := func() int {
		s := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i - s
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if run() == 0 {
		return false
	}
	if p.eat('.') && run() == 0 {
		return false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if run() == 0 {
			return false
		}
	}
	return true
}
