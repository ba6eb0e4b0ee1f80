//go:build !linux

package gate

// StatPaths is Linux only: every path is reported as not opened.
func StatPaths(paths []string) Idents {
	out := Idents{}
	for _, p := range paths {
		out.Idents = append(out.Idents, Ident{Path: p, Err: "not supported on this system"})
	}
	return out
}

// ReadSelf is Linux only.
func ReadSelf() SelfStatus { return SelfStatus{} }
