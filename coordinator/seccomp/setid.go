package seccomp

// Mode, flag and size constants the set-id and clock rules compare against.
// They are the same on x86_64 and x86 (asm-generic fcntl.h, stat.h).
const (
	sISUID    = 0o4000
	sISGID    = 0o2000
	oCreat    = 0o100
	oTmpfile  = 0o20000000 // __O_TMPFILE; O_TMPFILE is __O_TMPFILE|O_DIRECTORY
	capsSize2 = 20         // XATTR_CAPS_SZ_2: a security.capability value, revision 2
	capsSize3 = 24         // XATTR_CAPS_SZ_3: revision 3, with a namespace root uid
)

// setidBits are the mode bits no file the member makes may carry.
var setidBits = []uint64{sISUID, sISGID}

// setidRules keep the member from making a file that runs with more
// privilege than its caller: a setuid or setgid program, or one with file
// capabilities. Inside, nosuid and no_new_privs make such a file harmless;
// in a write grant it outlives the sandbox, and the host runs it without
// either (a member running as root mints a set-id-root program for every
// user of the host). The model is systemd's RestrictSUIDSGID: every call
// that sets a mode is refused when the mode has S_ISUID or S_ISGID, one rule
// per bit, the mode compared on that bit alone (the kernel reads a umode_t,
// so junk in the high bits cannot hide it).
func setidRules() []Rule {
	why := "a set-id file outlives the sandbox and runs with its owner's privilege on the host"
	var rs []Rule
	for _, c := range []struct {
		name string
		mode uint
	}{{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1},
		{"mkdir", 1}, {"mkdirat", 2}, {"mknod", 1}, {"mknodat", 2}} {
		rs = append(rs, refuseIf(c.name, EPERM, why, modeConds(c.mode)...)...)
	}
	// open and openat use the mode only when they create a file: with
	// O_CREAT, or with O_TMPFILE (an unnamed file that linkat then names).
	for _, c := range []struct {
		name        string
		flags, mode uint
	}{{"open", 1, 2}, {"openat", 2, 3}} {
		for _, flag := range []uint64{oCreat, oTmpfile} {
			for _, m := range modeConds(c.mode) {
				rs = append(rs, Rule{Syscall: c.name, Arch: bothArches, Errno: EPERM, Why: why,
					Conds: []Cond{{Arg: c.flags, Op: OpMaskedEq, Mask: flag, Value: flag}, m}})
			}
		}
	}
	// openat2 passes flags and mode in struct open_how, out of seccomp's
	// reach. ENOSYS is what a kernel before 5.6 says, and every caller of
	// openat2 has an openat fallback for it (systemd answers the same way).
	rs = append(rs, refuse(ENOSYS, "openat2's mode is in memory, out of seccomp's reach; callers fall back to openat", "openat2")...)
	return append(rs, fileCapRules()...)
}

func modeConds(arg uint) []Cond {
	cs := make([]Cond, len(setidBits))
	for i, bit := range setidBits {
		cs[i] = Cond{Arg: arg, Op: OpMaskedEq, Mask: bit, Value: bit}
	}
	return cs
}

// fileCapRules refuse writing file capabilities. Seccomp cannot read the
// attribute's name, but the kernel accepts a security.capability value of
// exactly 20 or 24 bytes (revisions 2 and 3; any other size is EINVAL), so
// the set calls are refused for those two sizes whatever the name: the
// narrowest rule that holds. The cost: no extended attribute of exactly 20
// or 24 bytes can be written inside (a raw SHA-1 in a user.* attribute is
// one). setxattrat (Linux 6.13) passes the size in memory and is refused
// outright; libseccomp 2.5 does not know it, see [Numbers].
func fileCapRules() []Rule {
	why := "a security.capability value is 20 or 24 bytes; file capabilities outlive the sandbox"
	var rs []Rule
	for _, c := range []struct {
		name string
		size uint
	}{{"setxattr", 3}, {"lsetxattr", 3}, {"fsetxattr", 3}} {
		rs = append(rs, refuseIf(c.name, EPERM, why,
			Cond{Arg: c.size, Op: OpEq, Value: capsSize2}, Cond{Arg: c.size, Op: OpEq, Value: capsSize3})...)
	}
	return append(rs, refuse(EPERM, "setxattrat's size is in memory, out of seccomp's reach", "setxattrat")...)
}

// clockRules refuse setting the system clock. The kernel already asks for
// CAP_SYS_TIME in the initial user namespace, which a member never holds;
// the rules are a second layer, so that a capability that survived by
// mistake still changes nothing on the host. adjtimex and clock_adjtime
// take a struct whose modes field says whether they read or set, out of
// seccomp's reach: both are refused outright, so reading the kernel's NTP
// state (glibc's ntp_gettime, ntptime, `adjtimex -p`) fails inside too;
// clock_gettime and gettimeofday are untouched.
func clockRules() []Rule {
	why := "sets the host's clock"
	rs := refuse(EPERM, why, "settimeofday", "clock_settime", "clock_adjtime", "adjtimex")
	// stime and the *64 forms exist only on x86 (y2038 entry points).
	for _, n := range []string{"stime", "clock_settime64", "clock_adjtime64"} {
		rs = append(rs, Rule{Syscall: n, Arch: []string{ArchX86}, Errno: EPERM, Why: why})
	}
	return rs
}
