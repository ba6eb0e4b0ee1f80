package seccomp

// rlimitData is RLIMIT_DATA, the same on x86_64 and x86.
const rlimitData = 2

// rlimitRules keep the member's RLIMIT_DATA where pid 1 put it. Without a
// writable cgroup that limit is --memory, and it is a soft limit only: pid 1
// sets it around the member's fork and must restore its own afterwards,
// which a lowered hard limit would forbid (raising a hard limit takes
// CAP_SYS_RESOURCE in the initial user namespace). Every other rlimit pid 1
// sets has soft = hard and needs no rule. Seccomp cannot see the new value
// (it is in memory), so setting RLIMIT_DATA at all is refused, lowering
// included; reading it stays open (getrlimit, ugetrlimit, and prlimit64
// with a NULL new limit). The resource is an unsigned int to the kernel, so
// only its low 32 bits are compared.
func rlimitRules() []Rule {
	why := "RLIMIT_DATA is --memory where no cgroup caps memory, a soft limit the member could raise"
	data := Cond{Arg: 0, Op: OpMaskedEq, Mask: low32, Value: rlimitData}
	return []Rule{
		{Syscall: "setrlimit", Arch: bothArches, Conds: []Cond{data}, Errno: EPERM, Why: why},
		{Syscall: "prlimit64", Arch: bothArches, Errno: EPERM, Why: why, Conds: []Cond{
			{Arg: 1, Op: OpMaskedEq, Mask: low32, Value: rlimitData}, {Arg: 2, Op: OpGt, Value: 0}}},
	}
}
