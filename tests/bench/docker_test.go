//go:build bench

package bench

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestStartupDocker puts the docker backend's startup beside the native
// one for the same command, interleaved, as a ratio. Docker is about two
// orders of magnitude slower, so it runs fewer times.
func TestStartupDocker(t *testing.T) {
	bin := acboxBin(t)
	out, _ := exec.Command(bin, "status").CombinedOutput()
	if !strings.Contains(string(out), "docker: available") {
		t.Skipf("docker backend unavailable here: %s", strings.TrimSpace(string(out)))
	}
	const n = 15
	var native, docker []time.Duration
	for i := 0; i < n; i++ {
		d, err := timeRun([]string{bin, "run", "--", "true"})
		if err != nil {
			t.Fatal(err)
		}
		native = append(native, d)
		if d, err = timeRun([]string{bin, "run", "--backend", "docker", "--", "true"}); err != nil {
			t.Fatal(err)
		}
		docker = append(docker, d)
	}
	fmt.Printf("startup by backend, %d runs each, interleaved: native %.1f ms, docker %.1f ms, ratio docker/native %.0f\n",
		n, ms(median(native)), ms(median(docker)), float64(median(docker))/float64(median(native)))
}
