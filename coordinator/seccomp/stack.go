package seccomp

// mapGrowsdown is MAP_GROWSDOWN, the same on x86_64 and x86.
const mapGrowsdown = 0x100

// stackRules refuse the mappings the data limit does not see. The kernel
// counts a private writable mapping against RLIMIT_DATA unless it is a
// stack (VM_STACK, which MAP_GROWSDOWN sets): without a writable cgroup,
// one mmap with that flag would hold any amount of memory past --memory.
// The flag is compared on its bit alone. The main stack, the other
// VM_STACK mapping, is bounded by RLIMIT_STACK, which pid 1 sets with
// soft = hard (nsjail, applyLimits).
//
// On x86 "mmap" is the old mmap (number 90), which reads its six arguments
// from a struct in memory, out of seccomp's reach; 64-bit code reaches it
// with int 0x80 wherever the kernel has IA32 emulation on. It is refused
// outright with ENOSYS, what a kernel without it says: 32-bit glibc, musl
// and Go's 386 port map memory with mmap2 (192), which keeps the flag rule.
func stackRules() []Rule {
	why := "a MAP_GROWSDOWN mapping is a stack, which the data limit (--memory without a cgroup) does not count"
	grows := []Cond{{Arg: 3, Op: OpMaskedEq, Mask: mapGrowsdown, Value: mapGrowsdown}}
	return []Rule{
		{Syscall: "mmap", Arch: []string{ArchAMD64}, Conds: grows, Errno: EPERM, Why: why},
		{Syscall: "mmap2", Arch: []string{ArchX86}, Conds: grows, Errno: EPERM, Why: why},
		{Syscall: "mmap", Arch: []string{ArchX86}, Errno: ENOSYS,
			Why: "x86's old mmap passes its flags in memory, out of seccomp's reach; callers use mmap2"},
	}
}
