package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Resolve checks a spec against the host and returns the plan. It reads the
// file system (stat, readlink) and nothing else; an error leaves no trace.
// The spec names a concrete backend (native, the default, or docker): the
// launcher replaces "auto" before resolving, and Resolve refuses it.
func Resolve(s Spec, h Host) (*Plan, error) {
	if err := checkVersion(s.Version); err != nil {
		return nil, err
	}
	backend, err := resolveBackend(s.Backend)
	if err != nil {
		return nil, AtField("backend", err)
	}
	if len(s.Command) == 0 || s.Command[0] == "" {
		return nil, AtField("command", invalid("no command: give it after --, or as \"command\" in the spec"))
	}
	p := &Plan{
		Backend: backend, Command: s.Command, UID: h.UID, GID: h.GID,
		User: h.User, Home: h.Home, Hostname: "acbox", TTY: s.TTY,
		BestEffort: s.BestEffort, Delegate: s.Delegate, Image: s.Image, Labels: s.Labels,
		System: SystemPaths(), Parent: s.Parent, Depth: s.Depth, Within: s.Within != "",
		requester: h.Requester,
	}
	if p.Wait, err = ParseWait(s.Wait); err != nil {
		return nil, err
	}
	if err = CheckLabels(s.Labels); err != nil {
		return nil, AtField("labels", err)
	}
	if p.View, err = ParseView(s.View); err != nil {
		return nil, AtField("view", err)
	}
	hp, err := withPrivate(h, s.Private) // grants and masks only: see private.go
	if err != nil {
		return nil, err
	}
	if p.Grants, err = resolveGrants(s.Access, hp); err != nil {
		return nil, err
	}
	if p.Masks, err = resolveMasks(p, s.Exclude, hp); err != nil {
		return nil, AtField("exclude", err)
	}
	if p.Cwd, err = viewCwd(s.Cwd, p, h); err != nil {
		return nil, AtField("cwd", err)
	}
	if p.Mounts, err = resolveMounts(s.Mounts, h, s.Private); err != nil {
		return nil, AtField("mounts", err)
	}
	if p.Limits, err = resolveLimits(s.Limits); err != nil {
		return nil, AtField("limits", err)
	}
	if p.Tmpfs, err = resolveTmpfs(s.Tmpfs, h, p.Limits.Memory); err != nil {
		return nil, AtField("tmpfs", err)
	}
	if p.Network, err = resolveNetwork(s.Access.Network); err != nil {
		return nil, AtField("access.network", err)
	}
	if err = resolveView(p, h); err != nil {
		return nil, err
	}
	if err = resolveHome(s, p, h); err != nil {
		return nil, err
	}
	// After the view: the host view has no home tmpfs to count.
	if err = CheckTmpfsBudget(p.Tmpfs, p.Limits.Memory, hostMemory(h)); err != nil {
		return nil, err
	}
	if p.View != ViewHost {
		if err = checkGrantTargets(p); err != nil {
			return nil, err
		}
	}
	if p.Protected, p.ProtectMissing, err = resolveProtected(p, s.Protect, s.Unprotect); err != nil {
		return nil, err
	}
	if p.Env, err = buildEnv(s, p, h); err != nil {
		return nil, AtField("env", err)
	}
	if p.AccessEnv, err = checkAccessEnv(s); err != nil {
		return nil, err
	}
	if err = checkArgSize(p.Command, p.Env); err != nil {
		return nil, err
	}
	if p.Delegate {
		p.Env = delegateEnv(p.Env)
	}
	return p, nil
}

// resolveBackend names the backend the plan is for. The plan is shaped for
// it (the docker backend has no host view) and is never changed after
// Resolve, so "auto" must already have been replaced by the backend the
// launcher chose.
func resolveBackend(b string) (string, error) {
	switch b {
	case "", "native":
		return "native", nil
	case "docker":
		return b, nil
	case "auto":
		return "", invalid("backend auto: choose the backend before resolving: the launcher resolves auto")
	}
	return "", invalid("backend %q: want native, docker or auto", b)
}

