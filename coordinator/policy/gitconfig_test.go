package policy

import (
	"fmt"
	"strings"
	"testing"
)

// render writes entries as "h=VALUE" and "i[COND]=VALUE" for comparison.
func render(es []gitConfigEntry) string {
	var out []string
	for _, e := range es {
		if e.Include {
			out = append(out, fmt.Sprintf("i[%s]=%s", e.Cond, e.Value))
		} else {
			out = append(out, "h="+e.Value)
		}
	}
	return strings.Join(out, " ")
}

func TestParseGitConfig(t *testing.T) {
	cases := []struct{ name, in, want, err string }{
		{name: "plain", in: "[core]\n\thooksPath = .husky\n", want: "h=.husky"},
		{name: "case-insensitive names", in: "[CORE]\nHOOKSPATH=.githooks\n", want: "h=.githooks"},
		{name: "last value wins is the caller's: all kept in order", in: "[core]\nhooksPath=a\n[core]\nhookspath=b\n", want: "h=a h=b"},
		{name: "same line as header", in: "[core] hooksPath = x\n", want: "h=x"},
		{name: "quotes and escapes", in: "[core]\nhooksPath = \"a b\\\"c\\\\d\" # comment\n", want: `h=a b"c\d`},
		{name: "inner spaces kept, ends trimmed", in: "[core]\nhooksPath =   a \t b   ; c\n", want: "h=a   b"},
		{name: "comment in quotes is text", in: "[core]\nhooksPath = \"a;b#c\"\n", want: "h=a;b#c"},
		{name: "continuation", in: "[core]\nhooksPath = ab\\\ncd\n", want: "h=abcd"},
		{name: "crlf", in: "[core]\r\nhooksPath = x\r\n", want: "h=x"},
		{name: "bom", in: "\xef\xbb\xbf[core]\nhooksPath=x\n", want: "h=x"},
		{name: "subsection is another key", in: "[core \"x\"]\nhooksPath=a\n[core.y]\nhooksPath=b\n", want: ""},
		{name: "other keys ignored", in: "[core]\nbare = false\nfilemode\n[user]\nname = \"x ; y\"\n", want: ""},
		{name: "include", in: "[include]\npath = ~/extra\n", want: "i[]=~/extra"},
		{name: "includeIf keeps its case", in: "[includeIf \"gitdir:~/Work/\"]\n\tpath = w.inc\n", want: "i[gitdir:~/Work/]=w.inc"},
		{name: "old subsection syntax lowercased", in: "[includeIf.Extra]\npath = m\n", want: "i[extra]=m"},
		{name: "old subsection syntax takes no colon", in: "[includeIf.onbranch:main]\npath = m\n", err: "bad section header"},
		{name: "include with subsection is not an include", in: "[include \"x\"]\npath = a\n", want: ""},
		{name: "empty value", in: "[core]\nhooksPath =\n", want: "h="},
		{name: "hooksPath without value", in: "[core]\nhooksPath\n", err: "without a value"},
		{name: "unterminated quote", in: "[core]\nhooksPath = \"x\n", err: "unterminated quote"},
		{name: "bad escape", in: "[core]\nhooksPath = a\\qb\n", err: "bad escape"},
		{name: "key before section", in: "hooksPath = x\n", err: "outside any section"},
		{name: "bad header", in: "[core\nhooksPath=x\n", err: "bad section header"},
		{name: "garbage", in: "[core]\n=x\n", err: "unexpected character"},
		{name: "line numbers", in: "[core]\n\n\nhooksPath = \"x\n", err: "line 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			es, err := parseGitConfig([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := render(es); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// quoteGitValue writes v so that git reads it back as v.
func quoteGitValue(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`)
	return `"` + r.Replace(v) + `"`
}

// FuzzParseGitConfig: any input parses or fails without a panic, and a
// value written with quotes reads back unchanged after it.
func FuzzParseGitConfig(f *testing.F) {
	for _, s := range []string{"[core]\nhooksPath=.husky\n", "[include]\npath=~/x\n[includeIf \"gitdir:/a/\"]\npath=y", "[core] hooksPath = \"a\\\\b\" ;c", "\xef\xbb\xbf[a.b]\nc\\\nd"} {
		f.Add([]byte(s), ".githooks")
	}
	f.Fuzz(func(t *testing.T, data []byte, v string) {
		parseGitConfig(data)
		if strings.ContainsAny(v, "\x00\r") {
			return
		}
		in := string(data) + "\n[core]\nhooksPath = " + quoteGitValue(v) + "\n"
		es, err := parseGitConfig([]byte(in))
		if err != nil {
			return // the prefix is malformed
		}
		if len(es) == 0 || es[len(es)-1].Include || es[len(es)-1].Value != v {
			// A quote left open in the prefix changes how the rest reads,
			// but then parsing fails; a closed prefix must not.
			t.Fatalf("value %q read back as %+v from %q", v, es, in)
		}
	})
}
