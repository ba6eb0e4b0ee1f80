package landlock

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Rules says what the member may reach. Every path must be absolute, clean
// and exist when [RestrictThread] runs. The zero value grants nothing and
// leaves the network unhandled.
type Rules struct {
	ReadOnly  []string // read and execute beneath: system directories, read grants
	ReadWrite []string // read, write and execute beneath: write grants, private tmpfs (/tmp, $HOME, /dev/shm)
	Devices   []string // device files or directories needing read, write and ioctl (/dev/null, /dev/pts, ...)
	ListOnly  []string // directories whose entries may be listed beneath (read_dir only): the sandbox root

	RestrictTCP bool     // handle TCP bind and connect (--net host mode)
	ConnectTCP  []uint16 // ports the member may connect to when RestrictTCP
	BindTCP     []uint16 // ports the member may bind when RestrictTCP
}

// Report says what Landlock enforces, or would enforce, for one launch. It is
// part of acbox's enforcement report.
type Report struct {
	ABI        int      `json:"abi"`         // the kernel's ABI, as it reports it (0: no Landlock)
	Enforced   bool     `json:"enforced"`    // a domain was applied ([Plan]: would be applied in best effort)
	HandledFS  []string `json:"handled_fs"`  // filesystem rights denied unless a rule grants them
	HandledNet []string `json:"handled_net"` // network rights denied unless a port rule grants them
	Scoped     []string `json:"scoped"`      // IPC scopes: abstract_unix_socket, signal
	Missing    []string `json:"missing"`     // rights or scopes acbox requires that this ABI lacks
	Rules      int      `json:"rules"`       // path and port rules added
}

// pathRule grants access beneath one path. For a target that is not a
// directory, access is cut down to fileRights when the path is opened.
type pathRule struct {
	path   string
	access uint64
}

// portRule grants access to one TCP port.
type portRule struct {
	port   uint16
	access uint64
}

// ruleset is Rules compiled for one ABI: the handled sets and every rule.
type ruleset struct {
	fs, net, scoped uint64
	paths           []pathRule
	ports           []portRule
	missing         []string
}

// Plan reports what [RestrictThread] would enforce for r on a kernel with the
// given ABI, without touching the kernel. Enforced is true when the ABI can
// enforce anything; strict mode additionally needs Missing to be empty.
func Plan(r Rules, abi int) Report {
	return compile(r, abi).report(abi)
}

// compile turns r into the ruleset for abi. It is pure.
func compile(r Rules, abi int) ruleset {
	known := min(max(abi, 0), maxKnownABI)
	rs := ruleset{fs: fsRights(known), scoped: scopes(known)}
	if r.RestrictTCP {
		rs.net = netRights(known) & tcpRights
	}
	rs.missing = missing(r, rs)
	if rs.fs != 0 {
		rs.addPaths(r.ReadOnly, rs.fs&readRights)
		rs.addPaths(r.ReadWrite, rs.fs&^withheldRW)
		rs.addPaths(r.Devices, rs.fs&deviceRights)
		rs.addPaths(r.ListOnly, rs.fs&ll.AccessFSReadDir)
	}
	if rs.net != 0 {
		rs.ports = ports(r.ConnectTCP, r.BindTCP)
	}
	return rs
}

func (rs *ruleset) addPaths(paths []string, access uint64) {
	for _, p := range paths {
		rs.paths = append(rs.paths, pathRule{path: p, access: access})
	}
}

// ports merges the connect and bind lists into one rule per port, in port
// order.
func ports(connect, bind []uint16) []portRule {
	access := map[uint16]uint64{}
	for _, p := range connect {
		access[p] |= ll.AccessNetConnectTCP
	}
	for _, p := range bind {
		access[p] |= ll.AccessNetBindTCP
	}
	out := make([]portRule, 0, len(access))
	for _, p := range slices.Sorted(maps.Keys(access)) {
		out = append(out, portRule{port: p, access: access[p]})
	}
	return out
}

// missing lists what acbox requires for r that rs cannot handle: filesystem
// rights first, then network rights, then scopes, each in bit order.
func missing(r Rules, rs ruleset) []string {
	out := names(requiredFS&^rs.fs, fsNames)
	if r.RestrictTCP {
		out = append(out, names(tcpRights&^rs.net, netNames)...)
	}
	return append(out, names(scopes(maxKnownABI)&^rs.scoped, scopeNames)...)
}

func (rs ruleset) report(abi int) Report {
	return Report{
		ABI:        abi,
		Enforced:   rs.fs != 0,
		HandledFS:  names(rs.fs, fsNames),
		HandledNet: names(rs.net, netNames),
		Scoped:     names(rs.scoped, scopeNames),
		Missing:    rs.missing,
		Rules:      len(rs.paths) + len(rs.ports),
	}
}

// validate checks that every path in r is absolute and clean, so that a rule
// never depends on the working directory or on ".." resolution.
func validate(r Rules) error {
	for _, list := range [][]string{r.ReadOnly, r.ReadWrite, r.Devices, r.ListOnly} {
		for _, p := range list {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				return fmt.Errorf("landlock: rule path %q must be absolute and clean", p)
			}
		}
	}
	return nil
}