// resolveCwd: an explicit cwd must lie inside a grant; the implicit default
// (the launch directory) falls back to the private home when it is not.
func resolveCwd(cwd string, grants []Grant, h Host) (string, error) {
	explicit := cwd != ""
	if !explicit {
		cwd = h.Cwd
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(h.Cwd, cwd)
	}
	cwd, fallback, err := realCwd(filepath.Clean(cwd), explicit, h, evalOrClean)
	if err != nil {
		return "", err
	}
	if fallback {
		return h.Home, nil
	}
	for _, g := range grants {
		if within(cwd, g.Path) {
			return cwd, nil
		}
	}
	if explicit {
		return "", refuse(cwd, "--cwd is not inside any grant", "grant it with --read or --write, or choose a directory inside a grant")
	}
	return h.Home, nil
}

// realCwd resolves the working directory's symlinks with host on the
// host. For a nested launch it is judged once instead: an explicit one
// the requester cannot see is refused, the implicit default then falls
// back (fallback).
func realCwd(cwd string, explicit bool, h Host, host func(string) string) (real string, fallback bool, err error) {
	if h.Requester == nil {
		return host(cwd), false, nil
	}
	if !explicit {
		j, ok, err := judge(h.Requester, cwd)
		return j.real, !ok || err != nil, nil
	}
	j, err := judgeNamed(h.Requester, cwd, "is a nested launch's --cwd, but")
	return j.real, false, err
}

