package profile

import "testing"

// Docker's default profile allows fcntl whatever the command; acbox's
// refuses leases and delegations with the native filter's EACCES and
// narrows the allow rule around them, so every other command still runs.
// The kernel reads the command as an unsigned int: junk in the high half
// is refused too (TestProfileAllowsNoHighArgBits).
func TestProfileRefusesLeases(t *testing.T) {
	p := Build()
	for _, c := range []struct {
		name string
		args []uint64
		want string
	}{
		{"read lease", []uint64{3, 1024, 0}, "errno 13"},
		{"write lease", []uint64{3, 1024, 1}, "errno 13"},
		{"lease, high bits", []uint64{3, 1<<32 | 1024, 1}, "errno 13"},
		{"delegation", []uint64{3, 1040, 0x1000}, "errno 13"},
		{"get lease", []uint64{3, 1025}, "allow"},
		{"dnotify", []uint64{3, 1026, 2}, "allow"},
		{"get delegation", []uint64{3, 1039, 0x1000}, "allow"},
		{"getfl", []uint64{3, 3}, "allow"},
		{"setfl", []uint64{3, 4, 0o4000}, "allow"},
		{"setlkw", []uint64{3, 7, 0x1000}, "allow"},
		{"dupfd cloexec", []uint64{3, 1030, 10}, "allow"},
		{"add seals", []uint64{3, 1033, 1}, "allow"},
		{"any command below 2^32", []uint64{3, 0xffff_ffff}, "allow"},
	} {
		if got := verdict(t, p, "fcntl", c.args...); got != c.want {
			t.Errorf("%s: fcntl(%#x) = %s, want %s", c.name, c.args, got, c.want)
		}
	}
}
