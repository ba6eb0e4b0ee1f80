package main

import (
	"strconv"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
)

// parseRunFast reads the arguments of `acbox run` (args[0] is "run")
// without kong. Building kong's model of `run` by reflection and parsing
// with it cost every launch about 0.5 ms of CPU and 100 page faults. It
// accepts only argument lists it reads exactly as kong does, and only when
// kong would accept them too; anything else (help, a flag it does not
// know, a repeated single-valued flag, a value kong would refuse or might
// read another way) returns false, and Main hands the list to kong for its
// result and its error. TestRunFastMatchesKong holds the two to the same
// RunCmd over many argument lists.
func parseRunFast(args []string) (*RunCmd, bool) {
	c := &RunCmd{StatusFd: -1}
	c.Backend = "native"
	var seen []string // single-valued flags given once already
	// once records name; false when it was given already (kong then
	// refuses the list, onlyOnce).
	once := func(name string) bool {
		for _, s := range seen {
			if s == name {
				return false
			}
		}
		seen = append(seen, name)
		return true
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			c.Command = append([]string{}, args[i:]...)
			return c, true
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "-r":
			name = "--read"
		case a == "-w":
			name = "--write"
		case !strings.HasPrefix(name, "--"):
			return nil, false // other short flags, clusters, -h, -r=X (kong reads "=X")
		}
		name = name[2:]
		if (name == "tty" || name == "no-tty") && !once("tty") {
			return nil, false
		}
		if c.fastBool(name) {
			if hasVal {
				return nil, false
			}
			continue
		}
		if name == "wait" {
			if !once(name) || !c.fastWait(val, hasVal) {
				return nil, false
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, false
			}
			i++
			val = args[i]
		}
		if val == "" || strings.HasPrefix(val, "-") {
			return nil, false
		}
		if c.fastList(name, val) {
			continue
		}
		if !once(name) || !c.fastSingle(name, val) {
			return nil, false
		}
	}
	return c, true
}

// fastBool sets a flag that takes no value; false when name is not one.
func (c *RunCmd) fastBool(name string) bool {
	t, f := true, false
	switch name {
	case "best-effort":
		c.BestEffort = true
	case "delegate":
		c.Delegate = true
	case "tty":
		c.TTY = &t
	case "no-tty":
		c.TTY = &f
	default:
		return false
	}
	return true
}

// fastWait reads --wait or --wait=DURATION as waitFlag.Decode does; false
// for a value Decode refuses.
func (c *RunCmd) fastWait(val string, hasVal bool) bool {
	c.Wait = waitFlag{set: true, value: policy.DefaultWait.String()}
	if !hasVal {
		return true
	}
	if val == "" {
		return false
	}
	if _, err := policy.ParseWait(val); err != nil {
		return false
	}
	c.Wait.value = val
	return true
}

// fastList adds val to a repeatable flag; false when name is not one or
// the value is not a port kong's mapper would take.
func (c *RunCmd) fastList(name, val string) bool {
	f := &c.LaunchFlags
	var list *[]string
	switch name {
	case "read":
		list = &f.Read
	case "write":
		list = &f.Write
	case "allow":
		list = &f.Allow
	case "env":
		list = &f.Env
	case "pass-env":
		list = &f.PassEnv
	case "mount":
		list = &f.Mount
	case "tmpfs":
		list = &f.Tmpfs
	case "exclude":
		list = &f.Exclude
	case "protect":
		list = &f.Protect
	case "unprotect":
		list = &f.Unprotect
	case "label":
		list = &f.Label
	case "connect-port", "bind-port":
		return c.fastPort(name, val)
	default:
		return false
	}
	*list = append(*list, val)
	return true
}

// fastPort reads a port as portMapper does.
func (c *RunCmd) fastPort(name, val string) bool {
	n, err := strconv.ParseUint(val, 10, 16)
	if err != nil || n == 0 {
		return false
	}
	if name == "connect-port" {
		c.ConnectPort = append(c.ConnectPort, uint16(n))
	} else {
		c.BindPort = append(c.BindPort, uint16(n))
	}
	return true
}

// fastSingle sets a single-valued flag; false when name is not one or the
// value is not a number intMapper would take.
func (c *RunCmd) fastSingle(name, val string) bool {
	f := &c.LaunchFlags
	var s *string
	switch name {
	case "cwd":
		s = &f.Cwd
	case "net":
		s = &f.Net
	case "backend":
		s = &f.Backend
	case "image":
		s = &f.Image
	case "home":
		s = &f.Home
	case "memory":
		s = &f.Memory
	case "spec":
		s = &f.Spec
	case "view":
		s = &f.View
	case "profile":
		s = &f.Profile
	case "within":
		s = &f.Within
	case "report":
		s = &c.Report
	case "pids", "status-fd":
		return c.fastInt(name, val)
	default:
		return false
	}
	*s = val
	return true
}

// fastInt reads a whole number as intMapper does (--pids may not be 0).
func (c *RunCmd) fastInt(name, val string) bool {
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || n != int64(int(n)) {
		return false
	}
	if name == "pids" {
		if n == 0 {
			return false
		}
		c.Pids = int(n)
	} else {
		c.StatusFd = int(n)
	}
	return true
}
