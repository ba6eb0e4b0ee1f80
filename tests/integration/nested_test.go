//go:build integration

package integration

import (
	"os"
	"strings"
	"testing"
)

// TestNestedLaunch: a delegating member launches children through the
// broker outside; each child is as narrow as asked, and everything wider
// than the requester is refused with the offending path or host named.
func TestNestedLaunch(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w, sub, r := f.dir("w"), f.dir("w/sub"), f.dir("r")
		script := `
acbox run -w ` + sub + ` -- sh -c 'echo child > ` + sub + `/made; cat /proc/self/status | grep -q "^Seccomp:.2" && echo seccomp-ok'; echo narrow=$?
acbox run -w ` + r + ` -- true 2>/dev/null; echo write-in-read=$?
acbox run -r /etc -- true 2>/dev/null; echo outside=$?
acbox run --net host -- true 2>/dev/null; echo net-host=$?
acbox run --allow example.com -- true 2>/dev/null; echo net-proxy=$?
acbox run --mount /var:/x -- true 2>/dev/null; echo mount=$?
acbox run --delegate -r ` + r + ` -- sh -c 'acbox run -- true; echo depth2=$?; acbox run --delegate -- true 2>/dev/null; echo delegate-at-max=$?'
`
		res := runBox(t, m, "run", "--delegate", "-w", w, "-r", r, "--", "sh", "-c", script)
		if res.code != 0 {
			t.Fatalf("%v", res)
		}
		for _, want := range []string{"seccomp-ok", "narrow=0", "write-in-read=125", "outside=125", "net-host=125", "net-proxy=125", "mount=125", "depth2=0", "delegate-at-max=125"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("missing %q\n%v", want, res)
			}
		}
		if out := readFile(t, sub+"/made"); out != "child\n" {
			t.Errorf("the child's write did not land: %q", out)
		}
	})
}

// TestNoDelegationByDefault: without --delegate there is no broker and no
// acbox inside, and a nested acbox cannot create namespaces.
func TestNoDelegationByDefault(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		res := runBox(t, m, "run", "--", "sh", "-c", `echo sock=${ACBOX_SOCKET:-none}; test -e /.acbox && echo has-acbox-dir; unshare -U true 2>/dev/null; echo unshare=$?`)
		if !strings.Contains(res.stdout, "sock=none") || strings.Contains(res.stdout, "has-acbox-dir") || strings.Contains(res.stdout, "unshare=0") {
			t.Fatalf("%v", res)
		}
	})
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
