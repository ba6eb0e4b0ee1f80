package policy

import (
	"bytes"
	"fmt"
	"strings"
)

// A reader of git's config format, enough to learn core.hooksPath and the
// files a config includes (include.path, includeIf.COND.path). Names of
// sections and keys are case-insensitive, subsections are not; values
// take quotes, the escapes \n \t \b \" \\ and a backslash before the end
// of a line (a continuation); # and ; start a comment outside quotes. What
// git would reject is an error here too: git would not run with it. An
// error names the line, never what it holds: the file may be one the
// member asking for a nested launch cannot read (requester.go).

// gitConfigEntry is one setting that matters here, in file order.
type gitConfigEntry struct {
	Include bool   // include.path or includeIf.COND.path; false: core.hooksPath
	Cond    string // includeIf's condition; "" for include.path
	Value   string
	Line    int
}

// parseGitConfig returns the core.hooksPath and include entries of data.
func parseGitConfig(data []byte) ([]gitConfigEntry, error) {
	p := cfgParser{s: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), line: 1}
	return p.run()
}

type cfgParser struct {
	s       []byte
	i, line int
	section string // lower-cased section name
	sub     string // subsection, as written
	hasSub  bool
	out     []gitConfigEntry
}

func (p *cfgParser) peek() int {
	if p.i >= len(p.s) {
		return -1
	}
	return int(p.s[p.i])
}

func (p *cfgParser) errf(format string, a ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, a...))
}

func (p *cfgParser) run() ([]gitConfigEntry, error) {
	for {
		c := p.peek()
		switch {
		case c == -1:
			return p.out, nil
		case c == '\n':
			p.i++
			p.line++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			if err := p.entry(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errf("unexpected character")
		}
	}
}

func (p *cfgParser) skipLine() {
	for c := p.peek(); c != -1 && c != '\n'; c = p.peek() {
		p.i++
	}
}

// header reads [section], [section "sub"] or the old [section.sub].
func (p *cfgParser) header() error {
	p.i++
	var name strings.Builder
	for c := p.peek(); c != ']'; c = p.peek() {
		switch {
		case c == ' ' || c == '\t':
			return p.quotedSub(name.String())
		case isAlnum(c) || c == '-' || c == '.':
			name.WriteByte(byte(c))
			p.i++
		default:
			return p.errf("bad section header")
		}
	}
	p.i++
	full := strings.ToLower(name.String())
	p.section, p.sub, p.hasSub = full, "", false
	if sec, sub, ok := strings.Cut(full, "."); ok {
		p.section, p.sub, p.hasSub = sec, sub, true
	}
	if p.section == "" {
		return p.errf("empty section name")
	}
	return nil
}

// quotedSub reads ` "sub"]` after a section name.
func (p *cfgParser) quotedSub(name string) error {
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
	if p.peek() != '"' || name == "" {
		return p.errf("bad section header")
	}
	p.i++
	var sub strings.Builder
	for {
		c := p.peek()
		switch c {
		case -1, '\n':
			return p.errf("unterminated subsection")
		case '"':
			p.i++
			if p.peek() != ']' {
				return p.errf("bad section header")
			}
			p.i++
			p.section, p.sub, p.hasSub = strings.ToLower(name), sub.String(), true
			return nil
		case '\\':
			p.i++
			if c = p.peek(); c == -1 || c == '\n' {
				return p.errf("unterminated subsection")
			}
		}
		sub.WriteByte(byte(c))
		p.i++
	}
}

// entry reads `key = value` or a bare `key` (true).
func (p *cfgParser) entry() error {
	line := p.line
	start := p.i
	for c := p.peek(); isAlnum(c) || c == '-'; c = p.peek() {
		p.i++
	}
	key := strings.ToLower(string(p.s[start:p.i]))
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
	hasValue := false
	var value string
	switch c := p.peek(); {
	case c == '=':
		p.i++
		v, err := p.value()
		if err != nil {
			return err
		}
		hasValue, value = true, v
	case c == -1 || c == '\n' || c == '\r' || c == '#' || c == ';':
	default:
		return p.errf("bad config line")
	}
	if p.section == "" {
		return p.errf("a key outside any section")
	}
	return p.keep(key, value, hasValue, line)
}

func (p *cfgParser) keep(key, value string, hasValue bool, line int) error {
	e := gitConfigEntry{Value: value, Line: line}
	switch {
	case key == "hookspath" && p.section == "core" && !p.hasSub:
	case key == "path" && p.section == "include" && !p.hasSub:
		e.Include = true
	case key == "path" && p.section == "includeif" && p.hasSub:
		e.Include, e.Cond = true, p.sub
	default:
		return nil
	}
	if !hasValue {
		return p.errf("%s without a value (git rejects it)", key)
	}
	p.out = append(p.out, e)
	return nil
}

// value reads a value up to the end of its line, as git does: whitespace
// outside quotes is trimmed at the ends and kept (as spaces) inside.
func (p *cfgParser) value() (string, error) {
	var b strings.Builder
	quoted, spaces := false, 0
	for {
		c := p.peek()
		switch {
		case c == -1 || c == '\n':
			if quoted {
				return "", p.errf("unterminated quote")
			}
			return b.String(), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			continue
		case !quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'):
			if b.Len() > 0 {
				spaces++
			}
			p.i++
			continue
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		p.i++
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(byte(c))
		}
	}
}

func (p *cfgParser) escape(b *strings.Builder) error {
	c := p.peek()
	p.i++
	switch c {
	case '\n':
		p.line++
	case '\r':
		if p.peek() != '\n' {
			return p.errf("bad escape")
		}
		p.i++
		p.line++
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'b':
		b.WriteByte('\b')
	case '"', '\\':
		b.WriteByte(byte(c))
	default:
		return p.errf("bad escape")
	}
	return nil
}

func isAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c int) bool { return isAlpha(c) || c >= '0' && c <= '9' }