// evalOrClean is p with its symlinks resolved, or p when it cannot be.
func evalOrClean(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

func resolveMounts(ms []MountSpec, h Host, private []string) ([]Mount, error) {
	var out []Mount
	for i, m := range ms {
		hm := h
		if m.Internal {
			hm.Requester = nil // acbox's own binary and broker socket, not the member's choice
		}
		src, fi, err := canonical(m.Source, hm, "mount source")
		if err != nil {
			return nil, err
		}
		if src == "/" || within(src, "/proc") || within(src, "/sys") {
			return nil, refuse(m.Source, "mount source may not be / or lie under /proc or /sys", "mount a narrower path")
		}
		if err := checkMountSource(src, m, h); err != nil {
			return nil, err
		}
		if err := checkMountPrivate(src, m, private); err != nil {
			return nil, AtField(fmt.Sprintf("mounts[%d]", i), err)
		}
		dst := m.Target
		if dst == "" {
			dst = src
		}
		dst, ok := cleanAbs(dst)
		if !ok || dst == "/" || within(dst, "/proc") || within(dst, "/dev") || within(dst, "/sys") {
			return nil, refuse(m.Target, "mount target must be absolute and not /, /proc, /dev or /sys", "")
		}
		if reservedDir(dst) && !m.Internal {
			return nil, refuse(dst, "lies in "+DelegateDir+", which is reserved for acbox's own mounts", "mount it at another target")
		}
		kind, err := mountKind(src, fi)
		if err != nil {
			return nil, err
		}
		out = append(out, Mount{Source: src, Target: dst, Readonly: m.ReadOnly(), Kind: kind, Internal: m.Internal})
	}
	sortParentsFirst(out, func(i int) string { return out[i].Target })
	return out, nil
}

// checkMountSource refuses what no grant may show either: the home
// directory or a parent of it, acbox's state and config (profiles), the
// protect list. acbox's own mounts (the broker socket lives in the state
// directory) are exempt.
func checkMountSource(src string, m MountSpec, h Host) error {
	if m.Internal {
		return nil
	}
	if within(h.Home, src) {
		return refuse(src, "it is your home directory or a parent of it", "mount the file or directory inside your home that the command needs")
	}
	return checkProtected(src, h)
}

// mountKind says what fi, found at src, is as a mount source.
func mountKind(src string, fi os.FileInfo) (string, error) {
	switch m := fi.Mode(); {
	case m.IsDir():
		return "dir", nil
	case m.IsRegular():
		return "file", nil
	case m&os.ModeSocket != 0:
		return "socket", nil
	case m&os.ModeDevice != 0 || m&os.ModeCharDevice != 0:
		return "", refuse(src, "device files cannot be mounted", "acbox provides null, zero, full, random, urandom and tty")
	}
	return "", refuse(src, "mount source is neither a directory, a regular file nor a socket", "")
}

// resolveTmpfs: /tmp and home get their default sizes (see
// defaultTmpfsSizes) unless a tmpfs names them; each target once.
func resolveTmpfs(ts []TmpfsSpec, h Host, memory int64) ([]Tmpfs, error) {
	tmp, home := defaultTmpfsSizes(memory)
	out := []Tmpfs{{Target: "/tmp", Size: tmp}, {Target: h.Home, Size: home}}
	given := map[string]bool{}
	for _, t := range ts {
		dst, ok := cleanAbs(t.Target)
		if !ok || dst == "/" || within(dst, "/proc") || within(dst, "/dev") || within(dst, "/sys") {
			return nil, refuse(t.Target, "tmpfs target must be absolute and not /, /proc, /dev or /sys", "")
		}
		if reservedDir(dst) {
			return nil, refuse(dst, "lies in "+DelegateDir+", which is reserved for acbox's own mounts", "choose another tmpfs target")
		}
		if given[dst] {
			return nil, invalid("tmpfs %s is given more than once: give it once, with the size you want", dst)
		}
		given[dst] = true
		size := int64(ExtraTmpfs)
		if t.Size != "" {
			var err error
			if size, err = ParseSize(t.Size); err != nil {
				return nil, err
			}
		}
		out = append(dropTmpfs(out, dst), Tmpfs{Target: dst, Size: size})
	}
	sortParentsFirst(out, func(i int) string { return out[i].Target })
	return out, nil
}

// hostMemory is h.Memory, else the host's RAM; 0 when it cannot be read
// (then only the memory limit bounds the tmpfs sizes, and admission, which
// needs the figure too, refuses the launch).
func hostMemory(h Host) int64 {
	if h.Memory > 0 {
		return h.Memory
	}
	m, err := HostMemory()
	if err != nil {
		return 0
	}
	return m
}

func resolveLimits(l LimitsSpec) (Limits, error) {
	out := Limits{Memory: DefaultMemory, Pids: DefaultPids}
	if l.Memory != "" {
		m, err := ParseSize(l.Memory)
		if err != nil {
			return out, err
		}
		if m < MinMemory {
			return out, refuse("limits.memory", fmt.Sprintf("%s is too little: a sandbox needs at least %s (its /dev/shm alone is %s)", l.Memory, FormatSize(MinMemory), FormatSize(DevShmSize)), "give --memory 128MiB or more")
		}
		out.Memory = m
	}
	if l.Pids < 0 {
		return out, invalid("limits.pids %d: want a positive count", l.Pids)
	}
	if l.Pids > 0 && l.Pids < MinPids {
		return out, refuse("limits.pids", fmt.Sprintf("%d is too few: a sandbox needs at least %d (acbox's own processes and threads in it count against the limit)", l.Pids, MinPids), fmt.Sprintf("give --pids %d or more", MinPids))
	}
	if l.Pids > 0 {
		out.Pids = l.Pids
	}
	return out, nil
}

// ParseMountFlag reads SRC:DST[:ro|rw] or SRC[:ro|rw].
func ParseMountFlag(s string) (MountSpec, error) {
	parts := strings.Split(s, ":")
	m := MountSpec{Source: parts[0], Readonly: RW(false)}
	rest := parts[1:]
	if n := len(rest); n > 0 && (rest[n-1] == "ro" || rest[n-1] == "rw") {
		m.Readonly = RW(rest[n-1] == "rw")
		rest = rest[:n-1]
	}
	switch len(rest) {
	case 0:
	case 1:
		m.Target = rest[0]
		if m.Target == "" { // would read as "at the source's path", which the spec's "target": "" refuses
			return m, invalid("--mount %q: empty target: give SRC:DST, or SRC alone to mount it at the same path", s)
		}
	default:
		return m, invalid("--mount %q: want SRC:DST[:ro|rw]", s)
	}
	if m.Source == "" {
		return m, invalid("--mount %q: empty source", s)
	}
	return m, nil
}
