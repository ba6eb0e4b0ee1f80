//go:build integration

package docker_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTerminal runs the member on the container's own terminal, with
// acbox itself on a terminal that script(1) provides: the member sees a
// tty on stdin and stdout, the size set outside, and its exit status
// comes back.
func TestTerminal(t *testing.T) {
	e := setup(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) missing (util-linux)")
	}
	inner := "stty cols 91 rows 17; " + e.bin + " run --backend docker --image " + image +
		" --tty -- sh -c 'test -t 0 && test -t 1 && echo ON-TTY; stty size; exit 5'"
	cmd := exec.Command("script", "-qec", inner, "/dev/null")
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != 5 || !strings.Contains(string(out), "ON-TTY") || !strings.Contains(string(out), "17 91") {
		t.Fatalf("%v: %q; want ON-TTY, size 17 91 and exit 5", err, out)
	}
	e.noneLeft(t)
}
