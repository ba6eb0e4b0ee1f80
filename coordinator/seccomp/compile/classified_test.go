//go:build linux && cgo

package compile

import (
	"runtime"
	"testing"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// Every syscall libseccomp's table names is classified by the policy, at a
// number the filter does not answer ENOSYS. A newer libseccomp that knows a
// syscall the policy has not reviewed fails here (the kernel headers are
// checked the same way in package seccomp).
func TestLibseccompSyscallsAreClassified(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the filter is generated on x86_64 hosts only")
	}
	maj, minor, micro := libseccomp.GetLibraryVersion()
	for _, arch := range seccomp.Arches() {
		seen := 0
		// libseccomp's tables end below 1024 on both architectures.
		for nr := range 1024 {
			name, err := libseccomp.ScmpSyscall(nr).GetNameByArch(libseccompArch[arch])
			if err != nil || name == "" {
				continue
			}
			seen++
			if !seccomp.Classified(name) {
				t.Errorf("libseccomp %d.%d.%d knows syscall %s (%d on %s), which the policy does not classify: "+
					"refuse it with a rule or add it to allowed (coordinator/seccomp/syscalls.go), then regenerate with\n\t%s",
					maj, minor, micro, name, nr, arch, regenerate)
			}
			for _, r := range seccomp.Unclassified() {
				if r.Contains(arch, uint32(nr)) {
					t.Errorf("libseccomp has syscall %s at %d on %s, where the filter answers ENOSYS", name, nr, arch)
				}
			}
		}
		if seen < 300 {
			t.Errorf("libseccomp named only %d syscalls on %s; the walk is broken", seen, arch)
		}
	}
}

// The policy's numbers for syscalls past libseccomp's table agree with
// libseccomp wherever it does know one (a newer libseccomp).
func TestNumbersAgreeWithLibseccomp(t *testing.T) {
	for name, nr := range seccomp.Numbers() {
		for _, arch := range seccomp.Arches() {
			got, err := libseccomp.GetSyscallFromNameByArch(name, libseccompArch[arch])
			if err == nil && got > pseudoSyscallBase && int(got) != nr {
				t.Errorf("%s is %d on %s to libseccomp, %d in the policy", name, got, arch, nr)
			}
		}
	}
}
