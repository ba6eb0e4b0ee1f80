//go:build linux && amd64

package seccomp

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// The lease rules in the interpreter: F_SETLEASE and F_SETDELEG are
// refused through fcntl on both architectures and fcntl64 on x86,
// whatever the lease type and whatever junk the high half of a 64-bit
// command holds (the kernel reads an unsigned int); every other command
// passes. TestKernel makes the same calls on the real kernel.
func TestLeaseRules(t *testing.T) {
	const (
		fRdlck, fWrlck, fUnlck = 0, 1, 2
		fSetlease, fGetlease   = fLinuxSpecificBase, fLinuxSpecificBase + 1
		fNotify                = fLinuxSpecificBase + 2
		fGetdeleg, fSetdeleg   = fLinuxSpecificBase + 15, fLinuxSpecificBase + 16
		dnModify               = 0x2
	)
	cases := []struct {
		name string
		args []uint64
		want string
	}{
		{"read lease", []uint64{3, fSetlease, fRdlck}, "EACCES"},
		{"write lease", []uint64{3, fSetlease, fWrlck}, "EACCES"},
		{"unlock", []uint64{3, fSetlease, fUnlck}, "EACCES"},
		{"lease, high bits", []uint64{3, 1<<32 | fSetlease, fWrlck}, "EACCES"},
		{"lease, all high bits", []uint64{3, 0xffffffff_00000000 | fSetlease, fRdlck}, "EACCES"},
		{"delegation", []uint64{3, fSetdeleg, 0x1000}, "EACCES"},
		{"delegation, high bits", []uint64{3, 1<<32 | fSetdeleg, 0x1000}, "EACCES"},
		{"get lease", []uint64{3, fGetlease}, allow},
		{"get delegation", []uint64{3, fGetdeleg, 0x1000}, allow},
		{"dnotify", []uint64{3, fNotify, dnModify}, allow},
		{"getfl", []uint64{3, 3}, allow},
		{"setfl nonblock", []uint64{3, 4, 0o4000}, allow},
		{"setlkw", []uint64{3, 7, 0x1000}, allow},
		{"ofd setlk", []uint64{3, 37, 0x1000}, allow},
		{"dupfd cloexec", []uint64{3, fLinuxSpecificBase + 6, 10}, allow},
		{"add seals", []uint64{3, fLinuxSpecificBase + 9, 1}, allow},
		{"lease number as fd", []uint64{fSetlease, 3, fSetlease}, allow},
	}
	prog := buildForTest(t).insns()
	for _, call := range []struct{ arch, name string }{{ArchAMD64, "fcntl"}, {ArchX86, "fcntl"}, {ArchX86, "fcntl64"}} {
		for _, c := range cases {
			t.Run(call.arch+"/"+call.name+"/"+c.name, func(t *testing.T) {
				if call.arch == ArchX86 && slices.ContainsFunc(c.args, above32) {
					t.Skip("x86 registers are 32 bits: the kernel never hands the filter high bits")
				}
				if got := eval(t, prog, call.arch, call.name, c.args...); got != c.want {
					t.Errorf("%s(%#x): %s, want %s", call.name, c.args, got, c.want)
				}
			})
		}
	}
}

// The kernel headers' Linux-specific fcntl commands (linux-libc-dev).
var fcntlHeaders = []string{"/usr/include/linux/fcntl.h"}

var defineLinuxFcntl = regexp.MustCompile(`(?m)^#define\s+(F_\w+)\s+\(\s*F_LINUX_SPECIFIC_BASE\s*\+\s*(\d+)\s*\)`)

// Every Linux-specific fcntl command the installed kernel headers define
// is classified in linuxFcntl, at the headers' number. A newer
// linux-libc-dev with a command the policy has not seen fails here, as
// for syscalls (TestHeaderSyscallsAreClassified).
func TestHeaderFcntlCommandsAreClassified(t *testing.T) {
	b, err := os.ReadFile(fcntlHeaders[0])
	if err != nil {
		t.Skipf("no kernel headers (linux-libc-dev): %v", err)
	}
	found := defineLinuxFcntl.FindAllStringSubmatch(string(b), -1)
	if len(found) == 0 {
		t.Fatalf("%s defines no F_LINUX_SPECIFIC_BASE command: the pattern is stale", fcntlHeaders[0])
	}
	for _, m := range found {
		n, _ := strconv.ParseUint(m[2], 10, 32)
		c, ok := linuxFcntl[m[1]]
		switch {
		case !ok:
			t.Errorf("%s defines fcntl command %s (F_LINUX_SPECIFIC_BASE + %d), which the policy does not classify: "+
				"allow it or refuse it in linuxFcntl (coordinator/seccomp/lease.go), then go generate ./coordinator/seccomp/",
				fcntlHeaders[0], m[1], n)
		case c.n != n:
			t.Errorf("%s: %s is F_LINUX_SPECIFIC_BASE + %d in the headers, + %d in linuxFcntl", fcntlHeaders[0], m[1], n, c.n)
		}
	}
}

// The classification and the rules agree: a command marked refused has
// rules on fcntl and fcntl64, one marked allowed has none, and no two
// commands share a number.
func TestFcntlClassificationMatchesRules(t *testing.T) {
	ruled := map[uint64][]string{}
	for _, r := range Policy() {
		if r.Syscall == "fcntl" || r.Syscall == "fcntl64" {
			ruled[r.Conds[0].Value] = append(ruled[r.Conds[0].Value], r.Syscall)
		}
	}
	seen := map[uint64]string{}
	for name, c := range linuxFcntl {
		if other, dup := seen[c.n]; dup {
			t.Errorf("%s and %s are both F_LINUX_SPECIFIC_BASE + %d", name, other, c.n)
		}
		seen[c.n] = name
		got := ruled[fLinuxSpecificBase+c.n]
		slices.Sort(got)
		if c.refused != slices.Equal(got, []string{"fcntl", "fcntl64"}) || !c.refused && len(got) > 0 {
			t.Errorf("%s: refused %v, but rules on %v", name, c.refused, got)
		}
		if c.refused != slices.Contains(refusedFcntl, name) {
			t.Errorf("%s: refused %v, and refusedFcntl %v", name, c.refused, refusedFcntl)
		}
	}
}
