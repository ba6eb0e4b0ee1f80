package seccomp

// mapGrowsdown is MAP_GROWSDOWN, the same on x86_64 and x86.
const mapGrowsdown = 0x100

// stackRules refuse the mappings the data limit does not see. The kernel
// counts a private writable mapping against RLIMIT_DATA unless it is a
// stack (VM_STACK, which MAP_GROWSDOWN sets): without a writable cgroup,
// one mmap with that flag would hold any amount of memory past --memory.
// The flag is compared on its bit alone. The main stack, the other
// VM_STACK mapping, is bounded by RLIMIT_STACK, which pid 1 sets with
// soft = hard (nsjail, applyLimits). Not covered: x86's old mmap (number
// 90) passes its flags in memory, and a rule for it alone cannot be
// compiled yet (package compile wants a rule on every arch with the name);
// on x86 the rule reads a register old mmap ignores.
func stackRules() []Rule {
	why := "a MAP_GROWSDOWN mapping is a stack, which the data limit (--memory without a cgroup) does not count"
	grows := []Cond{{Arg: 3, Op: OpMaskedEq, Mask: mapGrowsdown, Value: mapGrowsdown}}
	return []Rule{
		{Syscall: "mmap", Arch: bothArches, Conds: grows, Errno: EPERM, Why: why},
		{Syscall: "mmap2", Arch: []string{ArchX86}, Conds: grows, Errno: EPERM, Why: why},
	}
}
