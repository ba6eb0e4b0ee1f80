package policy

import (
	"fmt"
	"path/filepath"
)

// Notices are what a person should know about a plan before it runs,
// though nothing is refused: lines for standard error, each naming the
// next step. A launch that is refused prints none.
//
//   - The launch directory is not granted, so the member runs elsewhere
//     (its private home): `cd repo && acbox run -- git status` would
//     otherwise say "not a git repository" with no hint why.
//   - A --pass-env variable is not set here, so the member does not get
//     it (env(1) and docker pass nothing for it either, silently).
//   - An image is named for the native backend, which runs the host's own
//     programs and ignores it. Warned, not refused: ignoring it weakens
//     no control, and a spec written for both backends may carry one.
func Notices(s Spec, p *Plan, h Host) []string {
	var out []string
	if s.Cwd == "" && p.View != ViewHost {
		switch dir := launchDir(h); {
		case dir != p.Cwd:
			out = append(out, cwdNotice(dir, p.Cwd, h))
		case dir == p.Home && !p.granted(dir):
			out = append(out, fmt.Sprintf("note: the command runs in a private, empty home at %s, not in your home directory; grant a directory inside it with -w DIR to share it", Quote(dir)))
		}
	}
	for _, k := range s.PassEnv {
		if _, ok := h.getenv(k); !ok {
			out = append(out, fmt.Sprintf("warning: --pass-env %s: %s is not set here, so the command does not get it", Quote(k), Quote(k)))
		}
	}
	if s.Image != "" && p.Backend == "native" {
		out = append(out, fmt.Sprintf("warning: --image %s applies to the docker backend; the native backend runs this host's programs and ignores it", Quote(s.Image)))
	}
	return out
}

// launchDir is the launch directory as resolveCwd reads it.
func launchDir(h Host) string {
	if real, err := filepath.EvalSymlinks(h.Cwd); err == nil {
		return real
	}
	return filepath.Clean(h.Cwd)
}

// cwdNotice says where the member runs instead of dir, and how to grant
// dir when a grant of it would be accepted (not /, the home directory or
// a parent of it, acbox's own state...).
func cwdNotice(dir, runs string, h Host) string {
	msg := fmt.Sprintf("note: the current directory %s is not granted, so the command runs in %s", Quote(dir), Quote(runs))
	if checkRefused(dir, false, h) != nil {
		return msg + "; to run it elsewhere, grant a directory with -w DIR and give --cwd DIR"
	}
	return msg + "; to run it there, grant it with -w . (read-write) or -r . (read-only)"
}

// granted reports whether dir lies inside a grant of the plan.
func (p *Plan) granted(dir string) bool {
	for _, g := range p.Grants {
		if within(dir, g.Path) {
			return true
		}
	}
	return false
}
