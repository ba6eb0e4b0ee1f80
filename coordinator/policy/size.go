package policy

import (
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"K", 1 << 10}, {"m", 1 << 20}, {"M", 1 << 20},
	{"g", 1 << 30}, {"G", 1 << 30}, {"B", 1},
}

// ParseSize reads a size such as "512MiB", "2GiB", "64m" or "4096".
// Binary units for the short forms, as tmpfs and docker read them.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, invalid("size %q: want a positive number with an optional unit such as 64MiB or 2GiB", s)
	}
	return n * mult, nil
}

// FormatSize writes n bytes in the largest binary unit not above it, whole
// when exact ("256MiB") and with one decimal otherwise ("64.8GiB").
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		switch {
		case n < u.mult:
		case n%u.mult == 0:
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		default:
			return strconv.FormatFloat(float64(n)/float64(u.mult), 'f', 1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
