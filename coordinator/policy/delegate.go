package policy

// Where a delegating sandbox finds the broker and the acbox binary. Both
// are runtime mounts the launcher adds; the directory is created on the
// sandbox's own root, so no host path is involved.
const (
	DelegateDir    = "/.acbox"
	DelegateBin    = DelegateDir + "/bin/acbox"
	DelegateSocket = DelegateDir + "/broker.sock"
)

// delegateEnv adds ACBOX_SOCKET and puts the acbox binary on PATH.
func delegateEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) > 5 && kv[:5] == "PATH=" {
			kv = "PATH=" + DelegateDir + "/bin:" + kv[5:]
		}
		out = append(out, kv)
	}
	return append(out, "ACBOX_SOCKET="+DelegateSocket)
}
