//go:build integration

package lifecycle

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// fillSockets queues Unix socket buffers, never read, until it cannot: the
// memory is the kernel's, charged to the sandbox's memory cgroup but to no
// process, so the OOM killer weighs the processes by their own small
// resident memory. Perl, smaller than pid 1 (a Go program).
const fillSockets = `use Socket; use Fcntl; my $buf = "x" x 65536; my @k;
for (1..100000) { socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or last; setsockopt($a, SOL_SOCKET, SO_SNDBUF, 4<<20);
fcntl($a, F_SETFL, O_NONBLOCK); while (syswrite($a, $buf)) {} push @k, $a, $b }
print "filled\n"; sleep 30;`

// TestOOMPicksMember: under --memory, a member process that fills socket
// buffers is the one the cgroup's OOM killer takes (its oom_score_adj is
// 1000), not pid 1: the member's shell sees its child killed and exits 0.
// Before, pid 1 had the most resident memory and was taken, and with it
// the whole sandbox (acbox exited 137, or 126 when pid 1 died before its
// ready message).
func TestOOMPicksMember(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root gets a memory cgroup of its own on this host")
	}
	if _, err := os.Stat("/usr/bin/perl"); err != nil {
		t.Skip("no /usr/bin/perl")
	}
	eachUser(t, func(t *testing.T, r *runner) {
		if r.uid != 0 {
			return // rlimits only, no cgroup
		}
		out, errs, code := r.run(t, "run", "--memory", "128MiB", "--", "sh", "-c", "perl -e '"+fillSockets+"'; echo filler=$?")
		if code != 0 || !strings.Contains(out, "filler=137") {
			t.Fatalf("exit %d, stdout %q, want 0 and filler=137 (the filler killed, the member's shell not); stderr: %s", code, out, errs)
		}
	})
}

// TestMemberOOMScoreAdj: the member, and a child it forks at once, have
// oom_score_adj 1000 from their first instruction; pid 1 keeps the value
// acbox had.
func TestMemberOOMScoreAdj(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		c := r.cmd("run", "--", "sh", "-c", "cat /proc/self/oom_score_adj; exec sleep 7314")
		stdout, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		c.Stderr = &errb
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if strings.TrimSpace(line) != "1000" {
			t.Errorf("the member's first child has oom_score_adj %q, want 1000; stderr: %s", line, errb.String())
		}
		e := r.waitPs(t, 1)[0]
		if own, pid1 := oomScoreAdj(t, c.Process.Pid), oomScoreAdj(t, e.HelperPid); pid1 != own {
			t.Errorf("pid 1 has oom_score_adj %d, acbox %d: pid 1 must keep its own", pid1, own)
		}
		r.run(t, "stop", e.ID)
	})
}

func oomScoreAdj(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/oom_score_adj")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return v
}
