package nsjail

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

func TestCheckRoom(t *testing.T) {
	hard := func(nproc, data uint64) func(int, *unix.Rlimit) error {
		return func(res int, r *unix.Rlimit) error {
			switch res {
			case unix.RLIMIT_NPROC:
				r.Cur, r.Max = nproc, nproc
			case unix.RLIMIT_DATA:
				r.Cur, r.Max = data, data
			}
			return nil
		}
	}
	inf := uint64(unix.RLIM_INFINITY)
	for _, tc := range []struct {
		name        string
		limits      policy.Limits
		nproc, data uint64
		want        string // "" = allowed; else a fragment of the refusal
	}{
		{"both unlimited", policy.Limits{Pids: 1 << 30, Memory: 1 << 50}, inf, inf, ""},
		{"at the limit", policy.Limits{Pids: 4096, Memory: 1 << 30}, 4096, 1 << 30, ""},
		{"pids over", policy.Limits{Pids: 4097, Memory: 1 << 30}, 4096, inf, "--pids 4097: above acbox's hard limit on processes (RLIMIT_NPROC), 4096"},
		{"pids remedy", policy.Limits{Pids: 100000000, Memory: 1 << 30}, 96000, inf, "ask for at most --pids 96000"},
		{"memory over", policy.Limits{Pids: 10, Memory: 2 << 30}, inf, 1 << 30, "--memory 2048MiB: above acbox's hard limit on data size (RLIMIT_DATA), 1024MiB"},
		{"memory over by a byte", policy.Limits{Pids: 10, Memory: 1<<30 + 1}, inf, 1 << 30, "--memory 1073741825 bytes: above"},
		{"memory offered rounds down", policy.Limits{Pids: 10, Memory: 3 << 30}, inf, 3071999 << 10, "ask for at most --memory 2999MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkRoom(tc.limits, hard(tc.nproc, tc.data))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %s", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal containing %q", err, tc.want)
			}
			if policy.ExitCode(err) != policy.ExitRefused {
				t.Errorf("exit %d, want %d", policy.ExitCode(err), policy.ExitRefused)
			}
		})
	}
	broken := func(int, *unix.Rlimit) error { return errors.New("no") }
	if err := checkRoom(policy.Limits{Pids: 1}, broken); policy.ExitCode(err) != policy.ExitCannotSandbox {
		t.Errorf("a getrlimit failure: %v, want cannot sandbox", err)
	}
}
