//go:build integration

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPidNamespace: /proc shows only the member, which is not pid 1; pid 1
// (acbox's helper) exists but is invisible to it. Shell builtins only, so
// the member starts no process of its own while it looks.
func TestPidNamespace(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		r := runBox(t, m, "run", "--", "sh", "-c", `echo "$$"; echo /proc/[0-9]*`)
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 2 {
			t.Fatalf("unexpected output:\n%v", r)
		}
		self := lines[0]
		if self == "1" {
			t.Errorf("the member is pid 1; pid 1 must be acbox's helper")
		}
		// pid 1 (acbox's helper) is not dumpable and /proc is mounted with
		// hidepid=invisible: the member sees only its own processes.
		if got, want := lines[1], "/proc/"+self; got != want {
			t.Errorf("processes visible in the sandbox: %q, want %q", got, want)
		}
	})
}

// TestPrivileges: the member runs in a session of its own, with every
// capability set empty, no_new_privs and a seccomp filter; it cannot
// create a user namespace. In host mode too, where pid 1 keeps
// CAP_SYS_PTRACE for the listen guard and must not pass it on.
func TestPrivileges(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) is not on this host")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for _, netMode := range []string{"none", "host"} {
			t.Run(netMode, func(t *testing.T) { privileges(t, m, netMode) })
		}
	})
}

func privileges(t *testing.T, m mode, netMode string) {
	probe(t, m, []string{"--net", netMode}, `
field() { awk -v k="$1:" '$1 == k { print $2 }' /proc/$$/status; }
stat() { set -- $(cat /proc/$1/stat); echo "$6"; }
yes own-session       'test "$(stat $$)" = "$$"'
yes not-pid1-session  'test "$(stat 1)" != "$$"'
yes CapEff-zero       'test "$(field CapEff)" = 0000000000000000'
yes CapPrm-zero       'test "$(field CapPrm)" = 0000000000000000'
yes CapInh-zero       'test "$(field CapInh)" = 0000000000000000'
yes CapBnd-zero       'test "$(field CapBnd)" = 0000000000000000'
yes CapAmb-zero       'test "$(field CapAmb)" = 0000000000000000'
yes NoNewPrivs        'test "$(field NoNewPrivs)" = 1'
yes Seccomp-filter    'test "$(field Seccomp)" = 2'
yes unshare-present   'unshare --help'
no  unshare-user      'unshare -U true'
no  unshare-map-root  'unshare -r true'
no  unshare-net       'unshare -n true'
no  unshare-mount     'unshare -m true'
`)
}

// TestSessionOnHost: seen from the host, the member leads a session other
// than acbox's, so it cannot reach acbox's terminal or session.
func TestSessionOnHost(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		mk := newMarker()
		b := startBox(t, m, "run", "--", "sh", "-c", "echo ready; exec sleep "+mk)
		b.waitLine(t, "ready")
		var member int
		waitFor(5*time.Second, func() bool {
			p := markedProcesses([]string{mk})
			for _, pid := range p {
				if cmd, _ := procCmdline(pid); strings.HasPrefix(cmd, "sleep") {
					member = pid
				}
			}
			return member != 0
		})
		if member == 0 {
			t.Fatal("the member (sleep) did not appear in the host's /proc")
		}
		acboxSid, err := sessionOf(b.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		sid, err := sessionOf(member)
		if err != nil {
			t.Fatal(err)
		}
		if sid == acboxSid {
			t.Errorf("the member shares acbox's session %d", sid)
		}
		if sid != member {
			t.Errorf("the member (host pid %d) is in session %d, want a session of its own", member, sid)
		}
		b.cmd.Process.Signal(syscall.SIGTERM)
		b.wait(t, 10*time.Second)
	})
}

func procCmdline(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "), err
}

// sessionOf reads the session id (field 6) of /proc/PID/stat.
func sessionOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 {
		return 0, fmt.Errorf("short /proc/%d/stat: %q", pid, s)
	}
	return strconv.Atoi(f[3])
}

// TestExitCodes: acbox exits with the member's status, 128+N when the
// member was killed by signal N.
func TestExitCodes(t *testing.T) {
	cases := []struct {
		name, script string
		want         int
	}{
		{"zero", "exit 0", 0},
		{"seven", "exit 7", 7},
		{"max", "exit 255", 255},
		{"sigterm", "kill -TERM $$", 143},
		{"sigkill", "kill -KILL $$", 137},
		{"command not found in sandbox", "exec /nonexistent-acbox-it", 127},
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for _, c := range cases {
			r := runBox(t, m, "run", "--", "sh", "-c", c.script)
			if r.code != c.want {
				t.Errorf("%s: member `%s`: acbox exited %d, want %d\n%v", c.name, c.script, r.code, c.want, r)
			}
		}
	})
}

