//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
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

// TestNestedNoWidening: the ways a child could get more than its requester
// are refused: a runtime mount of a path outside its requester's grants at
// the delegation directory (once exempt from the check), a mount at the
// broker socket's path, the host view, another backend (docker from a
// native requester: no Landlock, no user namespace; auto is the
// requester's), larger limits; a child without limits inherits the requester's (seen in
// its --report, which a nested launch writes too); and pass_env reads the
// requesting sandbox's environment, not the host's.
func TestNestedNoWidening(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w, outside := f.dir("w"), f.dir("outside")
		script := `
acbox run --mount ` + outside + `:/.acbox/w:rw -- true 2>/dev/null; echo mount-at-delegation-dir=$?
acbox run --mount ` + w + `:/.acbox/broker.sock -- true 2>/dev/null; echo reserved-target=$?
acbox run --view host -- true 2>/dev/null; echo host-view=$?
acbox run --memory 8GiB -- true 2>/dev/null; echo more-memory=$?
acbox run --pids 4096 -- true 2>/dev/null; echo more-pids=$?
acbox run --backend docker -- true 2>&1 | grep -q 'runs on the native backend' && echo backend-named; acbox run --backend docker -- true 2>/dev/null; echo other-backend=$?
acbox run --backend auto -- true; echo auto-backend=$?
acbox run --memory 128MiB -- true; echo less-memory=$?
acbox run --report ` + w + `/r.json -- true && grep -q '"268435456"' ` + w + `/r.json && echo inherited-memory
grep -q '"exit_scan"' ` + w + `/r.json && echo nested-report
INNER=inside acbox run --pass-env INNER --pass-env OUTER_SECRET -- sh -c 'echo inner=$INNER secret=${OUTER_SECRET:-unset}'
`
		res := runBoxEnv(t, m, []string{"OUTER_SECRET=host-only"}, "run", "--delegate", "--memory", "256MiB", "--pids", "64", "-w", w, "--", "sh", "-c", script)
		if res.code != 0 {
			t.Fatalf("%v", res)
		}
		for _, want := range []string{"mount-at-delegation-dir=125", "reserved-target=125", "host-view=125", "more-memory=125", "more-pids=125", "other-backend=125", "backend-named", "auto-backend=0", "less-memory=0",
			"inherited-memory", "nested-report", "inner=inside secret=unset"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("missing %q\n%v", want, res)
			}
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

// TestStopDeepestFirst: `acbox stop` of a delegating sandbox stops its
// nested children first, deepest first, then the sandbox itself, and
// nothing of any of them is left.
func TestStopDeepestFirst(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w, sub := f.dir("w"), f.dir("w/sub")
		marker := fmt.Sprintf("sleep 1000.%09d", time.Now().UnixNano()%1e9)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := m.command(ctx, nil, "run", "--delegate", "-w", w, "--", "sh", "-c",
			`acbox run --delegate -w `+sub+` -- sh -c "acbox run -- `+marker+`"`)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		var ids []string
		for end := time.Now().Add(10 * time.Second); len(ids) < 3 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			ids = psIDs(t, m, w)
		}
		if len(ids) < 3 {
			t.Fatalf("want 3 sandboxes, ps shows %v", ids)
		}
		r := runBox(t, m, "stop", ids[0])
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[2], ids[0]) || !strings.Contains(lines[0], "pid 1") {
			t.Fatalf("stop: want the two children first, then %s\n%v", ids[0], r)
		}
		if left := psIDs(t, m, w); len(left) != 0 {
			t.Fatalf("still listed after stop: %v", left)
		}
	})
}

// psIDs lists the sandbox whose write grant is w and its nested
// descendants, parents first (other tests run sandboxes at the same time),
// counting only those whose pid 1 is recorded (started).
func psIDs(t *testing.T, m mode, w string) []string {
	r := runBox(t, m, "ps", "--json")
	var es []struct {
		ID        string `json:"id"`
		Parent    string `json:"parent"`
		Depth     int    `json:"depth"`
		HelperPid int    `json:"helper_pid"`
		Access    struct {
			Write []string `json:"write"`
		} `json:"access"`
	}
	json.Unmarshal([]byte(r.stdout), &es)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Depth < es[j].Depth })
	mine := map[string]bool{}
	var out []string
	for _, e := range es {
		if e.HelperPid <= 0 {
			continue
		}
		if (e.Depth == 0 && len(e.Access.Write) == 1 && e.Access.Write[0] == w) || mine[e.Parent] {
			mine[e.ID] = true
			out = append(out, e.ID)
		}
	}
	return out
}

