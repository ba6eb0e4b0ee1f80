package engine

import (
	"strconv"
	"strings"
)

// validVersion: an API version is numbers joined by dots ("1.41").
func validVersion(v string) bool {
	if v == "" {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return false
		}
	}
	return true
}

// Less reports whether API version a is older than b, comparing numbers
// ("1.9" < "1.41"); a missing part counts as 0.
func Less(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		x, y := part(pa, i), part(pb, i)
		if x != y {
			return x < y
		}
	}
	return false
}

func part(p []string, i int) int {
	if i >= len(p) {
		return 0
	}
	n, _ := strconv.Atoi(p[i])
	return n
}