// TestSignalForwarding: SIGTERM and SIGINT sent to acbox reach the member,
// which can trap them (exit 42) or die of them (128+N).
func TestSignalForwarding(t *testing.T) {
	cases := []struct {
		name string
		sig  syscall.Signal
		trap bool
		want int
	}{
		{"TERM trapped", syscall.SIGTERM, true, 42},
		{"INT trapped", syscall.SIGINT, true, 42},
		{"HUP trapped", syscall.SIGHUP, true, 42},
		{"QUIT trapped", syscall.SIGQUIT, true, 42},
		{"USR1 trapped", syscall.SIGUSR1, true, 42},
		{"USR2 trapped", syscall.SIGUSR2, true, 42},
		{"TERM default", syscall.SIGTERM, false, 143},
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				mk := newMarker()
				script := "echo ready; sleep " + mk + " & wait $!"
				if c.trap {
					script = "trap 'exit 42' TERM INT HUP QUIT USR1 USR2; " + script
				}
				b := startBox(t, m, "run", "--", "sh", "-c", script)
				b.waitLine(t, "ready")
				if err := b.cmd.Process.Signal(c.sig); err != nil {
					t.Fatal(err)
				}
				if got := b.wait(t, 10*time.Second); got != c.want {
					t.Errorf("member %q after %v to acbox: acbox exited %d, want %d; stderr:\n%s", script, c.sig, got, c.want, b.stderr)
				}
				if left := waitGone(mk); len(left) > 0 {
					t.Errorf("processes of the sandbox outlived it: %v", left)
					killAll(left)
				}
			})
		}
	})
}

// waitGone waits up to 5s for every process holding marker to end and
// returns those still there.
func waitGone(marker string) []int {
	var left []int
	waitFor(5*time.Second, func() bool {
		left = nil
		for _, p := range markedProcesses([]string{marker}) {
			if alive(p) {
				left = append(left, p)
			}
		}
		return len(left) == 0
	})
	return left
}

// TestDieWithParent: when acbox is SIGKILLed, every process of the sandbox
// dies with it, including ones that left the session or double-forked.
func TestDieWithParent(t *testing.T) {
	cases := []struct {
		name, script string
		procs        int // marked processes to wait for before the kill
	}{
		{"setsid", "setsid sleep MK & sleep MK", 2},
		{"double fork", "(sh -c 'sleep MK &' &); sleep MK", 2},
		{"ignores signals", "trap '' TERM INT HUP; (trap '' TERM INT HUP; setsid sleep MK &); sleep MK", 2},
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				mk := newMarker()
				script := strings.ReplaceAll(c.script, "MK", mk)
				b := startBox(t, m, "run", "--", "sh", "-c", "echo ready; "+script)
				b.waitLine(t, "ready")
				var sleeps []int
				if !waitFor(5*time.Second, func() bool {
					sleeps = nil
					for _, p := range markedProcesses([]string{mk}) {
						if cmd, _ := procCmdline(p); strings.HasPrefix(cmd, "sleep") || strings.HasPrefix(cmd, "/usr/bin/sleep") {
							sleeps = append(sleeps, p)
						}
					}
					return len(sleeps) >= c.procs
				}) {
					t.Fatalf("only %d of %d sleeps started", len(sleeps), c.procs)
				}
				helpers := childrenOf(b.cmd.Process.Pid)
				if err := b.cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				b.wait(t, 5*time.Second)
				if left := waitGone(mk); len(left) > 0 {
					t.Errorf("processes of the sandbox survived acbox's SIGKILL: %v", describe(left))
					killAll(left)
				}
				// The helper (pid 1 of the sandbox) may take a moment to be
				// torn down after its namespace's last member.
				var stuck []int
				waitFor(5*time.Second, func() bool {
					stuck = nil
					for _, h := range helpers {
						if alive(h) {
							stuck = append(stuck, h)
						}
					}
					return len(stuck) == 0
				})
				if len(stuck) > 0 {
					t.Errorf("acbox's children survived its SIGKILL by 5s: %s", describe(stuck))
					killAll(stuck)
				}
			})
		}
	})
}

func describe(pids []int) string {
	var parts []string
	for _, p := range pids {
		cmd, _ := procCmdline(p)
		parts = append(parts, fmt.Sprintf("%d(%s)", p, cmd))
	}
	return strings.Join(parts, ", ")
}

// TestPid1OutsideMemberDomain: pid 1 must never share the member's Landlock
// domain. The member's restrictions are applied on one thread of pid 1; if
// that thread were pid 1's main thread (its thread group leader), the
// member could signal pid 1. It happened in about 1 launch in 75 before pid
// 1's main goroutine was locked to the main thread, so this runs many.
func TestPid1OutsideMemberDomain(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for i := 0; i < 40; i++ {
			r := runBox(t, m, "run", "--", "sh", "-c", `kill -0 1 2>/dev/null && echo LEAK; true`)
			if strings.Contains(r.stdout, "LEAK") || r.code != 0 {
				t.Fatalf("launch %d: the member could signal pid 1\n%v", i, r)
			}
		}
	})
}

// TestZombiesReaped: orphans that exit are reaped by the sandbox's pid 1;
// none stays a zombie while the member runs on.
func TestZombiesReaped(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		// Counted until none is left (at most 5 s): an orphan that exits
		// while the count runs is a zombie until pid 1 gets to it.
		script := `for i in 1 2 3 4 5; do (sh -c 'exit 0' &) ; done
for try in $(seq 50); do sleep 0.1
z=0; for s in /proc/[0-9]*/stat; do st=$(cut -d')' -f2 "$s" 2>/dev/null | cut -d' ' -f2); [ "$st" = Z ] && z=$((z+1)); done
[ $z = 0 ] && break; done; echo zombies=$z`
		r := runBox(t, m, "run", "--", "sh", "-c", script)
		if r.code != 0 || !strings.Contains(r.stdout, "zombies=0") {
			t.Fatalf("%v", r)
		}
	})
}
