package seccomp

import (
	"fmt"
	"slices"
)

// The filter is compiled from Policy with libseccomp at development time
// and committed; see the package doc. The generator needs cgo and
// libseccomp-dev, the build that embeds its output neither.
//go:generate go run ./internal/gen

// shipped are the only Options whose filter is embedded. Every acbox launch
// asks for them.
var shipped = Options{BlockMPTCP: true}

// Build returns the embedded filter for Options{BlockMPTCP: true}, the only
// Options acbox uses; others are refused as a bug rather than compiled,
// which would need libseccomp at run time. It only decodes: nothing is
// loaded, and each call returns a fresh Program.
func Build(o Options) (*Program, error) {
	if o != shipped {
		return nil, fmt.Errorf("seccomp: only the filter for Options%+v is embedded, not Options%+v (bug)", shipped, o)
	}
	p, err := embedded()
	if err != nil {
		return nil, err
	}
	cp := *p
	cp.Arch = slices.Clone(p.Arch)
	return &cp, nil
}
