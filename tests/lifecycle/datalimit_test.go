//go:build integration

package lifecycle

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// raiseData tries to lift the member's RLIMIT_DATA both ways a program can
// (setrlimit, and prlimit on itself) and prints what it saw, one line each.
const raiseData = `
import resource
before = resource.getrlimit(resource.RLIMIT_DATA)
print("before", before[0])
for name, call in (("setrlimit", lambda: resource.setrlimit(resource.RLIMIT_DATA, (before[1], before[1]))),
                   ("prlimit", lambda: resource.prlimit(0, resource.RLIMIT_DATA, (before[1], before[1])))):
    try:
        call(); print(name, "RAISED")
    except (ValueError, OSError) as e:
        print(name, "refused", e)
print("after", resource.getrlimit(resource.RLIMIT_DATA)[0])
`

// TestMemberCannotRaiseItsDataLimit: --memory is the member's RLIMIT_DATA,
// a soft limit under an unlimited hard one; the member's filter refuses
// setting it, so it stays at --memory (attack repro-1, 2026-12-01: the
// member raised it and wrote 700 MiB under --memory 256MiB).
func TestMemberCannotRaiseItsDataLimit(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		out, stderr, code := r.run(t, "run", "--memory", tightMemory, "--", "python3", "-c", raiseData)
		t.Logf("%s: exit %d\n%s", r.name, code, out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		want := "before 268435456\n"
		if !strings.HasPrefix(out, want) {
			t.Errorf("the member's RLIMIT_DATA is not --memory %s: %q", tightMemory, out)
		}
		if strings.Contains(out, "RAISED") || !strings.Contains(out, "after 268435456\n") {
			t.Errorf("the member raised its RLIMIT_DATA:\n%s", out)
		}
	})
}

// stackPast maps 512 MiB with MAP_GROWSDOWN and writes it, then tries to
// raise RLIMIT_STACK, and prints what it saw, one line each.
const stackPast = `
import mmap, resource
try:
    m = mmap.mmap(-1, 512 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x100)
    for i in range(0, 512 << 20, 1 << 20):
        m[i:i + (1 << 20)] = b"x" * (1 << 20)
    print("growsdown TOUCHED")
except OSError as e:
    print("growsdown refused", e.errno)
soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
print("stack", soft, hard)
try:
    resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("stack RAISED")
except (ValueError, OSError) as e:
    print("stack refused", e)
`

// TestMemberCannotHoldStackPastItsDataLimit: the data limit does not count
// stacks (VM_STACK), so a MAP_GROWSDOWN mapping and a raised RLIMIT_STACK
// each held 512 MiB under --memory 128MiB (attack repro-1, second round,
// 2026-12-01). The filter refuses the flag (EPERM), and pid 1 sets the
// stack limit with soft = hard, finite.
func TestMemberCannotHoldStackPastItsDataLimit(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		out, stderr, code := r.run(t, "run", "--memory", tightMemory, "--", "python3", "-c", stackPast)
		t.Logf("%s: exit %d\n%s", r.name, code, out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(out, "growsdown refused 1\n") {
			t.Errorf("mmap(MAP_GROWSDOWN) was not refused with EPERM:\n%s", out)
		}
		var soft, hard string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "stack" {
				soft, hard = f[1], f[2]
			}
		}
		if soft == "" || soft != hard || soft == "-1" {
			t.Errorf("RLIMIT_STACK is %s/%s, want finite with soft = hard", soft, hard)
		}
		if strings.Contains(out, "RAISED") || !strings.Contains(out, "stack refused") {
			t.Errorf("the member raised its RLIMIT_STACK:\n%s", out)
		}
	})
}

// TestThreadsWithAnUnlimitedStack: a caller whose soft RLIMIT_STACK is
// unlimited (common on CI runners) once gave the member a stack limit of
// --memory; glibc sizes each thread's stack from that limit and the stack
// counts against the data limit (also --memory), so no thread could start
// (a reviewer's finding). The member now gets the kernel's 8 MiB default.
func TestThreadsWithAnUnlimitedStack(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &old); err != nil || old.Max != unix.RLIM_INFINITY {
		t.Skipf("the hard stack limit is not unlimited here (%v)", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_STACK, &unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	defer unix.Setrlimit(unix.RLIMIT_STACK, &old)
	eachUser(t, func(t *testing.T, r *runner) {
		out, stderr, code := r.run(t, "run", "--memory", tightMemory, "--", "python3", "-c",
			"import threading, resource; t = threading.Thread(target=lambda: print('thread ran')); t.start(); t.join(); print('stack', *resource.getrlimit(resource.RLIMIT_STACK))")
		if code != 0 || !strings.Contains(out, "thread ran") || !strings.Contains(out, "stack 8388608 8388608") {
			t.Fatalf("exit %d, want a thread started and an 8 MiB stack limit:\n%s%s", code, out, stderr)
		}
	})
}
