package seccomp

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// filterFile is written by `go generate ./coordinator/seccomp/` and must exist,
// even empty, for this package (and so the generator) to build.
const filterFile = "filter_amd64.bpf"

var (
	//go:embed filter_amd64.bpf
	filterBPF []byte
	// filterSum is `sha256sum filter_amd64.bpf`, written with it: a
	// reviewable line in diffs of a binary file, checked on first use.
	//go:embed filter_amd64.bpf.sha256
	filterSum string
)

// embedded decodes the filter once per process.
var embedded = sync.OnceValues(decodeEmbedded)

// decodeEmbedded checks the filter against its recorded sha256, which the
// Program's Digest needs anyway: a few microseconds for a few kilobytes.
func decodeEmbedded() (*Program, error) {
	p, err := newProgram(filterBPF, Arches())
	if err != nil {
		return nil, err
	}
	if want, _, _ := strings.Cut(filterSum, " "); p.Digest != want {
		return nil, fmt.Errorf("seccomp: %s has sha256 %s but %s.sha256 says %q; "+
			"run go generate ./coordinator/seccomp/ (bug)", filterFile, p.Digest, filterFile, want)
	}
	return p, nil
}
