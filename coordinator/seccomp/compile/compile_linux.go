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
	return compile(rules, layoutTree)
}

// layout is libseccomp's SCMP_FLTATR_CTL_OPTIMIZE: how each architecture's
// program finds a syscall's rules.
type layout int

const (
	// layoutLinear compares the syscall number against each syscall with
	// rules in turn: a call with argument rules, or one that no rule names,
	// walks past every syscall before it, 100 to 150 instructions.
	layoutLinear layout = 1
	// layoutTree dispatches on the number by binary search: 25 to 60
	// instructions for the same calls. The seccomp action cache skips the
	// filter only for calls allowed whatever their arguments, so openat,
	// fcntl, mmap and the like pay the walk on every call.
	layoutTree layout = 2
)

func compile(rules []seccomp.Rule, l layout) ([]byte, error) {
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
	if err := checkCovered(rules); err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	fs, err := newFilters(arches, l)
	defer release(fs)
	if err != nil {
		return nil, err
	}
	var pro []numbered
	for _, r := range rules {
		nr, ok, err := byNumber(r)
		if ok {
			pro = append(pro, numbered{nr, r.Errno})
			continue
		}
		if err == nil {
			err = addRule(fs, r)
		}
		if err != nil {
			return nil, fmt.Errorf("seccomp: rule %s: %w", r, err)
		}
	}
	f, err := merge(fs)
	if err != nil {
		return nil, err
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

// addRule compiles r into the filter of each architecture it lists.
func addRule(fs []archFilter, r seccomp.Rule) error {
	if err := checkArches(r); err != nil {
		return err
	}
	nr, err := libseccomp.GetSyscallFromName(r.Syscall)
	if err != nil {
		return err
	}
	act := libseccomp.ActErrno.SetReturnCode(int16(r.Errno))
	conds := make([]libseccomp.ScmpCondition, len(r.Conds))
	for i, c := range r.Conds {
		if conds[i], err = condition(c); err != nil {
			return err
		}
	}
	for _, af := range fs {
		if !slices.Contains(r.Arch, af.arch) {
			continue
		}
		if len(conds) == 0 {
			err = af.f.AddRule(nr, act)
		} else {
			err = af.f.AddRuleConditional(nr, act, conds)
		}
		if err != nil {
			return fmt.Errorf("on %s: %w", af.arch, err)
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
