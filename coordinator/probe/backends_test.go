package probe

import (
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestDifferencesHaveVariants ties the table to the catalogue: a probe has
// a docker variant exactly when it is an explained difference.
func TestDifferencesHaveVariants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the catalogue is Linux only")
	}
	listed := map[string]bool{}
	for _, d := range Differences {
		if listed[d.ID] {
			t.Errorf("%s: listed twice", d.ID)
		}
		listed[d.ID] = true
		if d.Design == "" || d.Docker == "" {
			t.Errorf("%s: needs Design and Docker", d.ID)
		}
	}
	for _, p := range Catalogue() {
		switch {
		case p.Docker != nil && !listed[p.ID]:
			t.Errorf("%s has a docker variant but is not in Differences", p.ID)
		case p.Docker == nil && listed[p.ID]:
			t.Errorf("%s is in Differences but has no docker variant", p.ID)
		case p.Docker != nil && (p.Docker.Expect == "" || p.Docker.Run == nil):
			t.Errorf("%s: the docker variant needs Expect and Run", p.ID)
		}
		delete(listed, p.ID)
	}
	for id := range listed {
		t.Errorf("%s is in Differences but not in the catalogue", id)
	}
}

// TestBackendsDocMirrorsDifferences: the table of docs/backends.md's
// "Explained differences" lists the same probes, in the same order.
func TestBackendsDocMirrorsDifferences(t *testing.T) {
	b, err := os.ReadFile("../../docs/backends.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Explained differences\n")
	if !ok {
		t.Fatal("docs/backends.md has no section \"## Explained differences\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var doc []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+\\.[a-z0-9-]+)` \\|").FindAllStringSubmatch(section, -1) {
		doc = append(doc, m[1])
	}
	var table []string
	for _, d := range Differences {
		table = append(table, d.ID)
	}
	if !slices.Equal(doc, table) {
		t.Errorf("docs/backends.md lists\n  %v\nDifferences lists\n  %v", doc, table)
	}
}

func TestUnderDocker(t *testing.T) {
	p := Probe{ID: "x.y", Expect: "native", Docker: &Variant{Expect: "other"}}
	if got := p.under(Docker).Expect; got != "docker: other" {
		t.Errorf("under docker: %q", got)
	}
	if got := p.under(Native).Expect; got != "native" {
		t.Errorf("under native: %q", got)
	}
	if got := p.under("").Expect; got != "native" {
		t.Errorf("under the default: %q", got)
	}
}
