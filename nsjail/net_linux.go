package nsjail

import (
	"os"

	"github.com/acbox/acbox/bridge"
	"github.com/acbox/acbox/coordinator/policy"
)

// setupNetwork: in none and proxy mode the sandbox has its own network
// namespace with lo up; in proxy mode the bridge listens on 127.0.0.1:3128
// and hands each connection's socket to the parent's proxy, reached through
// the descriptor passed at fdProxy (its path is not visible inside). Host mode shares the host's
// network, an opt-out the report states.
func (s *sandbox) setupNetwork() error {
	mode := s.cfg.Plan.Network.Mode
	if mode == "host" {
		s.rep.Controls = append(s.rep.Controls, policy.Control{Name: "network_isolation", Requested: false, Enforced: false, Why: "--net host: the host network is shared (Landlock TCP rules, the listen guard and the MPTCP and TCP Fast Open refusals still apply)"})
		listenGuardControl(s.rep, probeListenGuard)
		return nil
	}
	if err := bridge.LoopbackUp(); err != nil {
		return &stepError{step: "loopback up", err: err}
	}
	s.rep.Controls = append(s.rep.Controls, policy.Control{Name: "network_isolation", Requested: true, Enforced: true})
	if mode != "proxy" {
		return nil
	}
	ln, err := bridge.Listen()
	if err != nil {
		return &stepError{step: "bridge listen on " + bridge.Addr, err: err}
	}
	proxy := os.NewFile(uintptr(s.cfg.ProxyFD), "proxy")
	go bridge.Serve(ln, bridge.DialFile(proxy))
	s.rep.Controls = append(s.rep.Controls, policy.Control{Name: "egress_proxy", Requested: true, Enforced: true})
	return nil
}
