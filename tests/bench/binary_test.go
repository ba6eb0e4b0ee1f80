//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBinary compares the release binary with the previous release build
// (ACBOX_PREV_BIN, built by `make bench` from $(PREV)): file size, and the
// package init that every acbox process pays, twice per launch (the parent
// and the sandbox's pid 1), read from GODEBUG=inittrace=1 on `acbox version`.
// The runtime's own init is reported apart: no package change moves it.
func TestBinary(t *testing.T) {
	bin, prev := acboxBin(t), os.Getenv("ACBOX_PREV_BIN")
	if prev == "" {
		t.Skip("ACBOX_PREV_BIN is not set; run `make bench`")
	}
	const n = 50
	fmt.Printf("binary and package init, %d runs each, interleaved; %s\n", n, machine())
	var pk, rt [2][]time.Duration
	for i := 0; i < n; i++ {
		for j, b := range []string{prev, bin} {
			p, r := initTrace(t, b)
			pk[j], rt[j] = append(pk[j], p), append(rt[j], r)
		}
	}
	var size [2]int64
	for j, b := range []string{prev, bin} {
		fi, err := os.Stat(b)
		if err != nil {
			t.Fatal(err)
		}
		size[j] = fi.Size()
	}
	fmt.Printf("  %-28s %8s %8s %6s\n", "", "previous", "now", "ratio")
	fmt.Printf("  %-28s %8.1f %8.1f %6.2f (target <= 0.75)\n", "binary size, MB", mb(size[0]), mb(size[1]), float64(size[1])/float64(size[0]))
	fmt.Printf("  %-28s %8.3f %8.3f %6.2f (target <= 0.5)\n", "package init, ms (median)", ms3(median(pk[0])), ms3(median(pk[1])), float64(median(pk[1]))/float64(median(pk[0])))
	fmt.Printf("  %-28s %8.3f %8.3f\n", "runtime init, ms (median)", ms3(median(rt[0])), ms3(median(rt[1])))
}

// initTrace runs `bin version` with inittrace and sums the clock of every
// package's init, and apart the runtime's.
func initTrace(t *testing.T, bin string) (pkgs, runtime time.Duration) {
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s version: %v\n%s", bin, err, errb.String())
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		f := strings.Fields(l) // init PKG @T ms, C ms clock, B bytes, A allocs
		if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		v, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		d := time.Duration(v * float64(time.Millisecond))
		if f[1] == "runtime" {
			runtime += d
		} else {
			pkgs += d
		}
	}
	return pkgs, runtime
}

func mb(n int64) float64          { return float64(n) / 1e6 }
func ms3(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
