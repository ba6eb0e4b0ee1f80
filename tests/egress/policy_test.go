//go:build integration

package egress

import (
	"github.com/acbox/acbox/tests/testenv"

	"os/user"
	"strings"
	"testing"
)

// The member's view of the network, checked from inside real sandboxes.
// Each line of the script prints "name=result" for one attempt.
const script = `
c() { curl -s -o /dev/null -m 5 -w '%{http_code}' "$@"; }
echo allowed=$(c http://origin.test/)
echo allowed_port=$(c http://origin.test:8080/)
echo other_name=$(c http://other.test/)
echo private=$(c http://private.test/)
echo loopback=$(c http://loop.test/)
echo literal=$(c http://93.184.0.1/)
echo decimal=$(c http://1572339713/)
echo connect_other_port=$(curl -s -o /dev/null -m 5 -p -w '%{http_connect}' http://origin.test:22/)
echo direct=$(c --noproxy '*' http://93.184.0.1/)
echo python=$(python3 -c 'import urllib.request; print(urllib.request.urlopen("http://origin.test/", timeout=5).status)' 2>/dev/null || echo fail)
echo udp=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("93.184.0.1", 53)); print("sent")' 2>/dev/null || echo refused)
`

var want = map[string]string{
	"allowed": "200", "allowed_port": "403", "other_name": "403", "private": "403", "loopback": "403",
	"literal": "403", "decimal": "403", "connect_other_port": "403", "direct": "000", "python": "200", "udp": "refused",
}

func TestEgressEndToEnd(t *testing.T) {
	w := newWorld(t)
	modes := []string{""}
	if u, err := user.Lookup(testUser()); err == nil {
		modes = append(modes, u.Username)
	}
	for _, m := range modes {
		name := "root"
		if m != "" {
			name = "user"
		}
		t.Run(name, func(t *testing.T) { checkPolicy(t, w, m) })
	}
}

func checkPolicy(t *testing.T, w *world, user string) {
	out, events, code := w.run(t, user, "--allow", "origin.test", "--allow", "private.test", "--allow", "loop.test", "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	for _, s := range []string{`"event":"egress","`, `"allowed":true,"host":"origin.test"`, `"allowed":false,"host":"other.test"`, `"host":"private.test"`} {
		if !strings.Contains(events, s) {
			t.Errorf("events lack %s:\n%s", s, events)
		}
	}
	if strings.Contains(events, `"allowed":true,"host":"private.test"`) {
		t.Errorf("private.test was allowed:\n%s", events)
	}
}

func TestNoNetworkWithoutProxy(t *testing.T) {
	w := newWorld(t)
	out, _, _ := w.run(t, "", "--", "sh", "-c", `curl -s -o /dev/null -m 3 -w '%{http_code}' -x http://127.0.0.1:3128 http://origin.test/; echo; cat /proc/net/dev | tail -n +3 | cut -d: -f1`)
	if !strings.HasPrefix(out, "000") || strings.Contains(out, "v0") {
		t.Fatalf("--net none: want no proxy and only lo, got:\n%s", out)
	}
}

func testUser() string { return testenv.UserName() }
