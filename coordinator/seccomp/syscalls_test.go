package seccomp

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// The kernel headers' syscall tables (linux-libc-dev), by architecture.
var headerTables = map[string][]string{
	ArchAMD64: {"/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"},
	ArchX86:   {"/usr/include/x86_64-linux-gnu/asm/unistd_32.h", "/usr/include/asm/unistd_32.h"},
}

var defineNR = regexp.MustCompile(`(?m)^#define __NR_(\w+)\s+(\d+)\s*$`)

// readHeader returns the syscalls of the first table found, name -> number.
func readHeader(paths []string) (map[string]uint32, string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		out := map[string]uint32{}
		for _, m := range defineNR.FindAllStringSubmatch(string(b), -1) {
			n, _ := strconv.ParseUint(m[2], 10, 32)
			out[m[1]] = uint32(n)
		}
		return out, p
	}
	return nil, ""
}

// CheckClassified is the check both table tests make: the syscall is
// classified, and its number is not one the filter answers ENOSYS.
func checkClassified(t *testing.T, source, arch, name string, nr uint32) {
	t.Helper()
	if !Classified(name) {
		t.Errorf("%s knows syscall %s (%d on %s), which the policy does not classify: refuse it with a rule "+
			"or add it to allowed (coordinator/seccomp/syscalls.go), then go generate ./coordinator/seccomp/", source, name, nr, arch)
	}
	for _, r := range Unclassified() {
		if r.Contains(arch, nr) {
			t.Errorf("%s has syscall %s at %d on %s, where the filter answers ENOSYS: give its number in "+
				"coordinator/seccomp/syscalls.go", source, name, nr, arch)
		}
	}
}

// Every syscall the installed kernel headers name is classified. A newer
// linux-libc-dev with a syscall the policy has not seen fails here.
func TestHeaderSyscallsAreClassified(t *testing.T) {
	for _, arch := range Arches() {
		table, path := readHeader(headerTables[arch])
		if table == nil {
			t.Skipf("no kernel headers for %s (linux-libc-dev) at %v", arch, headerTables[arch])
		}
		for name, nr := range table {
			checkClassified(t, path, arch, name, nr)
		}
	}
}

func TestClassificationIsConsistent(t *testing.T) {
	if !slices.IsSorted(allowed) || len(slices.Compact(slices.Clone(allowed))) != len(allowed) {
		t.Error("allowed is not sorted and free of duplicates")
	}
	for _, r := range Policy() {
		if _, ok := slices.BinarySearch(allowed, r.Syscall); ok {
			t.Errorf("%s is both allowed and refused by rule %s", r.Syscall, r)
		}
	}
	for name, nr := range numbers {
		if !Classified(name) || nr < sharedFirst {
			t.Errorf("numbers: %s (%d) is not classified or not in the shared numbering", name, nr)
		}
	}
	for name, nr := range amd64Numbers {
		if !Classified(name) || nr >= sharedFirst {
			t.Errorf("amd64Numbers: %s (%d) is not classified or is in the shared numbering", name, nr)
		}
	}
}
