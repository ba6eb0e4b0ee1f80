package nsjail

import (
	"strconv"
	"strings"
	"testing"
)

// hostIPC is a kernel's defaults in a fresh IPC namespace.
var hostIPC = map[string]string{"msgmni": "32000", "msgmnb": "16384", "shmmax": "18446744073692774399",
	"shmall": "18446744073692774399", "sem": "32000 1024000000 500 32000"}

func ipcCap(t *testing.T, caps []ipcLimit, name string) []int64 {
	t.Helper()
	for _, c := range caps {
		if c.Name == name {
			var out []int64
			for _, f := range strings.Fields(c.Cap) {
				n, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					t.Fatalf("%s cap %q: %v", name, c.Cap, err)
				}
				out = append(out, n)
			}
			return out
		}
	}
	t.Fatalf("no cap for %s in %+v", name, caps)
	return nil
}

// TestIPCCapsWithinMemory: for every --memory from the smallest, each
// class's worst case fits a quarter of it, with the host's defaults.
func TestIPCCapsWithinMemory(t *testing.T) {
	for _, mem := range []int64{128 << 20, 1 << 30, 2 << 30, 64 << 30} {
		for _, pids := range []int{64, 1024, 32768} {
			caps := ipcLimitCaps(hostIPC, mem, pids)
			budget := mem / ipcShare
			mni, mnb := ipcCap(t, caps, "msgmni")[0], ipcCap(t, caps, "msgmnb")[0]
			if mni < 1 || mni*mnb*msgCost > budget {
				t.Errorf("memory %d: msgmni %d x msgmnb %d x %d passes %d", mem, mni, mnb, msgCost, budget)
			}
			if shm := ipcCap(t, caps, "shmall")[0] * pageSize; shm > budget {
				t.Errorf("memory %d: shmall %d bytes passes %d", mem, shm, budget)
			}
			sem := ipcCap(t, caps, "sem")
			p := int64(pids)
			if cost := sem[1]*(semCost+semAdjCost*p) + sem[3]*(semSetCost+semUndoCost*p); cost > budget || sem[0] > sem[1] {
				t.Errorf("memory %d pids %d: sem %v costs %d, budget %d", mem, pids, sem, cost, budget)
			}
		}
	}
}

// TestIPCCapsNeverAboveHost: a host with smaller limits keeps them.
func TestIPCCapsNeverAboveHost(t *testing.T) {
	small := map[string]string{"msgmni": "4", "msgmnb": "2048", "shmmax": "4096", "shmall": "1", "sem": "10 20 5 2"}
	caps := ipcLimitCaps(small, 64<<30, 1024)
	for _, c := range caps {
		if c.Cap != c.Host {
			t.Errorf("%s: cap %q above or unlike the host's %q", c.Name, c.Cap, c.Host)
		}
	}
}

// TestIPCCapsUnparsedRefused: a host value that cannot be parsed leaves
// the cap empty, which pid 1 refuses (never an unlimited default).
func TestIPCCapsUnparsedRefused(t *testing.T) {
	caps := ipcLimitCaps(map[string]string{"sem": "garbage"}, 1<<30, 1024)
	if len(caps) != 1 || caps[0].Cap != "" {
		t.Fatalf("caps for an unparsable sem: %+v", caps)
	}
}
