package policy

import (
	"fmt"
	"path/filepath"
	"slices"
)

// A spec's "private" list adds, for one launch, paths treated exactly as
// the config's private paths (Host.Protect): no grant may be, contain or
// lie inside one, and every sandbox masks them. Runtime mounts (--mount,
// "mounts") are the caller's own and may come from inside a spec's private
// path: the agent-team extension keeps its member's runtime (~/.pi/agent/npm,
// the member's auth.json) inside the tree it makes private (~/.pi/agent).
// The config's private paths still refuse mount sources, as before.

// withPrivate is h with the spec's private paths added to the private
// list, for resolving grants and masks. Each must be absolute: the spec's
// cwd or the launch directory could make a relative one mean a path the
// caller did not think of, and a private path that protects nothing is a
// silent downgrade.
func withPrivate(h Host, private []string) (Host, error) {
	if len(private) == 0 {
		return h, nil
	}
	for i, p := range private {
		if !filepath.IsAbs(p) {
			return h, AtField(fmt.Sprintf("private[%d]", i), invalid("private path %q is not absolute: name it from /", p))
		}
	}
	h.Protect = append(slices.Clone(h.Protect), private...)
	h.specPrivate = private
	return h, nil
}

// checkMountPrivate: a runtime mount may come from a spec's private path
// or from inside it (the caller's own runtime, such as ~/.pi/agent/npm),
// not from a directory that holds one: that would show the whole private
// tree, which no grant may, and the mask every sandbox puts on a private
// path does not reach into a runtime mount.
func checkMountPrivate(src string, m MountSpec, private []string) error {
	if m.Internal {
		return nil
	}
	for _, q := range private {
		if q = canonicalOrClean(q); within(q, src) && q != src {
			return refuse(src, "mount source contains the private path "+q+"; a runtime mount may come from a private path or from inside one, not show all of it", "mount the directory or file inside it that the command needs")
		}
	}
	return nil
}