// TestNestedTmpfsCounts: a child's tmpfs mounts are memory, and count
// against the requester's limit; a child that names no limit gets default
// /tmp and home sizes shrunk to the requester's limit, so it still runs.
func TestNestedTmpfsCounts(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		script := `
acbox run --tmpfs /big:64GiB -- true 2>` + w + `/big.err; echo big=$?
acbox run --tmpfs /over:100MiB -- true 2>/dev/null; echo over=$?
acbox run --tmpfs /fits:64MiB -- sh -c 'df -k /tmp /fits | tail -2 | tr -s " " | cut -d" " -f2 | tr "\n" " "'; echo fits=$?
`
		res := runBox(t, m, "run", "--delegate", "--memory", "256MiB", "-w", w, "--", "sh", "-c", script)
		if res.code != 0 {
			t.Fatalf("%v", res)
		}
		// 64+32 MiB defaults, /dev/shm 64 MiB and 100 MiB make 260 MiB.
		for _, want := range []string{"big=125", "over=125", "65536 65536 fits=0"} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("missing %q\n%v", want, res)
			}
		}
		if msg := readFile(t, w+"/big.err"); !strings.Contains(msg, "/big") || !strings.Contains(msg, "256MiB") || !strings.Contains(msg, "tmpfs") {
			t.Errorf("the refusal does not name the tmpfs and the requester's limit: %q", msg)
		}
	})
}

// strictClient speaks the broker's wire protocol (4-byte length, JSON, the
// three standard streams as SCM_RIGHTS) with a request given as argv[1],
// the way a member that bypasses the acbox binary inside would, and prints
// the broker's last reply line.
const strictClient = `import json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["ACBOX_SOCKET"])
body = sys.argv[1].encode()
socket.send_fds(s, [struct.pack(">I", len(body)) + body], [0, 1, 2])
last = b""
for line in s.makefile("rb"):
    last = line
print("reply:", last.decode().strip())
`

// TestNestedStrictRequest: the broker refuses a request with a field it
// does not know, anywhere in it, naming the field (a typo'd "writ" or
// "sise" would otherwise be dropped silently and the child run without
// it); a well-formed request still runs.
func TestNestedStrictRequest(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		client := f.file("client.py", strictClient)
		cases := []struct{ name, req, want string }{
			{"well-formed", `{"spec":{"command":["true"]}}`, `reply: {"exit":0}`},
			{"top level", `{"spec":{"command":["true"]},"reprot":true}`, `reprot`},
			{"in the spec", `{"spec":{"command":["true"],"frobnicate":1}}`, `frobnicate`},
			{"deep", `{"spec":{"command":["true"],"tmpfs":[{"target":"/x","sise":"1GiB"}]}}`, `sise`},
			{"in access", `{"spec":{"command":["true"],"access":{"writ":["` + w + `"]}}}`, `writ`},
			{"a field in another case", `{"spec":{"Command":["true"]}}`, `Command`},
		}
		var script strings.Builder
		for _, c := range cases {
			fmt.Fprintf(&script, "python3 %s '%s'\n", client, c.req)
		}
		res := runBox(t, m, "run", "--delegate", "-r", f.root, "-w", w, "--", "sh", "-c", script.String())
		if res.code != 0 {
			t.Fatalf("%v", res)
		}
		replies := strings.Split(strings.TrimSpace(res.stdout), "\n")
		if len(replies) != len(cases) {
			t.Fatalf("want %d replies\n%v", len(cases), res)
		}
		for i, c := range cases {
			got := replies[i]
			if !strings.Contains(got, c.want) {
				t.Errorf("%s: %q, want %q in it", c.name, got, c.want)
			}
			if i > 0 && (!strings.Contains(got, `"code":2`) || !strings.Contains(got, "unknown field")) {
				t.Errorf("%s: not refused as malformed: %q", c.name, got)
			}
		}
	})
}
