package backend

import "context"

// Ender is implemented by a backend that can end one of its running
// sandboxes from another process of the same user without signalling a
// host pid: `acbox stop` uses it when the registry records no pid 1 it
// can signal (the docker backend with a daemon in another pid namespace,
// or a container init of another uid). Optional.
type Ender interface {
	// End kills every process of sandbox id, which owner runs; an error
	// when it finds no such sandbox of owner's.
	End(ctx context.Context, id string, owner Owner) error
}

// Owner is the acbox process that runs a sandbox: its pid and start time
// (field 22 of /proc/<pid>/stat), in the caller's pid namespace.
type Owner struct {
	Pid   int
	Start uint64
}
