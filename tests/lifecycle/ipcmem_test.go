//go:build integration

package lifecycle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ipcMemory is the --memory of these tests (the smallest acbox takes).
const ipcMemory = 128 << 20

// fillQueues is the member: it prints the IPC namespace's limits, then
// makes message queues of 8 KiB messages until the kernel refuses one or
// it holds twice --memory of text (argv[1] bytes), and prints the total.
const fillQueues = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
lim = [open("/proc/sys/kernel/" + n).read().split()[0] for n in ("msgmni", "msgmnb", "shmall")]
print("limits", *lim, flush=True)
target, held, queues = int(sys.argv[1]), 0, 0
buf = ctypes.create_string_buffer(8 + 8192); buf[0] = b"\x01"
while held < target:
    q = libc.msgget(0, 0o1600)
    if q < 0:
        break
    queues += 1
    while held < target and libc.msgsnd(q, buf, 8192, 0o4000) == 0:
        held += 8192
print("held", held, "queues", queues, "errno", ctypes.get_errno(), flush=True)
`

// TestMessageQueuesWithinMemory: the sandbox's System V IPC limits let
// message queues (worst case: empty messages, 72 bytes of kernel memory
// each, measured) and shared memory hold at most a quarter of --memory
// each, and a member that tries to hold half of --memory in message queues
// is refused at a quarter (half, not more: on the old code a user's member
// holds all it asks for, outside any limit). Before, the IPC namespace had
// the kernel's defaults: 32,000 queues of 16 KiB, 500 MiB (attack repro-3
// of 2026-12-02). A user's pid 1 cannot write them in the sandbox's IPC
// namespace (only the namespace's uid 0 may), so it has a child write them
// in one of its own; this holds for both users.
func TestMessageQueuesWithinMemory(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		rep := filepath.Join(r.out(), "ipc.json")
		out, stderr, code := r.run(t, "run", "--no-tty", "--memory", strconv.Itoa(ipcMemory), "--report", rep, "--",
			"/usr/bin/python3", "-c", fillQueues, strconv.Itoa(ipcMemory/2))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		t.Logf("%s: %s", r.name, strings.ReplaceAll(strings.TrimSpace(out), "\n", "; "))
		lim, held := ipcFields(t, out)
		if worst := lim[0] * lim[1] * 72; worst > ipcMemory/4 {
			t.Errorf("msgmni %d x msgmnb %d x 72 bytes = %d MiB of message queues; want at most a quarter of --memory (%d MiB)",
				lim[0], lim[1], worst>>20, ipcMemory/4>>20)
		}
		if shm := lim[2] * 4096; shm > ipcMemory/4 {
			t.Errorf("shmall %d pages = %d MiB of shared memory; want at most a quarter of --memory", lim[2], shm>>20)
		}
		if held[0] > ipcMemory/4 {
			t.Errorf("the member held %d MiB in message queues under --memory %d MiB", held[0]>>20, ipcMemory>>20)
		}
		if ctl := reportControl(t, rep, "ipc_limits"); !ctl.Enforced {
			t.Errorf("report: ipc_limits %+v; want enforced", ctl)
		}
	})
}

// ipcFields parses the member's "limits" and "held" lines.
func ipcFields(t *testing.T, out string) (lim, held []int64) {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		var dst *[]int64
		switch {
		case len(f) == 4 && f[0] == "limits":
			dst, f = &lim, f[1:]
		case len(f) == 6 && f[0] == "held":
			dst, f = &held, []string{f[1], f[3], f[5]}
		default:
			continue
		}
		for _, s := range f {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatalf("member line %q: %v", l, err)
			}
			*dst = append(*dst, int64(min(n, 1<<40))) // unlimited shmall: 2^64 less a little

		}
	}
	if len(lim) != 3 || len(held) != 3 {
		t.Fatalf("member output %q: want a limits and a held line", out)
	}
	return lim, held
}

// control is one entry of the report's controls.
type control struct {
	Name      string `json:"name"`
	Requested bool   `json:"requested"`
	Enforced  bool   `json:"enforced"`
	Why       string `json:"why"`
}

// reportControl reads the named control from a report file.
func reportControl(t *testing.T, path, name string) control {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var rep struct {
		Controls []control `json:"controls"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	for _, c := range rep.Controls {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("report %s has no control %s", path, name)
	return control{}
}
