package landlock

import ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

// Names of the rights, indexed by bit number, as the kernel documentation
// spells them (without the LANDLOCK_ACCESS_FS_ prefix, lower case).
var (
	fsNames = []string{
		"execute", "write_file", "read_file", "read_dir", "remove_dir",
		"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
		"make_fifo", "make_block", "make_sym", "refer", "truncate",
		"ioctl_dev", "resolve_unix",
	}
	netNames   = []string{"bind_tcp", "connect_tcp", "bind_udp", "connect_send_udp"}
	scopeNames = []string{"abstract_unix_socket", "signal"}
)

// maxKnownABI is the newest ABI whose rights this package knows. A newer
// kernel is used at this level; its extra rights are not handled.
const maxKnownABI = 11

// fsRights returns the filesystem rights that the given ABI supports.
func fsRights(abi int) uint64 {
	switch {
	case abi >= 9:
		return 1<<17 - 1 // + resolve_unix
	case abi >= 5:
		return 1<<16 - 1 // + ioctl_dev
	case abi >= 3:
		return 1<<15 - 1 // + truncate
	case abi == 2:
		return 1<<14 - 1 // + refer
	case abi == 1:
		return 1<<13 - 1
	}
	return 0
}

// netRights returns the network rights that the given ABI supports.
func netRights(abi int) uint64 {
	switch {
	case abi >= 10:
		return 1<<4 - 1 // + UDP
	case abi >= 4:
		return 1<<2 - 1
	}
	return 0
}

// scopes returns the IPC scopes that the given ABI supports.
func scopes(abi int) uint64 {
	if abi >= 6 {
		return ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	return 0
}

const (
	tcpRights = ll.AccessNetBindTCP | ll.AccessNetConnectTCP

	// requiredFS is what acbox needs handled in strict mode: every right of
	// ABI 6. resolve_unix (ABI 9) is handled when offered but not required.
	requiredFS = 1<<16 - 1

	readRights = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir

	// withheldRW are the rights a write grant does not get; see the package
	// documentation for why.
	withheldRW = ll.AccessFSMakeChar | ll.AccessFSMakeBlock | ll.AccessFSIoctlDev

	deviceRights = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSReadDir | ll.AccessFSIoctlDev

	// fileRights are the rights the kernel accepts on a rule whose target is
	// not a directory.
	fileRights = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev | ll.AccessFSResolveUnix
)

// names lists the names of the bits set in set, in bit order. It never
// returns nil, so that reports always carry a JSON array.
func names(set uint64, table []string) []string {
	out := []string{}
	for i, n := range table {
		if set&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}
