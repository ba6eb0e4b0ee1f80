package nsjail

import (
	"os"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/landlock"
)

// landlockRules matches the mounts: read-only beneath the system
// directories, /proc and read grants; read-write beneath write grants and
// the private tmpfs mounts; read, write and ioctl on the device nodes.
// Mounted sockets need the read-write set (resolve_unix from ABI 9).
// In the host view the read-only rule is "/" itself (see viewRules); masks
// are mounts in both views, since Landlock cannot deny beneath an allowed
// parent.
func landlockRules(p *policy.Plan) landlock.Rules {
	// ListOnly "/": `ls /` lists what the mounts show; reading still needs
	// one of the rules below.
	r := landlock.Rules{ReadOnly: viewReadOnly(p), ReadWrite: []string{"/dev/shm"}, ListOnly: []string{"/"}}
	for _, s := range p.System {
		if s.Link == "" {
			r.ReadOnly = append(r.ReadOnly, s.Path)
		}
	}
	for _, g := range p.Grants {
		if g.Write {
			r.ReadWrite = append(r.ReadWrite, g.Path)
		} else {
			r.ReadOnly = append(r.ReadOnly, g.Path)
		}
	}
	for _, m := range p.Mounts {
		if m.Readonly && m.Kind != "socket" {
			r.ReadOnly = append(r.ReadOnly, m.Target)
		} else {
			r.ReadWrite = append(r.ReadWrite, m.Target)
		}
	}
	for _, t := range p.Tmpfs {
		r.ReadWrite = append(r.ReadWrite, t.Target)
	}
	for _, d := range append(append([]string{}, devNodes...), "pts") {
		if _, err := os.Lstat("/dev/" + d); err == nil {
			r.Devices = append(r.Devices, "/dev/"+d)
		}
	}
	if p.Network.Mode == "host" {
		r.RestrictTCP = true
		r.ConnectTCP, r.BindTCP = p.Network.ConnectPorts, p.Network.BindPorts
	}
	return r
}

func applyLandlock(cfg *helperConfig, rep *policy.Report) error {
	lr, err := landlock.RestrictThread(landlockRules(cfg.Plan), cfg.Plan.BestEffort)
	if err != nil {
		return &stepError{step: "landlock", err: err}
	}
	rep.Landlock = lr.AppendJSON(nil)
	ok := lr.Enforced && len(lr.Missing) == 0
	why := ""
	if !lr.Enforced {
		why = "Landlock is not available on this kernel"
	} else if len(lr.Missing) > 0 {
		why = "kernel lacks: " + strings.Join(lr.Missing, ", ")
	}
	rep.Controls = append(rep.Controls, policy.Control{Name: "landlock", Requested: true, Enforced: ok, Why: why})
	if isHostView(cfg.Plan) {
		rep.Controls = append(rep.Controls, hostViewSockets(lr))
	}
	return nil
}
