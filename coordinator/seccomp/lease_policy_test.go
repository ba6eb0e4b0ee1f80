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

// The kernel headers' fcntl commands (linux-libc-dev): the Linux-specific
// ones (F_LINUX_SPECIFIC_BASE + n) and the classic ones below it.
var fcntlHeaders = []string{"/usr/include/linux/fcntl.h", "/usr/include/asm-generic/fcntl.h"}

var (
	defineLinuxFcntl   = regexp.MustCompile(`(?m)^#define\s+(F_\w+)\s+\(\s*F_LINUX_SPECIFIC_BASE\s*\+\s*(\d+)\s*\)`)
	defineClassicFcntl = regexp.MustCompile(`(?m)^#define\s+(F_\w+)\s+(\d+)\b`)
)

// notFcntlCommands are the classic header's F_ numbers that are not
// commands: owner types, lock types, the Linux-specific base.
var notFcntlCommands = []string{"F_OWNER_TID", "F_OWNER_PID", "F_OWNER_PGRP",
	"F_RDLCK", "F_WRLCK", "F_UNLCK", "F_EXLCK", "F_SHLCK", "F_LINUX_SPECIFIC_BASE"}

// newerFcntl are Linux-specific commands newer than the headers the tests
// may find (Debian 12's linux-libc-dev is 6.1): each must be classified
// whatever the headers define, with the kernel that brought it.
var newerFcntl = []struct {
	name  string
	n     uint64 // F_LINUX_SPECIFIC_BASE + n
	since string
}{
	{"F_DUPFD_QUERY", 3, "6.10"},
	{"F_CREATED_QUERY", 4, "6.12"},
	{"F_GETDELEG", 15, "6.19"},
	{"F_SETDELEG", 16, "6.19"},
}

// Every fcntl command the installed kernel headers define, Linux-specific
// or classic, and every one newer than them that newerFcntl knows, is
// classified (linuxFcntl, classicFcntl) at its number. A newer
// linux-libc-dev with a command the policy has not seen fails here, as
// for syscalls (TestHeaderSyscallsAreClassified).
func TestHeaderFcntlCommandsAreClassified(t *testing.T) {
	for _, c := range newerFcntl {
		if got, ok := linuxFcntl[c.name]; !ok || got.n != c.n {
			t.Errorf("%s (F_LINUX_SPECIFIC_BASE + %d, Linux %s) is not classified at its number in linuxFcntl (coordinator/seccomp/lease.go)", c.name, c.n, c.since)
		}
	}
	linux := headerDefines(t, fcntlHeaders[0], defineLinuxFcntl)
	for name, n := range linux {
		c, ok := linuxFcntl[name]
		switch {
		case !ok:
			t.Errorf("%s defines fcntl command %s (F_LINUX_SPECIFIC_BASE + %d), which the policy does not classify: "+
				"allow it or refuse it in linuxFcntl (coordinator/seccomp/lease.go), then go generate ./coordinator/seccomp/",
				fcntlHeaders[0], name, n)
		case c.n != n:
			t.Errorf("%s: %s is F_LINUX_SPECIFIC_BASE + %d in the headers, + %d in linuxFcntl", fcntlHeaders[0], name, n, c.n)
		}
	}
	for name, n := range headerDefines(t, fcntlHeaders[1], defineClassicFcntl) {
		got, ok := classicFcntl[name]
		switch {
		case slices.Contains(notFcntlCommands, name):
		case !ok:
			t.Errorf("%s defines fcntl command %s (%d), which the policy does not classify: add it to classicFcntl "+
				"(coordinator/seccomp/lease.go) if a member may use it, or refuse it as leaseRules does; "+
				"if it is not a command, add it to notFcntlCommands", fcntlHeaders[1], name, n)
		case got != n:
			t.Errorf("%s: %s is %d in the headers, %d in classicFcntl", fcntlHeaders[1], name, n, got)
		}
	}
}

// headerDefines is name -> number for every match of re in the header,
// skipping the test without the headers and failing when nothing matches
// (a stale pattern).
func headerDefines(t *testing.T, header string, re *regexp.Regexp) map[string]uint64 {
	b, err := os.ReadFile(header)
	if err != nil {
		t.Skipf("no kernel headers (linux-libc-dev): %v", err)
	}
	found := re.FindAllStringSubmatch(string(b), -1)
	if len(found) == 0 {
		t.Fatalf("%s defines no fcntl command %s matches: the pattern is stale", header, re)
	}
	out := map[string]uint64{}
	for _, m := range found {
		out[m[1]], _ = strconv.ParseUint(m[2], 10, 32)
	}
	return out
}

// The classification and the rules agree: a command marked refused has
// rules on fcntl and fcntl64, one marked allowed (every classic one) has
// none, and no two Linux-specific commands share a number.
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
	for name, n := range classicFcntl {
		if got := ruled[n]; len(got) > 0 || n >= fLinuxSpecificBase {
			t.Errorf("%s (%d) is allowed in classicFcntl, but rules on %v", name, n, got)
		}
	}
}
