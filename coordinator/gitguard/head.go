package gitguard

import "bytes"

// maxHead is what git reads of HEAD to validate it (validate_headref reads
// at most 255 bytes).
const maxHead = 255

// ValidHead reports whether git would accept content as the HEAD file of a
// git directory, as git's validate_headref judges it: a symbolic ref
// ("ref:" then optional white space then "refs/"), or a detached object id
// (40 or 64 hex digits at the start). Stricter than git where git would
// accept more after the id: an id must end the line.
func ValidHead(content []byte) bool {
	if len(content) > maxHead {
		content = content[:maxHead]
	}
	if rest, ok := bytes.CutPrefix(content, []byte("ref:")); ok {
		return bytes.HasPrefix(bytes.TrimLeft(rest, " \t\n\v\f\r"), []byte("refs/"))
	}
	for _, n := range []int{40, 64} {
		if len(content) >= n && isHex(content[:n]) && (len(content) == n || content[n] == '\n') {
			return true
		}
	}
	return false
}

// ValidHeadLink reports whether git accepts a symlink HEAD with this
// target: only a relative "refs/..." one.
func ValidHeadLink(target string) bool {
	return len(target) >= 5 && target[:5] == "refs/"
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
