//go:build linux && cgo

package compile

import (
	"fmt"
	"io"
	"os"
	"slices"

	libseccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// libseccompArch maps the policy's architecture names to libseccomp's.
var libseccompArch = map[string]libseccomp.ScmpArch{
	seccomp.ArchAMD64: libseccomp.ArchAMD64,
	seccomp.ArchX86:   libseccomp.ArchX86,
}

// Compile turns rules into a filter that allows every call no rule refuses,
// for [seccomp.Arches], and kills the process on any other architecture. It
// returns the BPF as the kernel reads it (struct sock_filter in the host's
// byte order). The same rules give the same bytes, so their sha256 names
// the policy.
func Compile(rules []seccomp.Rule) ([]byte, error) {
	native, err := libseccomp.GetNativeArch()
	if err != nil {
		return nil, fmt.Errorf("seccomp: native architecture: %w", err)
	}
	arches := seccomp.Arches()
	// The export is in the host's byte order and for the host's native
	// architecture first, so only an x86_64 host produces the shipped bytes.
	if native != libseccompArch[arches[0]] {
		return nil, fmt.Errorf("%w: the policy is written for %s hosts and this one is %s; "+
			"generate the filter on an x86_64 host", seccomp.ErrUnsupported, arches[0], native)
	}
	// NewFilter turns on TSYNC and the no_new_privs attribute, which only
	// matter to libseccomp's own Load; the program is exported and loaded by
	// seccomp's LoadThread on one thread instead.
	f, err := libseccomp.NewFilter(libseccomp.ActAllow)
	if err != nil {
		return nil, fmt.Errorf("seccomp: new filter: %w", err)
	}
	defer f.Release()
	for _, a := range arches[1:] {
		if err := f.AddArch(libseccompArch[a]); err != nil {
			return nil, fmt.Errorf("seccomp: add arch %s: %w", a, err)
		}
	}
	// The default, KILL_THREAD, would leave the rest of a threaded process
	// running after one thread made an x32 call.
	if err := f.SetBadArchAction(libseccomp.ActKillProcess); err != nil {
		return nil, fmt.Errorf("seccomp: bad-arch action: %w", err)
	}
	var pro []numbered
	for _, r := range rules {
		nr, ok, err := byNumber(r)
		if ok {
			pro = append(pro, numbered{nr, r.Errno})
			continue
		}
		if err == nil {
			err = addRule(f, r)
		}
		if err != nil {
			return nil, fmt.Errorf("seccomp: rule %s: %w", r, err)
		}
	}
	bpf, err := export(f)
	if err != nil {
		return nil, err
	}
	head, err := prologue(pro, seccomp.Unclassified())
	if err != nil {
		return nil, err
	}
	return append(head, bpf...), nil
}

func addRule(f *libseccomp.ScmpFilter, r seccomp.Rule) error {
	if err := checkArches(r); err != nil {
		return err
	}
	nr, err := libseccomp.GetSyscallFromName(r.Syscall)
	if err != nil {
		return err
	}
	act := libseccomp.ActErrno.SetReturnCode(int16(r.Errno))
	if len(r.Conds) == 0 {
		return f.AddRule(nr, act)
	}
	conds := make([]libseccomp.ScmpCondition, len(r.Conds))
	for i, c := range r.Conds {
		if conds[i], err = condition(c); err != nil {
			return err
		}
	}
	return f.AddRuleConditional(nr, act, conds)
}

// pseudoSyscallBase is libseccomp's __PNR base: names that do not exist on
// an architecture resolve below it.
const pseudoSyscallBase = -10000

// checkArches holds the data to libseccomp's syscall table: a rule lists
// exactly the architectures where its syscall exists. libseccomp skips the
// others silently (it compiles a never-matching pseudo number), so a wrong
// Arch would make the documentation promise a rule the filter lacks.
func checkArches(r seccomp.Rule) error {
	for _, a := range seccomp.Arches() {
		nr, err := libseccomp.GetSyscallFromNameByArch(r.Syscall, libseccompArch[a])
		// Numbers from -10000 down are libseccomp's "not on this arch";
		// socket and the like on x86 resolve to small negative numbers
		// (multiplexed through socketcall) and compile to their direct
		// syscalls.
		exists := err == nil && nr > pseudoSyscallBase
		if exists != slices.Contains(r.Arch, a) {
			return fmt.Errorf("syscall %s exists on %s: %v, but the rule's arches are %v (bug)",
				r.Syscall, a, exists, r.Arch)
		}
	}
	return nil
}

func condition(c seccomp.Cond) (libseccomp.ScmpCondition, error) {
	switch c.Op {
	case seccomp.OpEq:
		return libseccomp.MakeCondition(c.Arg, libseccomp.CompareEqual, c.Value)
	case seccomp.OpGt:
		return libseccomp.MakeCondition(c.Arg, libseccomp.CompareGreater, c.Value)
	case seccomp.OpMaskedEq:
		// The binding hands its two operands to struct scmp_arg_cmp as
		// datum_a, datum_b, and libseccomp reads MASKED_EQ as (mask, datum):
		// mask first, whatever the binding's comment says. The BPF tests
		// check the result.
		return libseccomp.MakeCondition(c.Arg, libseccomp.CompareMaskedEqual, c.Mask, c.Value)
	}
	return libseccomp.ScmpCondition{}, fmt.Errorf("unknown comparison %d (bug)", c.Op)
}

// export returns the filter as BPF. The binding's ExportBPF wants an
// *os.File (ExportBPFMem needs libseccomp 2.6), so it writes to a memfd,
// which needs no writable path and cannot fill up like a pipe.
func export(f *libseccomp.ScmpFilter) ([]byte, error) {
	fd, err := unix.MemfdCreate("acbox-seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", os.NewSyscallError("memfd_create", err))
	}
	file := os.NewFile(uintptr(fd), "acbox-seccomp")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", err)
	}
	bpf, err := io.ReadAll(file)
	if err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", err)
	}
	return bpf, nil
}
