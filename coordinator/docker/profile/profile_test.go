package profile

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// verdict evaluates the profile for one call the way the merged filter
// must: an errno rule or an allow rule that matches; never both (the
// generator keeps them disjoint, which libseccomp needs), else the default.
func verdict(t *testing.T, p *mobyseccomp.Seccomp, name string, args ...uint64) string {
	t.Helper()
	var a [6]uint64
	copy(a[:], args)
	var hits []string
	for _, s := range p.Syscalls {
		if !slices.Contains(s.Names, name) || !applies(s) || !matches(s.Args, a) {
			continue
		}
		switch {
		case s.Action == specs.ActAllow:
			hits = append(hits, "allow")
		case s.ErrnoRet != nil:
			hits = append(hits, "errno "+itoa(*s.ErrnoRet))
		default:
			hits = append(hits, string(s.Action))
		}
	}
	slices.Sort(hits)
	hits = slices.Compact(hits)
	switch len(hits) {
	case 0:
		return "errno 1"
	case 1:
		return hits[0]
	}
	t.Errorf("%s%v: rules overlap with different actions: %v", name, args, hits)
	return "overlap"
}

func itoa(n uint) string { b, _ := json.Marshal(n); return string(b) }

func matches(args []specs.LinuxSeccompArg, a [6]uint64) bool {
	for _, c := range args {
		v := a[c.Index]
		switch c.Op {
		case specs.OpEqualTo:
			if v != c.Value {
				return false
			}
		case specs.OpMaskedEqual:
			if v&c.Value != c.ValueTwo {
				return false
			}
		case specs.OpLessThan:
			if v >= c.Value {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func TestProfileRefusesWhatNativeRefuses(t *testing.T) {
	p := Build()
	const (
		afUnix, afInet, afInet6, afNetlink, afPacket, afVsock, afAlg = 1, 2, 10, 16, 17, 40, 38
		mptcp                                                        = 262
	)
	for _, c := range []struct {
		name, call string
		args       []uint64
		want       string
	}{
		{"read", "read", nil, "allow"},
		{"TCGETS", "ioctl", []uint64{0, 0x5401}, "allow"},
		{"FIONREAD", "ioctl", []uint64{0, 0x541b}, "allow"},
		{"TIOCSTI", "ioctl", []uint64{0, 0x5412}, "errno 1"},
		{"TIOCSTI high bits", "ioctl", []uint64{0, 0x1_00005412}, "errno 1"},
		{"TIOCLINUX", "ioctl", []uint64{0, 0x541c}, "errno 1"},
		{"unix", "socket", []uint64{afUnix, 1, 0}, "allow"},
		{"tcp", "socket", []uint64{afInet, 1, 0}, "allow"},
		{"tcp6", "socket", []uint64{afInet6, 1, 6}, "allow"},
		{"mptcp", "socket", []uint64{afInet, 1, mptcp}, "errno 93"},
		{"mptcp6", "socket", []uint64{afInet6, 1, mptcp}, "errno 93"},
		{"netlink route", "socket", []uint64{afNetlink, 3, 0}, "allow"},
		{"netlink sock_diag", "socket", []uint64{afNetlink, 3, 4}, "errno 93"},
		{"packet", "socket", []uint64{afPacket, 3, 0}, "errno 97"},
		{"vsock", "socket", []uint64{afVsock, 1, 0}, "errno 97"},
		{"alg", "socket", []uint64{afAlg, 5, 0}, "errno 97"},
		{"family high bits", "socket", []uint64{1<<32 | afUnix, 1, 0}, "errno 97"},
		{"socketpair unix", "socketpair", []uint64{afUnix, 1, 0}, "allow"},
		{"socketpair vsock", "socketpair", []uint64{afVsock, 1, 0}, "errno 97"},
		{"socketcall socket", "socketcall", []uint64{1}, "errno 97"},
		{"socketcall connect", "socketcall", []uint64{3}, "allow"},
		{"personality linux", "personality", []uint64{0}, "allow"},
		{"personality query", "personality", []uint64{0xffffffff}, "allow"},
		{"personality uname26", "personality", []uint64{0x20000}, "errno 1"},
		{"clone thread", "clone", []uint64{0x3d0f00}, "allow"},
		{"clone newuser", "clone", []uint64{0x10000000}, "errno 1"},
		{"clone3", "clone3", nil, "errno 38"},
		{"keyctl", "keyctl", nil, "errno 1"},
		{"io_uring_setup", "io_uring_setup", nil, "errno 1"},
		{"ptrace", "ptrace", nil, "errno 1"},
		{"userfaultfd", "userfaultfd", nil, "errno 1"},
		{"unshare", "unshare", nil, "errno 1"},
		// Set-id files, file capabilities and the clock (coordinator/seccomp/setid.go).
		{"chmod 0755", "chmod", []uint64{0, 0o755}, "allow"},
		{"chmod 4755", "chmod", []uint64{0, 0o4755}, "errno 1"},
		{"chmod 2755", "chmod", []uint64{0, 0o2755}, "errno 1"},
		{"fchmod 6755", "fchmod", []uint64{3, 0o6755}, "errno 1"},
		{"fchmodat 2755", "fchmodat", []uint64{0, 0, 0o2755}, "errno 1"},
		{"fchmodat 0644", "fchmodat", []uint64{0, 0, 0o644}, "allow"},
		{"open read", "open", []uint64{0, 0, 0o4755}, "allow"},
		{"open creat 0644", "open", []uint64{0, 0o101, 0o644}, "allow"},
		{"open creat 4755", "open", []uint64{0, 0o101, 0o4755}, "errno 1"},
		{"openat creat 2755", "openat", []uint64{0, 0, 0o101, 0o2755}, "errno 1"},
		{"openat tmpfile 4700", "openat", []uint64{0, 0, 0o20200001, 0o4700}, "errno 1"},
		{"openat tmpfile 0600", "openat", []uint64{0, 0, 0o20200001, 0o600}, "allow"},
		{"creat 4755", "creat", []uint64{0, 0o4755}, "errno 1"},
		{"mknod 4755", "mknod", []uint64{0, 0o104755, 0}, "errno 1"},
		{"mknodat fifo", "mknodat", []uint64{0, 0, 0o10644, 0}, "allow"},
		{"mkdir 2775", "mkdir", []uint64{0, 0o2775}, "errno 1"},
		{"mkdirat 0755", "mkdirat", []uint64{0, 0, 0o755}, "allow"},
		{"openat2", "openat2", nil, "errno 38"},
		{"setxattr 5 bytes", "setxattr", []uint64{0, 0, 0, 5, 0}, "allow"},
		{"setxattr 20 bytes", "setxattr", []uint64{0, 0, 0, 20, 0}, "errno 1"},
		{"fsetxattr 24 bytes", "fsetxattr", []uint64{3, 0, 0, 24, 0}, "errno 1"},
		{"lsetxattr 23 bytes", "lsetxattr", []uint64{0, 0, 0, 23, 0}, "allow"},
		{"settimeofday", "settimeofday", nil, "errno 1"},
		{"clock_settime", "clock_settime", nil, "errno 1"},
		{"adjtimex", "adjtimex", nil, "errno 1"},
		{"clock_adjtime", "clock_adjtime", nil, "errno 1"},
		{"clock_gettime", "clock_gettime", nil, "allow"},
		// The mount table by id, and open_tree with attributes (Linux 6.8, 6.15).
		{"statmount", "statmount", nil, "errno 38"},
		{"listmount", "listmount", nil, "errno 38"},
		{"open_tree_attr", "open_tree_attr", nil, "errno 1"},
		// Stacks the data limit does not count; x86's old mmap, refused
		// outright natively, is not x86_64's mmap.
		{"mmap private", "mmap", []uint64{0, 4096, 3, 0x22}, "allow"},
		{"mmap growsdown", "mmap", []uint64{0, 4096, 3, 0x122}, "errno 1"},
		// What peers refuse (coordinator/seccomp/surface.go): docker's own
		// default allows modify_ldt, and get_mempolicy with CAP_SYS_NICE.
		{"modify_ldt", "modify_ldt", []uint64{0, 0, 16}, "errno 1"},
		{"arch_prctl", "arch_prctl", []uint64{0x1002, 0}, "allow"},
		{"ustat", "ustat", nil, "errno 38"},
		{"sysfs", "sysfs", nil, "errno 38"},
		{"get_mempolicy", "get_mempolicy", nil, "errno 38"},
		{"mbind", "mbind", nil, "errno 38"},
		{"memfd_secret", "memfd_secret", nil, "errno 38"},
		{"memfd_create", "memfd_create", nil, "allow"},
		{"fanotify_init", "fanotify_init", nil, "errno 1"},
		{"lsm_set_self_attr", "lsm_set_self_attr", nil, "errno 38"},
		// acbox's init sets the member's RLIMIT_DATA under this profile; the
		// memory cgroup is the cap (nativeOnly).
		{"prlimit64 data", "prlimit64", []uint64{0, 2, 0x1000, 0}, "allow"},
		{"setrlimit data", "setrlimit", []uint64{2, 0x1000}, "allow"},
	} {
		if got := verdict(t, p, c.call, c.args...); got != c.want {
			t.Errorf("%s: %s(%#x) = %s, want %s", c.name, c.call, c.args, got, c.want)
		}
	}
}

// TestProfileAllowsNoHighArgBits: on x86 libseccomp compares the low 32
// bits only, so an allow rule that needs a high bit set would allow more.
func TestProfileAllowsNoHighArgBits(t *testing.T) {
	for _, s := range Build().Syscalls {
		for _, a := range s.Args {
			v := a.Value
			if a.Op == specs.OpMaskedEqual {
				v = a.ValueTwo
			}
			if s.Action == specs.ActAllow && v>>32 != 0 {
				t.Errorf("%v allows only with high bits set: %+v", s.Names, a)
			}
		}
	}
}

// TestProfileIsStable: the generated file must not depend on the run, and
// compacting the indented file gives the bytes the backend passes.
func TestProfileIsStable(t *testing.T) {
	a, b := must(Compact()), must(Compact())
	if !bytes.Equal(a, b) {
		t.Error("the profile is not deterministic")
	}
	var c bytes.Buffer
	if err := json.Compact(&c, must(Indented())); err != nil || !bytes.Equal(c.Bytes(), a) {
		t.Errorf("compacting Indented does not give Compact (%v)", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
