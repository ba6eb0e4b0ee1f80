//go:build linux && amd64

package seccomp

import "testing"

// The listen filter in the interpreter: listen, on either architecture, goes
// to the supervisor whatever its arguments; x86's socketcall(SYS_LISTEN),
// whose descriptor is in memory, is refused; everything else, socketcall's
// other subcalls included, is left to the policy's filter.
func TestListenFilter(t *testing.T) {
	p, err := ListenProgram()
	if err != nil {
		t.Fatal(err)
	}
	prog := p.insns()
	const notif = "ret 0x7fc00000"
	for _, c := range []struct {
		arch, name string
		args       []uint64
		want       string
	}{
		{ArchAMD64, "listen", []uint64{3, 128}, notif},
		{ArchAMD64, "listen", []uint64{0xffff_ffff_ffff_ffff, 0}, notif},
		{ArchX86, "listen", []uint64{3, 128}, notif},
		{ArchX86, "socketcall", []uint64{socketcallListen, 0x0804_a000}, "EACCES"},
		{ArchX86, "socketcall", []uint64{3 /* SYS_CONNECT */, 0x0804_a000}, allow},
		{ArchX86, "socketcall", []uint64{2 /* SYS_BIND */, 0x0804_a000}, allow},
		{ArchAMD64, "bind", []uint64{3, 0, 16}, allow},
		{ArchX86, "bind", []uint64{3, 0, 16}, allow},
		{ArchAMD64, "socket", []uint64{2, 1, 0}, allow},
		{ArchX86, "mmap2", nil, allow},
	} {
		if got := eval(t, prog, c.arch, c.name, c.args...); got != c.want {
			t.Errorf("%s %s%#x: %s, want %s", c.arch, c.name, c.args, got, c.want)
		}
	}
	// x86 socketcall's 363 is listen on x86 only; on x86_64 363 is unused.
	if got, err := run(prog, seccompData{nr: nrListenX86, arch: auditArchX86_64}); err != nil || verdict(got) != allow {
		t.Errorf("x86_64 363: %s %v, want allow", verdict(got), err)
	}
}
